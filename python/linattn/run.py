"""A run (la_run): data, model and trainer made from one description,
trained with a Python callback, measured along the way as `linattn train`
measures, saved, resumed and pickled."""
import ctypes
import math
import warnings
import weakref
from ctypes import POINTER, byref, c_double, c_size_t, c_void_p

import numpy as np

from . import _args, _files, _lib, _progress
from ._busy import Busy, exclusive
from ._errors import status_error
from .config import RunConfig, config_in
from .diag import LinattnWarning, noise_summary
from .model import Batch, Model, Rng

# The fields a program measures along a run that a Python run measures
# (the table's others outside the run's identity would be ignored: refused).
_MEASURED = ("steps", "log_every", "diag_every", "smooth_every", "diag_batch", "diag_seed",
             "diag_batches", "median", "blocks_every")
# What is measured along the run, at diag_every, smooth_every and blocks_every steps
# (top, noise: the Run's), is the header's la_run_measure, under its keys
# (Library.measure_keys, LA_MEASURE_KEYS): the columns `linattn train`
# writes, by the same function.


def cpu_count(precision=None):
    """The CPUs this process may use (la_cpu_count): the affinity mask,
    bounded by a cgroup CPU quota, SLURM_CPUS_PER_TASK and OMP_NUM_THREADS.
    A run's default number of threads."""
    return _lib.lib_of(precision).la_cpu_count()


class Record:
    """What the callback of Run.train sees after a step: the step's row of
    the history (step, loss, eval_loss, grad_norm, ..., and the
    measurements taken at this step; NaN where none), and read-only numpy
    views theta, grad and update, valid during the call only: keep a copy
    (rec.theta.copy()), not the view."""

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


def _destroy(lib, run, pool):
    """The run, then the pool its threads come from."""
    lib.la_run_destroy(run)
    if pool:
        lib.la_pool_destroy(pool)


def _from_allparam(theta0, cfg):
    """Paper A's code's allparam (L, H, 2, d, d) of a sparse model as
    linattn's packing, as `linattn train --init-theta` reads it: B = P, A =
    Q^T (that code scores z_tok^T Q z_key, linattn z_key^T A z_tok); None
    for any other shape."""
    L, H, d = cfg["depth"], max(cfg["heads"], 1), cfg["d"]
    if theta0.shape != (L, H, 2, d, d) or cfg["param"] != "sparse" or cfg["qk_rank"] or \
            cfg["front"]:
        return None
    m = theta0.copy()
    m[:, :, 1] = np.swapaxes(m[:, :, 1], 2, 3)
    return m.reshape(-1)


