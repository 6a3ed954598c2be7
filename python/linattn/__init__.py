"""linattn: the linear-transformer optimization testbed of linattn.h, from
Python (ctypes and numpy).

    import linattn
    run = linattn.Run("1", steps=2000)              # paper A, Setting 1, Adam
    run.train(every=500, callback=lambda r: print(r.step, r.eval_loss))
    eigs = run.hessian_eigs(k=5)                    # top of the Hessian's spectrum
    rc = run.robust_cond()                          # paper A's robust condition numbers

The library is linattn.h compiled for this host, found or built on first
use as linattn._build describes (LINATTN_LIB, or a cache); nothing is loaded
on import. Every failed call raises LinattnError with the status's name
(LA_ERANGE, ...) and message; bad input is also a ValueError."""
from ._errors import LinattnError
from ._lib import default_precision, library
from .checkpoint import Checkpoint
from .checkpoint import read as read_checkpoint
from .config import Field, RunConfig, fields, optimizers, presets
from .diag import (Eigs, LinattnWarning, NoiseStats, RobustCond, lanczos, noise_summary,
                   rcond_diag, rcond_spectrum, slq, weighted_median)
from .model import Batch, Block, Model, Rng
from .run import GradNoise, Record, Run, cpu_count


def _version():
    import re
    from . import _build
    try:
        with open(_build.header_path()) as f:
            text = f.read(20000)
    except (OSError, FileNotFoundError):
        return "unknown"
    parts = [re.search(r"#define LINATTN_VERSION_%s (\d+)" % k, text)
             for k in ("MAJOR", "MINOR", "PATCH")]
    return ".".join(m.group(1) for m in parts) if all(parts) else "unknown"


__version__ = _version()

__all__ = ["LinattnError", "LinattnWarning", "library", "default_precision",
           "RunConfig", "Field", "fields", "presets", "optimizers", "Run", "Record",
           "GradNoise", "cpu_count", "Model", "Block", "Batch", "Rng", "Eigs", "RobustCond",
           "NoiseStats", "lanczos", "slq", "rcond_diag", "rcond_spectrum",
           "weighted_median", "noise_summary", "Checkpoint", "read_checkpoint"]
