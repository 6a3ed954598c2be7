"""A run (la_run): data, model and trainer made from one description,
trained with a Python callback, measured, saved and resumed."""
import ctypes
import math
import os
import weakref
from ctypes import POINTER, byref, c_double, c_size_t

import numpy as np

from . import _lib
from .config import RunConfig, config_in
from .diag import noise_summary
from .model import Batch, Model, Rng

# What a step leaves in the history, in the order of `linattn train`'s step
# lines.
HISTORY_KEYS = ("step", "loss", "grad_norm", "clipped_norm", "lr_scale",
                "update_norm", "eval_loss")


class Record:
    """What the callback of Run.train sees after a step: step (1-based),
    loss (the training loss before the step), eval_loss (NaN unless the run
    evaluated at this step), grad_norm, clipped_norm, lr_scale,
    update_norm, and read-only numpy views theta, grad and update, valid
    during the call only: keep a copy (rec.theta.copy()), not the view."""

    __slots__ = HISTORY_KEYS + ("theta", "grad", "update")

    def __repr__(self):
        return "Record(step=%d, loss=%.6g, eval_loss=%.6g)" % (self.step, self.loss,
                                                               self.eval_loss)


class GradNoise:
    """Paper A's gradient noise at one theta: norms, the samples
    ||g_B - g||; true_grad_norm, ||g||; stats, their NoiseStats
    (moments, tail index, histogram)."""

    def __init__(self, norms, true_grad_norm, stats):
        self.norms = norms
        self.true_grad_norm = true_grad_norm
        self.stats = stats

    def __repr__(self):
        return "GradNoise(%d samples, mean %.6g, kurtosis %.4g, true |g| %.6g)" % (
            len(self.norms), self.stats.mean, self.stats.kurtosis, self.true_grad_norm)


def _view(lib, ptr, n, owner, writeable=False):
    """A numpy view of n reals at ptr that keeps owner alive."""
    arr = (lib.c_real * n).from_address(ctypes.addressof(ptr.contents))
    arr._owner = owner
    v = np.frombuffer(arr, dtype=lib.dtype)
    v.flags.writeable = writeable
    return v


