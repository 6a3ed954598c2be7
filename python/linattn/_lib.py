"""The shared library through ctypes: its functions' signatures, the small
structs passed by value or filled by the library (each mirrored here and
held member by member to la_member_at's names and offsets and to
la_sizeof, so a layout change is an error at load time, not a wrong
number), the structs that grow (la_run_config, la_run, ...) as opaque
blocks of la_sizeof bytes, and the status table (la_status_name)."""
import ctypes
import os
import threading
from ctypes import (CFUNCTYPE, POINTER, Structure, byref, c_char_p, c_double,
                    c_float, c_int, c_long, c_size_t, c_uint, c_uint64, c_void_p)

import numpy as np

from . import _build, _header
from ._errors import make_error, status_error

# la_sizeof's type codes (the header's LA_TYPE_*), by name.
TYPE = _header.type_codes()
LA_STREAM_EVAL = _header.define("LA_STREAM_EVAL")


class Rng(Structure):
    _fields_ = [("key", c_uint64), ("stream", c_uint64), ("counter", c_uint64)]


class RunField(Structure):
    _fields_ = [("key", c_char_p), ("kind", c_int), ("offset", c_size_t),
                ("lo", c_double), ("hi", c_double), ("flags", c_uint),
                ("optim", c_uint), ("names", POINTER(c_char_p)), ("help", c_char_p),
                ("def", c_double), ("follows", c_char_p)]


class RecordField(Structure):
    """la_record_field: not a type of la_sizeof; each row's offset is held to
    la_train_record's member of its name instead (Library._record_fields)."""
    _fields_ = [("key", c_char_p), ("kind", c_int), ("offset", c_size_t),
                ("help", c_char_p)]


class LanczosConfig(Structure):
    _fields_ = [("which", c_int), ("max_iter", c_int), ("seed", c_uint64)]


class SlqConfig(Structure):
    _fields_ = [("probes", c_int), ("steps", c_int), ("seed", c_uint64)]


class RcondConfig(Structure):
    _fields_ = [("dense_max", c_int), ("slq", SlqConfig), ("median", c_int)]


class Rcond(Structure):
    _fields_ = [("by_diag", c_double), ("by_spectrum", c_double),
                ("lambda_max", c_double), ("lambda_median", c_double),
                ("exact", c_int), ("resolved", c_int), ("resolution", c_double)]


class GradNoiseConfig(Structure):
    _fields_ = [("minibatch", c_int), ("true_batch", c_int), ("samples", c_int)]


class NoiseConfig(Structure):
    _fields_ = [("bins", c_int), ("hill_k", c_int)]


class NoiseStats(Structure):
    _fields_ = [("mean", c_double), ("var", c_double), ("kurtosis", c_double),
                ("hill_alpha", c_double), ("hill_stderr", c_double),
                ("min", c_double), ("max", c_double)]


class MeasureConfig(Structure):
    _fields_ = [("top", c_int), ("noise", c_int)]


class MeasureKey(Structure):
    """la_measure_key: a row of the measurement table (not a type of
    la_sizeof; the record that holds its values is)."""
    _fields_ = [("key", c_char_p), ("group", c_int), ("kind", c_int),
                ("indexed", c_int), ("help", c_char_p)]


def _measure_record(nkeys, ngroups):
    """la_measure_record, of the library's table: nkeys rows, ngroups
    groups."""
    class MeasureRecord(Structure):
        _fields_ = [("step", c_long), ("due", c_uint), ("status", c_int * ngroups),
                    ("has", ctypes.c_ubyte * nkeys), ("value", c_double * nkeys),
                    ("ntop", c_int), ("top", POINTER(c_double))]
    return MeasureRecord


def _real_structs(c_real):
    """The mirrored structs that hold la_real pointers: one set per
    precision."""
    PR = POINTER(c_real)

    class Batch(Structure):
        _fields_ = [("d", c_int), ("n", c_int), ("count", c_int),
                    ("z", PR), ("y", PR), ("owned", c_void_p)]

    class TrainRecord(Structure):
        _fields_ = [("step", c_long), ("loss", c_double), ("grad_norm", c_double),
                    ("clipped_norm", c_double), ("lr_scale", c_double),
                    ("update_norm", c_double), ("nparams", c_int),
                    ("grad", PR), ("update", PR), ("theta", PR),
                    ("has_eval", c_int), ("eval_loss", c_double),
                    ("skipped", c_int)]

    class EigOut(Structure):
        _fields_ = [("values", POINTER(c_double)), ("residuals", POINTER(c_double)),
                    ("vectors", PR), ("matvecs", c_int), ("converged", c_int),
                    ("restarts", c_int)]

    train_callback = CFUNCTYPE(c_int, c_void_p, POINTER(TrainRecord))
    matvec = CFUNCTYPE(c_int, c_void_p, c_int, PR, PR)

    class RunEnv(Structure):
        _fields_ = [("callback", train_callback), ("user", c_void_p),
                    ("kernels", c_void_p), ("parallel", c_void_p),
                    ("batches", POINTER(Batch)), ("nbatches", c_long),
                    ("theta0", PR), ("diag", POINTER(Batch)), ("ndiag", c_long)]

    return Batch, TrainRecord, EigOut, RunEnv, train_callback, matvec