class _Given:
    """Another program's batches (step t's batch, as data "given"), initial
    theta and Hessian batches (the measurements' k-th batch), held for the
    run's life (la_run_env points at them)."""

    def __init__(self, lib, batches, theta0, hessian_batches=None):
        self.lib, self.batches, self.theta0, self.diag = lib, None, None, None
        self.any = batches is not None or theta0 is not None or hessian_batches is not None
        if batches is not None:
            self.batches, self.array = self._stack(batches, "batches")
            if not any(np.any(b.y != 0) for b in self.batches):
                raise ValueError("batches: every target y_q is 0; each Batch should "
                                 "hold its prompts' targets (paper A's code returns Z "
                                 "with the query's label zeroed and the targets beside "
                                 "it: Batch.from_tokens(Z, y))")
        if hessian_batches is not None:
            self.diag, self.diag_array = self._stack(hessian_batches, "hessian_batches")
        if theta0 is not None:  # real numbers only, as every theta (lib.reals)
            lib.reals(np.reshape(np.asarray(theta0), -1), None, "theta0")
            self.theta0 = np.asarray(theta0, dtype=np.float64)

    def _stack(self, batches, what):
        lib = self.lib
        bs = [batches] if isinstance(batches, Batch) else list(batches)
        if not bs or not all(isinstance(b, Batch) and b._lib is lib for b in bs):
            raise ValueError("%s: a non-empty sequence of %s Batch objects "
                             "(Batch.from_tokens reads paper A's code's layout)"
                             % (what, lib.precision))
        shapes = {(b.d, b.n, b.count) for b in bs}
        if len(shapes) != 1:
            raise ValueError("%s: every batch of one d, n and count, not %s"
                             % (what, sorted(shapes)))
        return bs, (lib.Batch * len(bs))(*[b._b for b in bs])

    def fill(self, cfg):
        """The fields the batches decide (d, n, batch, data, steps where not
        given; the Hessian batch's prompts and count), as `linattn train
        --data-file --diag-file` takes them."""
        if self.batches is not None:
            b = self.batches[0]
            for key, v in (("d", b.d), ("n", b.n), ("batch", b.count), ("data", "given")):
                if not cfg.given(key):
                    cfg[key] = v
            if not cfg.given("steps"):
                cfg["steps"] = len(self.batches)
        if self.diag is not None:
            b = self.diag[0]
            if not cfg.given("diag_batch"):
                cfg["diag_batch"] = b.count
            if not cfg.given("diag_batches"):
                cfg["diag_batches"] = len(self.diag)

    def check_steps(self, cfg, start=0, steps=None):
        """A batch for each step from start: steps more (None: up to the
        run's steps field), refused up front as `linattn train --data-file`
        refuses them, naming the batch count."""
        if self.batches is None:
            return
        end = cfg["steps"] if steps is None else start + steps
        if end > len(self.batches):
            raise status_error("LA_ERANGE", "Run", "steps %d: %d batch%s given (batches=, one "
                               "a step)" % (end, len(self.batches),
                                            "" if len(self.batches) == 1 else "es"))

    def check(self, cfg):
        """The Hessian batches of the run's d, n and diag_batch, as many as
        it measures on; theta0 linattn's packing of exactly the run's
        parameters (the library reads that many) or paper A's code's
        allparam, as `linattn train --init-theta` takes it: counted on a run
        of the same description built without it."""
        if self.diag is not None:
            b = self.diag[0]
            if (b.d, b.n, b.count) != (cfg["d"], cfg["n"], cfg["diag_batch"]):
                raise ValueError("hessian_batches: prompts of d = %d, n = %d, %d a batch; "
                                 "the run measures on d = %d, n = %d, diag_batch = %d"
                                 % (b.d, b.n, b.count, cfg["d"], cfg["n"],
                                    cfg["diag_batch"]))
            if len(self.diag) < cfg["diag_batches"]:
                raise ValueError("hessian_batches: %d batches, the run measures R on "
                                 "diag_batches = %d" % (len(self.diag), cfg["diag_batches"]))
        if self.theta0 is None:
            return
        lib = self.lib
        probe = lib.opaque(_lib.TYPE["run"])
        env = lib.RunEnv(lib.train_callback(), None, None, None)
        self.into(env)
        env.theta0 = None
        lib.check(lib.la_run_create(probe, cfg._buf, byref(env)), "la_run_create",
                  cfg.explain())
        n = ctypes.c_int()
        lib.la_run_theta(probe, byref(n))
        lib.la_run_destroy(probe)
        t = self.theta0
        if t.ndim == 1 and t.size == n.value:
            flat = t
        else:
            flat = _from_allparam(t, cfg) if t.ndim == 5 else None
            if flat is None:
                raise ValueError("theta0: shape %s is neither the run's theta (%d values) "
                                 "nor paper A's code's allparam (%d, %d, 2, %d, %d) of a "
                                 "sparse model" % (t.shape, n.value, cfg["depth"],
                                                   max(cfg["heads"], 1), cfg["d"], cfg["d"]))
        if not np.all(np.isfinite(flat)):
            raise ValueError("theta0: not finite")
        self.theta0 = np.ascontiguousarray(flat, dtype=lib.dtype)

    def into(self, env):
        lib = self.lib
        if self.batches is not None:
            env.batches = ctypes.cast(self.array, ctypes.POINTER(lib.Batch))
            env.nbatches = len(self.batches)
        if self.diag is not None:
            env.diag = ctypes.cast(self.diag_array, ctypes.POINTER(lib.Batch))
            env.ndiag = len(self.diag)
        if self.theta0 is not None and self.theta0.ndim == 1 and \
                self.theta0.dtype == lib.dtype:
            env.theta0 = lib.ptr(self.theta0)