class Run:
    """One run of the testbed: Run(config) with a RunConfig or a preset's
    name, and fields to change (Run("1", opt="sgd", steps=2000)).

        run = Run("1", steps=1000)
        run.train(every=100, callback=lambda r: print(r.step, r.eval_loss))
        run.history            # {key: array}: pandas.DataFrame(run.history)
        run.hessian_eigs(k=5)  # at the current theta, on the diagnostics' batch

    precision: 'float' (the `linattn` command's, the default) or 'double'
    (LINATTN_PRECISION sets the default)."""

    def __init__(self, config="1", precision=None, **fields):
        if isinstance(config, RunConfig):
            lib = _lib.lib_of(precision) if precision else config._lib
            cfg = config_in(lib, config)
            cfg.update(fields)
        else:
            opt = fields.pop("opt", None)
            cfg = RunConfig(config, opt=opt, precision=precision, **fields)
        self._make(cfg.resolve())

    def _make(self, cfg):
        lib = cfg._lib
        self._lib = lib
        self.config = cfg
        self._r = lib.opaque(_lib.T_RUN)
        self._cb = lib.train_callback(self._on_step)
        self._user, self._every, self._exc = None, 1, None
        self._hist = {k: [] for k in HISTORY_KEYS}
        env = lib.RunEnv(self._cb, None, None)
        st = lib.la_run_create(self._r, cfg._buf, byref(env))
        if st:
            raise lib.error(st, "la_run_create", cfg._first_bad())
        weakref.finalize(self, lib.la_run_destroy, self._r)
        self._tr = lib.la_run_trainer(self._r)
        n = ctypes.c_int()
        self._theta_ptr = lib.la_run_theta(self._r, byref(n))
        self.nparams = n.value
        self.model = Model(self)

    # ------------------------------------------------------------ state
    @property
    def precision(self):
        return self._lib.precision

    @property
    def step(self):
        """Steps taken."""
        return self._lib.la_run_step(self._r)

    @property
    def theta(self):
        """The parameters, a read-only view of the run's own (it changes as
        the run trains: copy it to keep a value)."""
        return _view(self._lib, self._theta_ptr, self.nparams, self)

    def set_theta(self, theta):
        """Replaces the parameters (the optimizer's state is kept)."""
        src = self._lib.reals(theta, self.nparams, "theta")
        _view(self._lib, self._theta_ptr, self.nparams, self, writeable=True)[:] = src

    def eval_loss(self):
        """The loss on the run's evaluation batch at the current theta."""
        v = c_double()
        self._lib.check(self._lib.la_trainer_eval(self._tr, byref(v)), "la_trainer_eval")
        return v.value

    @property
    def eval_batch(self):
        """The run's evaluation batch (eval_seed's evaluation stream)."""
        return Batch._view(self._lib, self._lib.la_run_eval_batch(self._r), self)

    @property
    def history(self):
        """Every step trained here, one array per key (HISTORY_KEYS); step 0
        holds the evaluation loss at the start, as `linattn train` writes
        it. eval_loss is NaN where the run did not evaluate."""
        return {k: np.array(v, dtype=np.int64 if k == "step" else np.float64)
                for k, v in self._hist.items()}

    # ------------------------------------------------------------ training
    def _on_step(self, user, recp):
        try:
            rec = recp.contents
            h = self._hist
            h["step"].append(rec.step)
            h["loss"].append(rec.loss)
            h["grad_norm"].append(rec.grad_norm)
            h["clipped_norm"].append(rec.clipped_norm)
            h["lr_scale"].append(rec.lr_scale)
            h["update_norm"].append(rec.update_norm)
            h["eval_loss"].append(rec.eval_loss if rec.has_eval else math.nan)
            if self._user is not None and rec.step % self._every == 0:
                r = Record()
                for k in HISTORY_KEYS:
                    r.__setattr__(k, h[k][-1])
                n = rec.nparams
                r.theta = _view(self._lib, rec.theta, n, None)
                r.grad = _view(self._lib, rec.grad, n, None)
                r.update = _view(self._lib, rec.update, n, None)
                if self._user(r):
                    return 1
            return 0
        except BaseException as e:  # raised again once the library returns
            self._exc = e
            return 1

    def train(self, steps=None, every=None, callback=None):
        """Trains `steps` more steps (None: up to the run's `steps` field).
        callback(record), if given, is called every `every` steps (default:
        the run's log_every) with a Record; returning True stops the run.
        An exception in it (Ctrl-C included) stops the run and is raised
        here. LinattnError LA_EDIVERGED when a step met a NaN or Inf: the
        run keeps the last finite state. Returns the run."""
        lib = self._lib
        start = self.step
        n = max(0, self.config["steps"] - start) if steps is None else int(steps)
        if n < 0:
            raise ValueError("steps must not be negative")
        if start == 0 and not self._hist["step"] and self.config["eval_every"] > 0:
            for k in HISTORY_KEYS:
                self._hist[k].append(math.nan)
            self._hist["step"][-1] = 0
            self._hist["eval_loss"][-1] = self.eval_loss()
        self._every = int(every) if every else max(1, self.config["log_every"])
        self._user, self._exc = callback, None
        try:
            st = lib.la_trainer_run(self._tr, n)
        finally:
            self._user = None
        if self._exc is not None:
            e, self._exc = self._exc, None
            raise e
        if st:
            raise lib.error(st, "la_trainer_run", "the run stopped at step %d" % self.step)
        return self

    # ------------------------------------------------------------ prompts
    def sample(self, count, seed=None, stream=0, rng=None):
        """count prompts from the run's data setting: from rng (an Rng,
        which advances), else from stream `stream` of `seed` (default the
        run's seed: stream t is the training batch of step t of a fresh-data
        run)."""
        if rng is None:
            rng = Rng(self.config["seed"] if seed is None else seed, stream)
        b = Batch._empty(self._lib, self.config["d"], self.config["n"], int(count))
        self._lib.check(self._lib.la_data_sample(self._lib.la_run_data(self._r),
                                                 byref(rng._s), byref(b._b)),
                        "la_data_sample")
        return b

    def diag_batch(self, count=None):
        """The fixed batch of the diagnostics: what `linattn curvature` and
        `train --diag-every` measure on (diag_batch prompts of the
        evaluation seed's stream 2^64 - 3)."""
        seed = self.config["eval_seed"] or self.config["seed"]
        return self.sample(count or self.config["diag_batch"], seed=seed,
                           stream=_lib.LA_STREAM_EVAL - 2)

    # ------------------------------------------------------------ measurements
    def _at(self, theta, batch):
        if batch is None:
            if getattr(self, "_diag", None) is None:
                self._diag = self.diag_batch()  # fixed: drawn once
            batch = self._diag
        return self.theta if theta is None else theta, batch

    def hessian_eigs(self, k=10, batch=None, theta=None, **kw):
        """Model.hessian_eigs at the run's theta (or theta), on the
        diagnostics' batch (or batch)."""
        theta, batch = self._at(theta, batch)
        return self.model.hessian_eigs(theta, batch, k, **kw)

    def robust_cond(self, batch=None, theta=None, **kw):
        """Model.robust_cond at the run's theta, on the diagnostics' batch."""
        theta, batch = self._at(theta, batch)
        return self.model.robust_cond(theta, batch, **kw)

    def hessian(self, batch=None, theta=None):
        """Model.hessian at the run's theta, on the diagnostics' batch."""
        theta, batch = self._at(theta, batch)
        return self.model.hessian(theta, batch)

    def grad_noise(self, minibatch=1000, true_batch=0, samples=10000, bins=100,
                   theta=None, rng=None):
        """Paper A's gradient noise at the run's theta (la_grad_noise): the
        'true' gradient on true_batch fresh prompts (default 100 minibatches),
        then `samples` minibatch gradients. The default rng is the one
        `linattn noise` draws from, so the samples are its samples."""
        lib = self._lib
        th = lib.reals(self.theta if theta is None else theta, self.nparams, "theta")
        if rng is None:
            rng = Rng(self.config["seed"], _lib.LA_STREAM_EVAL - 3)
        cfg = _lib.GradNoiseConfig(int(minibatch), int(true_batch), int(samples))
        norms = np.empty(int(samples) if samples > 0 else 10000)
        tg = c_double()
        lib.check(lib.la_grad_noise(lib.la_run_model(self._r), lib.ptr(th),
                                    lib.la_run_data(self._r), byref(rng._s), byref(cfg),
                                    _lib.dptr(norms), byref(tg), None, 0),
                  "la_grad_noise")
        return GradNoise(norms, tg.value, noise_summary(norms, bins, precision=lib))

    # ------------------------------------------------------------ checkpoints
    def save(self, path):
        """Writes a checkpoint (la_checkpoint_save): the description, theta,
        the optimizer's state, the step and the data stream."""
        self._lib.check(self._lib.la_checkpoint_save(self._tr, os.fsencode(path)),
                        "la_checkpoint_save", os.fspath(path))

    def to_bytes(self):
        """The checkpoint's bytes."""
        lib = self._lib
        size, done = c_size_t(), c_size_t()
        lib.check(lib.la_checkpoint_bytes(self._tr, byref(size)), "la_checkpoint_bytes")
        buf = ctypes.create_string_buffer(size.value)
        lib.check(lib.la_checkpoint_save_mem(self._tr, buf, size, byref(done)),
                  "la_checkpoint_save_mem")
        return buf.raw[:done.value]

    @classmethod
    def resume(cls, checkpoint, precision=None, **fields):
        """The run saved in a checkpoint (a path or its bytes), continued
        bit for bit. Fields that are not part of the run's identity (steps,
        the measurements) may be given; another identity is LA_ESHAPE."""
        lib = _lib.lib_of(precision)
        if isinstance(checkpoint, (bytes, bytearray)):
            data, name = bytes(checkpoint), "checkpoint"
        else:
            with open(checkpoint, "rb") as f:
                data = f.read()
            name = os.fspath(checkpoint)
        cfg = RunConfig(None, precision=lib)
        lib.check(lib.la_checkpoint_run(data, len(data), cfg._buf, None),
                  "la_checkpoint_run", name)
        cfg.update(fields)
        self = cls.__new__(cls)
        self._make(cfg.resolve())
        differs = POINTER(_lib.RunField)()
        st = lib.la_run_resume_mem(self._r, data, len(data), byref(differs))
        if st:
            why = name
            if differs:
                why += ": its run has another %s" % differs.contents.key.decode()
            raise lib.error(st, "la_run_resume_mem", why)
        return self

    def __repr__(self):
        return "Run(%s, opt %s, %d parameters, step %d of %d, %s)" % (
            "setting " + self.config["setting"], self.config["opt"], self.nparams,
            self.step, self.config["steps"], self.precision)