class Library:
    """One loaded library: its functions (attributes named as in C), its
    precision and real type, its mirrored structs, its status table."""

    def __init__(self, path):
        self.path = path
        self.dll = ctypes.CDLL(path)
        try:
            self.dll.la_sizeof.restype = c_size_t
            self.dll.la_sizeof.argtypes = [c_int]
        except AttributeError:
            raise status_error("LA_EUNSUPPORTED", path, "the library has no la_sizeof: "
                               "it was built from an older linattn.h")
        real = self.dll.la_sizeof(TYPE["real"])
        if real not in (4, 8):
            raise status_error("LA_EUNSUPPORTED", path, "la_real of %d bytes" % real)
        self.precision = "double" if real == 8 else "float"
        self.c_real = c_double if real == 8 else c_float
        self.dtype = np.dtype(np.float64 if real == 8 else np.float32)
        (self.Batch, self.TrainRecord, self.EigOut, self.RunEnv,
         self.train_callback, self.matvec) = _real_structs(self.c_real)
        self._declare()
        self.statuses = self._status_table()
        self.measure_keys, self.measure_groups = self._measure_table()
        self.MeasureRecord = _measure_record(len(self.measure_keys),
                                             len(self.measure_groups))
        self._check_mirrors()
        self.record_fields = self._record_fields()
        self.version = self.dll.la_version_string().decode()
        self.backend = self.dll.la_backend_name().decode()

    def _status_table(self):
        """{code: (name, message)}: la_status_name over 0, -1, ... until it
        is "" (the header promises no gap)."""
        table, code = {}, 0
        while True:
            name = self.la_status_name(code).decode()
            if not name:
                return table
            table[code] = (name, self.la_status_str(code).decode())
            code -= 1

    # ---------------------------------------------------------- signatures
    def _declare(self):
        R = POINTER(self.c_real)
        D = POINTER(c_double)
        P = c_void_p
        F = POINTER(RunField)
        I = POINTER(c_int)
        Z = POINTER(c_size_t)
        B = POINTER(self.Batch)
        sig = {
            "la_version_string": (c_char_p, []),
            "la_backend_name": (c_char_p, []),
            "la_status_str": (c_char_p, [c_int]),
            "la_status_name": (c_char_p, [c_int]),
            "la_member_at": (c_size_t, [c_int, c_int, POINTER(c_char_p)]),
            "la_train_record_field_at": (POINTER(RecordField), [c_int]),
            "la_measure_key_at": (POINTER(MeasureKey), [c_int]),
            "la_measure_key_find": (c_int, [c_char_p, I]),
            "la_measure_group": (c_char_p, [c_int]),
            "la_run_measure_groups": (c_uint, [P, POINTER(MeasureConfig)]),
            "la_run_measure_work_bytes": (c_size_t, [P, POINTER(MeasureConfig)]),
            "la_run_measure": (c_int, [P, POINTER(MeasureConfig), c_long, R, R, P, P,
                                       c_size_t]),
            "la_measure_json": (c_size_t, [P, ctypes.c_char_p, c_size_t]),
            "la_cpu_count": (c_int, []),
            "la_pool_create": (c_int, [POINTER(c_void_p), c_int]),
            "la_pool_destroy": (None, [c_void_p]),
            "la_pool_parallel": (c_void_p, [c_void_p]),
            # the run description
            "la_run_field_count": (c_int, []),
            "la_run_field_at": (F, [c_int]),
            "la_run_field_find": (F, [c_char_p]),
            "la_run_field_name": (c_char_p, [F, c_int]),
            "la_run_field_get": (c_int, [P, F, D]),
            "la_run_field_set": (c_int, [P, F, c_double]),
            "la_run_field_unset": (c_int, [P, F]),
            "la_run_field_copy": (c_int, [P, P, F]),
            "la_run_field_given": (c_int, [P, F]),
            "la_run_explain": (c_int, [P, POINTER(F), c_char_p, c_size_t]),
            "la_run_field_help": (c_int, [F, c_char_p, c_size_t]),
            "la_run_preset_name": (c_char_p, [c_int, POINTER(c_char_p)]),
            "la_run_preset": (c_int, [P, c_char_p, c_char_p]),
            "la_run_resolve": (c_int, [P, P]),
            "la_run_diff": (F, [P, P, c_uint]),
            # runs
            "la_run_create": (c_int, [P, P, POINTER(self.RunEnv)]),
            "la_run_destroy": (None, [P]),
            "la_run_trainer": (P, [P]),
            "la_run_model": (P, [P]),
            "la_run_data": (P, [P]),
            "la_run_theta": (R, [P, I]),
            "la_run_step": (c_long, [P]),
            "la_run_eval_batch": (B, [P]),
            "la_run_diag_batch": (c_int, [P, c_int, B]),
            "la_batch_put_tokens": (c_int, [B, D, D]),
            "la_batch_get_tokens": (c_int, [B, D, D]),
            "la_run_resume_mem": (c_int, [P, P, c_size_t, POINTER(F)]),
            "la_trainer_run": (c_int, [P, c_long]),
            "la_trainer_eval": (c_int, [P, D]),
            "la_checkpoint_bytes": (c_int, [P, Z]),
            "la_checkpoint_save_mem": (c_int, [P, P, c_size_t, Z]),
            "la_checkpoint_save": (c_int, [P, c_char_p]),
            "la_checkpoint_run": (c_int, [P, c_size_t, P, POINTER(c_long)]),
            # prompts
            "la_rng_seed": (None, [POINTER(Rng), c_uint64, c_uint64]),
            "la_rng_uniform": (c_double, [POINTER(Rng)]),
            "la_rng_normal": (c_double, [POINTER(Rng)]),
            "la_batch_create": (c_int, [B, c_int, c_int, c_int]),
            "la_batch_destroy": (None, [B]),
            "la_pack": (c_int, [c_int, c_int, c_int, R, R]),
            "la_unpack": (c_int, [c_int, c_int, c_int, R, R]),
            "la_data_sample": (c_int, [P, POINTER(Rng), B]),
            # the model
            "la_model_init_params": (c_int, [P, POINTER(Rng), R]),
            "la_model_blocks": (c_int, [P, I, I, c_int]),
            "la_model_work_bytes": (c_size_t, [P]),
            "la_model_block_info": (c_int, [P, c_int, POINTER(c_char_p), I, I, I, I]),
            "la_model_loss": (c_int, [P, R, B, D, R, P, c_size_t]),
            "la_model_grad": (c_int, [P, R, B, D, R, P, c_size_t]),
            "la_model_hvp": (c_int, [P, R, B, R, D, R, R, P, c_size_t]),
            # diagnostics
            "la_hessian_dense": (c_int, [P, R, B, D, P, c_size_t]),
            "la_hessian_diag": (c_int, [P, R, B, D, P, c_size_t]),
            "la_hessian_blocks": (c_int, [P, R, B, D, P, c_size_t]),
            "la_spectra_js": (c_int, [c_int, I, D, c_int, D, D, D]),
            "la_hessian_eigs": (c_int, [P, R, B, c_int, c_double, POINTER(LanczosConfig),
                                        POINTER(self.EigOut), P, c_size_t]),
            "la_robust_cond": (c_int, [P, R, B, POINTER(RcondConfig), POINTER(Rcond),
                                       P, c_size_t]),
            "la_dir_smoothness": (c_int, [P, R, R, B, D, D, P, c_size_t]),
            "la_grad_noise": (c_int, [P, R, P, POINTER(Rng), POINTER(GradNoiseConfig),
                                      D, D, P, c_size_t]),
            "la_noise_summary": (c_int, [c_int, D, POINTER(NoiseConfig),
                                         POINTER(NoiseStats), D, D, D, D, P, c_size_t]),
            "la_lanczos": (c_int, [c_int, self.matvec, P, c_int, c_double,
                                   POINTER(LanczosConfig), POINTER(self.EigOut), P,
                                   c_size_t]),
            "la_slq": (c_int, [c_int, self.matvec, P, POINTER(SlqConfig), D, D, P,
                               c_size_t]),
            "la_rcond_diag": (c_int, [c_int, D, c_int, D, P, c_size_t]),
            "la_rcond_spectrum": (c_int, [c_int, D, D, D, P, c_size_t]),
            "la_weighted_median": (c_int, [c_int, D, D, D, P, c_size_t]),
        }
        for name, (res, args) in sig.items():
            fn = getattr(self.dll, name)
            fn.restype = res
            fn.argtypes = args
            setattr(self, name, fn)

    def mirrors(self):
        """{LA_TYPE_* name: the package's mirror of that type}."""
        return {"rng": Rng, "run_field": RunField, "batch": self.Batch,
                "train_record": self.TrainRecord, "eig_out": self.EigOut,
                "lanczos_config": LanczosConfig, "slq_config": SlqConfig,
                "rcond_config": RcondConfig, "rcond": Rcond,
                "grad_noise_config": GradNoiseConfig, "noise_config": NoiseConfig,
                "noise_stats": NoiseStats, "run_env": self.RunEnv,
                "measure_config": MeasureConfig, "measure_record": self.MeasureRecord}

    def members(self, type_name):
        """[(name, offset)] of a mirrored type, as la_member_at lists them."""
        out, name = [], c_char_p()
        while True:
            off = self.la_member_at(TYPE[type_name], len(out), byref(name))
            if name.value is None:
                return out
            out.append((name.value.decode(), off))

    def _check_mirrors(self):
        """Every mirror member by member, name and offset, and its size: a
        reorder of equal size is an error at load, not a wrong number."""
        for type_name, cls in self.mirrors().items():
            have = self.members(type_name) + [("sizeof", self.dll.la_sizeof(TYPE[type_name]))]
            mine = [(n, getattr(cls, n).offset) for n, _ in cls._fields_] + \
                [("sizeof", ctypes.sizeof(cls))]
            if have != mine:
                raise status_error("LA_EUNSUPPORTED", self.path, "the library's %s is %s, "
                                   "the package's mirror of it %s: the package and the "
                                   "header are of different versions"
                                   % (type_name, have, mine))

    def _measure_table(self):
        """The measurement table (la_measure_key_at): [(key, group name, kind
        name, indexed)], and the groups' names (la_measure_group)."""
        groups = []
        while self.la_measure_group(len(groups)) is not None:
            groups.append(self.la_measure_group(len(groups)).decode())
        kinds, keys = _header.field_kinds(), []
        while True:
            k = self.la_measure_key_at(len(keys))
            if not k:
                return keys, tuple(groups)
            k = k.contents
            keys.append((k.key.decode(), groups[k.group], kinds[k.kind], bool(k.indexed)))

    def _record_fields(self):
        """[(key, kind name, offset)] of la_train_record_field_at, each held
        to the record's member of that name."""
        kinds, members = _header.field_kinds(), dict(self.members("train_record"))
        out = []
        while True:
            f = self.la_train_record_field_at(len(out))
            if not f:
                return out
            key, off = f.contents.key.decode(), f.contents.offset
            if members.get(key) != off:
                raise status_error("LA_EUNSUPPORTED", self.path, "record field %s at %d, "
                                   "the record's member at %s" % (key, off, members.get(key)))
            out.append((key, kinds[f.contents.kind], off))

    # ---------------------------------------------------------- helpers
    def error(self, status, where=None, detail=None):
        name, message = self.statuses.get(status, ("status %d" % status, "not a status"))
        return make_error(status, name, message, where, detail)

    def check(self, status, where=None, detail=None):
        """Raises LinattnError unless status is LA_OK."""
        if status != 0:
            raise self.error(status, where, detail)

    def opaque(self, type_code):
        """A zeroed block of la_sizeof(type) bytes, aligned for any member."""
        size = self.dll.la_sizeof(type_code)
        return (c_uint64 * ((size + 7) // 8))()

    def reals(self, x, n=None, what="vector"):
        """x as a contiguous la_real array (a copy when its type differs):
        real numbers only (a complex, bool or text array is refused, not
        cast), a vector of n."""
        a = np.asarray(x)
        if a.dtype.kind not in "fiu":
            raise status_error("LA_ERANGE", what, "%s: real numbers expected, not %s"
                               % (what, a.dtype))
        a = np.ascontiguousarray(a, dtype=self.dtype)
        if a.ndim != 1 or (n is not None and a.shape[0] != n):
            raise status_error("LA_ESHAPE", what, "%s: a vector of %s numbers expected, "
                               "not shape %s" % (what, n if n is not None else "some",
                                                 a.shape))
        return a

    def ptr(self, a):
        return a.ctypes.data_as(POINTER(self.c_real))


def dptr(a):
    return a.ctypes.data_as(POINTER(c_double))


_libs = {}
_lock = threading.Lock()


def default_precision():
    """LINATTN_PRECISION, else float: the precision of the `linattn`
    command, so that a run here gives the command's numbers."""
    return os.environ.get("LINATTN_PRECISION", "float")


def library(precision=None):
    """The loaded library of a precision ('float' or 'double'; None: the
    default), found or built as linattn._build says."""
    precision = precision or default_precision()
    with _lock:
        lib = _libs.get(precision)
        if lib is None:
            lib = Library(_build.find(precision))
            if lib.precision != precision:
                raise status_error("LA_EUNSUPPORTED", lib.path, "a %s library where %s "
                                   "was asked for" % (lib.precision, precision))
            _libs[precision] = lib
    return lib


def loaded_statuses():
    """The status table of a library already loaded, or None."""
    for lib in list(_libs.values()):
        return lib.statuses
    return None


def lib_of(precision_or_lib):
    if isinstance(precision_or_lib, Library):
        return precision_or_lib
    return library(precision_or_lib)


__all__ = ["Library", "library", "default_precision"]