class Run:
    """One run of the testbed: Run(config) with a RunConfig or a preset's
    name, and fields to give (Run("1", opt="sgd", steps=2000); a field
    given None is not given).

        run = Run("1", steps=1000, diag_every=100)
        run.train(every=100, callback=lambda r: print(r.step, r.eval_loss))
        run.history            # {key: array}: pandas.DataFrame(run.history)
        run.matrices()         # every layer's matrices by name
        run.hessian_eigs(k=5)  # at the current theta, on the diagnostics' batch

    precision: 'float' (the `linattn` command's, the default) or 'double'
    (LINATTN_PRECISION sets the default). threads: the threads of each
    batch (default cpu_count(): the CPUs this process may use); the results
    are the same bits for any number. top, noise: measured beside the
    command's at every diag_every step, the top `top` Hessian eigenvalues
    (top_1, ...) and the gradient noise of `noise` minibatches of the run's
    batch (noise_mean, ... as la_noise_stats names them).

    batches, theta0, hessian_batches: another program's prompts (a sequence
    of Batch, one a step; Batch.from_tokens reads paper A's code's token
    layout), data "given"; its initial theta (linattn's packing, or paper
    A's code's allparam (L, H, 2, d, d) of a sparse model, B = P and A =
    Q^T); and the batches the Hessian is measured on (diag_batch(k) is the
    k-th: R, the spectrum, the smoothness along the run), as `linattn train
    --data-file --init-theta --diag-file` takes them.

    A run pickles (as its checkpoint's bytes and its history), so process
    pools, Dask and Ray can carry it; one run is used by one thread at a
    time (a call from a second thread while one is under way, or train
    called from its own callback, is refused: LinattnError BUSY), and runs
    in several threads train at once (ctypes lets go of the GIL in every
    call)."""

    def __init__(self, config="1", precision=None, threads=None, top=0, noise=0,
                 batches=None, theta0=None, hessian_batches=None, **fields):
        if isinstance(config, RunConfig):
            lib = _lib.lib_of(precision) if precision else config._lib
            cfg = config_in(lib, config).update(fields)
        else:
            opt = fields.pop("opt", None)
            cfg = RunConfig(config, opt=opt, precision=precision, **fields)
        given = _Given(cfg._lib, batches, theta0, hessian_batches)
        given.fill(cfg)
        self._make(cfg.resolve(), threads, top, noise, given)

    def _make(self, cfg, threads, top, noise, given=None):
        lib = cfg._lib
        self._lib = lib
        self._busy = Busy()
        self.config = cfg
        self._refuse_unmeasured()
        self._top = _args.integer(top, "top", 0, 1 << 20)
        self._noise = _args.integer(noise, "noise", 0, _args.C_INT[1])
        self._threads_given = threads
        self._r = lib.opaque(_lib.TYPE["run"])
        self._pool = self._make_pool(threads)
        self._cb = lib.train_callback(self._on_step)
        self._user, self._every, self._exc, self._prog = None, 1, None, None
        self._diag = self._prev = None
        env = lib.RunEnv(self._cb, None, None, lib.la_pool_parallel(self._pool)
                         if self._pool else None)
        self._given = given if given is not None and given.any else None
        if self._given is not None:
            self._given.check_steps(cfg)
            self._given.check(cfg)
            self._given.into(env)
        st = lib.la_run_create(self._r, cfg._buf, byref(env))
        if st:
            if self._pool:
                lib.la_pool_destroy(self._pool)
            raise lib.error(st, "la_run_create", cfg.explain())
        weakref.finalize(self, _destroy, lib, self._r, self._pool)
        self._tr = lib.la_run_trainer(self._r)
        n = ctypes.c_int()
        self._theta_ptr = lib.la_run_theta(self._r, byref(n))
        self.nparams = n.value
        self.model = Model(self)
        self._mcfg = _lib.MeasureConfig(self._top, self._noise)
        bytes_ = lib.la_run_measure_work_bytes(self._r, byref(self._mcfg))
        if not bytes_:
            raise status_error("LA_EOVERFLOW", "la_run_measure_work_bytes",
                               "the measurements' workspace")
        self._mwork = ctypes.create_string_buffer(bytes_)
        self._hist = {k: [] for k in self.history_keys()}

    def _make_pool(self, threads):
        lib = self._lib
        n = lib.la_cpu_count() if threads is None else \
            _args.integer(threads, "threads", 1, _lib._header.define("LA_MAX_WORKERS"))
        self.threads = n
        if n <= 1:
            return None
        pool = c_void_p()
        lib.check(lib.la_pool_create(byref(pool), n), "la_pool_create", "%d threads" % n)
        return pool

    def _refuse_unmeasured(self):
        """A field of what is measured along a run that Python does not
        measure is refused (LA_EUNSUPPORTED), not ignored."""
        cfg = self.config
        for f in cfg._table.fields:
            if not (f.identity or f.selector) and f.key not in _MEASURED and cfg.given(f.key) and \
                    cfg.raw(f.key) != 0:
                raise status_error("LA_EUNSUPPORTED", "Run", "%s %s: a Python run does "
                                   "not measure it" % (f.key, cfg[f.key]))

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

    @exclusive()
    def set_theta(self, theta):
        """Replaces the parameters (the optimizer's state is kept)."""
        src = self._lib.reals(theta, self.nparams, "theta")
        _view(self._lib, self._theta_ptr, self.nparams, self, writeable=True)[:] = src

    def matrices(self, theta=None):
        """Model.matrices at the run's theta (or theta)."""
        return self.model.matrices(self.theta if theta is None else theta)

    @exclusive()
    def eval_loss(self):
        """The loss on the run's evaluation batch at the current theta."""
        v = c_double()
        self._lib.check(self._lib.la_trainer_eval(self._tr, byref(v)), "la_trainer_eval")
        return v.value

    @property
    def eval_batch(self):
        """The run's evaluation batch (eval_seed's evaluation stream)."""
        return Batch._view(self._lib, self._lib.la_run_eval_batch(self._r), self)

    # ------------------------------------------------------------ history
    def history_keys(self):
        """The history's columns: la_train_record_field_at's keys, then the
        rows of the measurement table (la_measure_key_at, top as top_1 ..
        top_k) of the groups this run measures."""
        lib = self._lib
        keys = [k for k, _, _ in lib.record_fields]
        groups = lib.la_run_measure_groups(self._r, byref(self._mcfg))
        for key, group, _, indexed in lib.measure_keys:
            if not groups >> lib.measure_groups.index(group) & 1:
                continue
            if indexed:
                keys += ["%s_%d" % (key, i + 1) for i in range(min(self._top, self.nparams))]
            else:
                keys.append(key)
        return keys

    @property
    def history(self):
        """Every step trained here, one numpy array per key (history_keys());
        step 0 holds what `linattn train` writes at the start (the
        evaluation loss, the measurements). NaN where a value was not
        taken at a step: eval_loss where the run did not evaluate, the
        measurements off their steps."""
        return {k: np.array(v, dtype=np.int64 if k == "step" else np.float64)
                for k, v in self._hist.items()}

    def _row(self, values):
        """Appends a row: values by key, NaN for the others."""
        for k, col in self._hist.items():
            col.append(values.get(k, math.nan))

    # ------------------------------------------------------------ measuring
    def _diag_batch(self):
        if self._diag is None:
            self._diag = self.diag_batch()  # fixed: drawn once
        return self._diag

    def _measure(self, step, theta, prev=None):
        """What la_run_measure measures at this step (`linattn train`'s,
        and top, noise): {key: value}; prev is theta before a step that
        moved it. A diagnostic that fails leaves NaN and a warning (the
        command writes its <group>_error): the run goes on."""
        lib = self._lib
        rec = lib.MeasureRecord()
        lib.check(lib.la_run_measure(self._r, byref(self._mcfg), step, theta,
                                     prev, byref(rec), self._mwork, len(self._mwork)),
                  "la_run_measure")
        out = {}
        for i, (key, group, _, indexed) in enumerate(lib.measure_keys):
            g = lib.measure_groups.index(group)
            if rec.status[g]:
                continue
            if indexed and rec.has[i]:
                out.update(("%s_%d" % (key, j + 1), rec.top[j]) for j in range(rec.ntop))
            elif rec.has[i]:
                out[key] = rec.value[i]
        for g, name in enumerate(lib.measure_groups):
            if rec.due >> g & 1 and rec.status[g]:
                warnings.warn("step %d: %s: %s" % (step, name, lib.error(rec.status[g])),
                              LinattnWarning, stacklevel=2)
        return out

    # ------------------------------------------------------------ training
    def _on_step(self, user, recp):
        try:
            rec = recp.contents
            base = ctypes.addressof(rec)
            row = {}
            for key, kind, off in self._lib.record_fields:
                ct = ctypes.c_long if kind == "long" else c_double
                row[key] = ct.from_address(base + off).value
            if not rec.has_eval:
                row["eval_loss"] = math.nan
            n = rec.nparams
            theta = _view(self._lib, rec.theta, n, None)
            moved = self._prev is not None and rec.update_norm > 0
            row.update(self._measure(rec.step, rec.theta,
                                     self._lib.ptr(self._prev) if moved else None))
            self._row(row)
            if self._prev is not None:
                self._prev[:] = theta
            if self._prog is not None:
                self._prog.step(rec.step)
            if self._user is not None and rec.step % self._every == 0:
                r = Record()
                r.__dict__.update(row)
                r.theta = theta
                r.grad = _view(self._lib, rec.grad, n, None)
                r.update = _view(self._lib, rec.update, n, None)
                if self._user(r):
                    return 1
            return 0
        except BaseException as e:  # raised again once the library returns
            self._exc = e
            return 1

    def _start(self):
        """Step 0's row, as `linattn train` writes it at the start."""
        row = {"step": 0}
        if self.config["eval_every"] > 0:
            row["eval_loss"] = self.eval_loss()
        row.update(self._measure(0, self._theta_ptr))
        self._row(row)

    @exclusive(train=True)
    def train(self, steps=None, every=None, callback=None, progress=None):
        """Trains `steps` more steps (None: up to the run's `steps` field).
        callback(record), if given, is called every `every` steps (default:
        the run's log_every) with a Record; returning True stops the run.
        An exception in it (Ctrl-C included) stops the run and is raised
        here. progress: a tqdm bar (or a line of text where tqdm is not
        installed) on stderr; None shows it on a terminal or in a notebook
        only. LinattnError LA_EDIVERGED when a step met a NaN or Inf: the
        run keeps the last finite state. Returns the run."""
        lib = self._lib
        start = self.step
        if steps is None:
            n = max(0, self.config["steps"] - start)
        else:
            n = _args.integer(steps, "steps", 0, _args.C_LONG[1] - start)
        self._every = self.config["log_every"] if every is None else \
            _args.integer(every, "every", 1, _args.C_LONG[1])
        if self._given is not None:
            self._given.check_steps(self.config, start, n)
        if callback is not None and not callable(callback):
            raise TypeError("callback: a function of one Record, not %r" % (callback,))
        if start == 0 and not self._hist["step"]:
            self._start()
        if self.config["smooth_every"] > 0 and self._prev is None:
            self._prev = self.theta.copy()
        self._user, self._exc = callback, None
        self._prog = _progress.Progress(start, start + n) \
            if _progress.wanted(progress) and n > 0 else None
        try:
            st = lib.la_trainer_run(self._tr, n)
        finally:
            self._user = None
            if self._prog is not None:
                self._prog.close()
                self._prog = None
        if self._exc is not None:
            e, self._exc = self._exc, None
            raise e
        if st:
            raise lib.error(st, "la_trainer_run", "the run stopped at step %d" % self.step)
        return self

    # ------------------------------------------------------------ prompts
    @exclusive()
    def sample(self, count, seed=None, stream=0, rng=None):
        """count prompts from the run's data setting: from rng (an Rng,
        which advances), else from stream `stream` of `seed` (default the
        run's seed: stream t is the training batch of step t of a fresh-data
        run)."""
        count = _args.integer(count, "count", 1, _args.C_INT[1])
        if rng is None:
            rng = Rng(self.config["seed"] if seed is None else seed, stream)
        b = Batch._empty(self._lib, self.config["d"], self.config["n"], count)
        self._lib.check(self._lib.la_data_sample(self._lib.la_run_data(self._r),
                                                 byref(rng._s), byref(b._b)),
                        "la_data_sample")
        return b

    @exclusive()
    def diag_batch(self, count=None, k=0):
        """The k-th batch of the measurements along the run
        (la_run_diag_batch): what `linattn curvature` and `train
        --diag-every` measure on, diag_batch prompts (or count) from
        diag_seed's stream LA_STREAM_DIAG - k, or the run's k-th
        hessian_batches where it was given them; k = 0 is the fixed one."""
        count = _args.integer(count or self.config["diag_batch"], "count", 1, _args.C_INT[1])
        k = _args.integer(k, "k", 0, _args.C_INT[1])
        b = Batch._empty(self._lib, self.config["d"], self.config["n"], count)
        self._lib.check(self._lib.la_run_diag_batch(self._r, k, byref(b._b)),
                        "la_run_diag_batch")
        return b

    # ------------------------------------------------------------ measurements
    def _at(self, theta, batch):
        return (self.theta if theta is None else theta,
                self._diag_batch() if batch is None else batch)

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

    @exclusive()
    def hessian_blocks(self, batch=None, theta=None, bins=100):
        """Model.hessian_blocks at the run's theta, on the diagnostics'
        batch: each matrix's Hessian block's eigenvalues and the
        heterogeneity of their spectra."""
        theta, batch = self._at(theta, batch)
        return self.model.hessian_blocks(theta, batch, bins)

    @exclusive()
    def grad_noise(self, minibatch=0, true_batch=0, samples=10000, bins=100,
                   theta=None, rng=None):
        """Paper A's gradient noise at the run's theta (la_grad_noise): the
        'true' gradient on true_batch fresh prompts, then `samples`
        minibatch gradients; minibatch and true_batch 0 are the header's
        defaults (1000, 100 minibatches). The default rng is the one
        `linattn noise` draws from, so the samples are its samples."""
        lib = self._lib
        th = lib.reals(self.theta if theta is None else theta, self.nparams, "theta")
        if rng is None:
            rng = Rng(self.config["seed"], _lib.LA_STREAM_EVAL - 3)
        cfg = _lib.GradNoiseConfig(_args.integer(minibatch, "minibatch", 0),
                                   _args.integer(true_batch, "true_batch", 0),
                                   _args.integer(samples, "samples", 0))
        norms = np.empty(cfg.samples if cfg.samples > 0 else 10000)
        tg = c_double()
        lib.check(lib.la_grad_noise(lib.la_run_model(self._r), lib.ptr(th),
                                    lib.la_run_data(self._r), byref(rng._s), byref(cfg),
                                    _lib.dptr(norms), byref(tg), None, 0),
                  "la_grad_noise")
        return GradNoise(norms, tg.value, noise_summary(norms, bins, precision=lib))

    # ------------------------------------------------------------ checkpoints
    @exclusive()
    def save(self, path):
        """Writes a checkpoint (la_checkpoint_save): the description, theta,
        the optimizer's state, the step and the data stream."""
        import os
        self._lib.check(self._lib.la_checkpoint_save(self._tr, os.fsencode(path)),
                        "la_checkpoint_save", os.fspath(path))

    @exclusive()
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
    def resume(cls, checkpoint, precision=None, threads=None, top=0, noise=0, **fields):
        """The run saved in a checkpoint (a path, read as the C reader
        reads one, or its bytes), continued bit for bit. Fields that are not
        part of the run's identity (steps, the measurements) may be given;
        another identity is LA_ESHAPE."""
        lib = _lib.lib_of(precision)
        if isinstance(checkpoint, (bytes, bytearray, memoryview)):
            data, name = bytes(checkpoint), "checkpoint"
        else:
            data, name = _files.read_regular(checkpoint), str(checkpoint)
        cfg = RunConfig(None, precision=lib)
        lib.check(lib.la_checkpoint_run(data, len(data), cfg._buf, None),
                  "la_checkpoint_run", name)
        cfg.update(fields)
        self = cls.__new__(cls)
        self._make(cfg.resolve(), threads, top, noise)
        differs = POINTER(_lib.RunField)()
        st = lib.la_run_resume_mem(self._r, data, len(data), byref(differs))
        if st:
            why = name
            if differs:
                why += ": its run has another %s" % differs.contents.key.decode()
            raise lib.error(st, "la_run_resume_mem", why)
        return self

    def __reduce__(self):
        """Pickled as its checkpoint's bytes and its history: the run that
        comes back continues bit for bit (with the threads it was given,
        else the CPUs of the process it lands in). A run on given batches,
        theta0 or Hessian batches does not pickle: its checkpoint needs them
        again."""
        if getattr(self, "_given", None) is not None:
            raise TypeError("a Run on given batches, theta0 or Hessian batches does "
                            "not pickle: resuming needs the same ones again")
        return (_unpickle, (self.to_bytes(), self.precision, self._threads_given,
                            self._top, self._noise, self._hist))

    def __repr__(self):
        return "Run(%s, opt %s, %d parameters, step %d of %d, %s)" % (
            "setting " + self.config["setting"], self.config["opt"], self.nparams,
            self.step, self.config["steps"], self.precision)


def _unpickle(data, precision, threads, top, noise, hist):
    run = Run.resume(data, precision=precision, threads=threads, top=top, noise=noise)
    run._hist = hist
    return run
