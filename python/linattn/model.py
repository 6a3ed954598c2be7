"""Prompts and the model: batches from numpy arrays, loss, gradient,
Hessian-vector products and the Hessian's measurements at any theta."""
import collections
import ctypes
import weakref
from ctypes import byref, c_char_p, c_double, c_int

import numpy as np

from . import _lib
from . import _args
from ._busy import exclusive
from ._errors import status_error
from .diag import Eigs, RobustCond, _eig_config, _eig_result, _median, _which

Block = collections.namedtuple("Block", "name layer head offset shape")


class Rng:
    """A la_rng: the stream `stream` of seed `seed` (Philox4x32-7). Passed
    to Run.sample, it advances with each draw, as in C."""

    def __init__(self, seed, stream=0):
        self._s = _lib.Rng(_args.integer(seed, "seed", *_args.C_U64),
                           _args.integer(stream, "stream", *_args.C_U64), 0)

    @property
    def state(self):
        return (self._s.key, self._s.stream, self._s.counter)

    def __repr__(self):
        return "Rng(key=%d, stream=%d, counter=%d)" % self.state


def _destroy_batch(lib, b):
    lib.la_batch_destroy(byref(b))


def _query_labels_zero(labels, what, where):
    """Every prompt's query label slot 0 (where: its place, of the first
    that is not), as la_batch_put_tokens holds it: a target there would
    reach the model's prediction."""
    bad = np.flatnonzero(np.asarray(labels) != 0)
    if bad.size:
        raise status_error("LA_ERANGE", what, "%s: the query's label slot %s is %r, not 0 "
                           "(%d prompt%s of %d): the target would reach the prediction"
                           % (what, where % bad[0], labels[bad[0]].item(), bad.size,
                              "" if bad.size == 1 else "s", len(labels)))


class Batch:
    """Prompts in the library's layout (la_batch).

    Batch(z, y): z of shape (count, d+1, n+1), each prompt the matrix
    Z0 = [[x_1 .. x_n x_q], [y_1 .. y_n 0]] of the papers (a query's label
    slot other than 0 is LA_ERANGE), and y of shape (count,) the targets
    y_q. The z and y properties give them back as numpy arrays (copies). A
    batch belongs to one precision's library."""

    def __init__(self, z, y, precision=None):
        lib = _lib.lib_of(precision)
        z = np.asarray(z)
        if z.ndim == 2:
            z = z[None]
        if z.ndim != 3 or z.shape[1] < 2 or z.shape[2] < 2:
            raise ValueError("z: prompts of shape (count, d+1, n+1) expected, not %s"
                             % (z.shape,))
        count, d1, n1 = z.shape
        _query_labels_zero(z[:, -1, -1], "z", "z[%d, d, n]")
        y = np.ascontiguousarray(np.reshape(y, -1), dtype=lib.dtype)
        if y.shape != (count,):
            raise ValueError("y: %d targets expected, not shape %s" % (count, y.shape))
        zc = np.ascontiguousarray(z, dtype=lib.dtype)
        b = lib.Batch()
        lib.check(lib.la_batch_create(byref(b), d1 - 1, n1 - 1, count), "la_batch_create",
                  "d = %d, n = %d, count = %d" % (d1 - 1, n1 - 1, count))
        self._init(lib, b, None)
        weakref.finalize(self, _destroy_batch, lib, b)
        lib.check(lib.la_pack(count, d1, n1, lib.ptr(zc), b.z), "la_pack")
        lib.check(lib.la_pack(count, 1, 1, lib.ptr(y), b.y), "la_pack")

    def _init(self, lib, b, owner):
        self._lib = lib
        self._b = b
        self._owner = owner  # what holds b's memory when the batch does not

    @classmethod
    def from_tokens(cls, tokens, y, precision=None):
        """Prompts in paper A's code's token layout (la_batch_put_tokens):
        tokens of shape (count, n+1, d+1), row j of a prompt the token
        [x_j, y_j], its last row the query [x_q, 0]; y the targets y_q."""
        lib = _lib.lib_of(precision)
        t = np.ascontiguousarray(tokens, dtype=np.float64)
        if t.ndim == 2:
            t = t[None]
        if t.ndim != 3 or t.shape[1] < 2 or t.shape[2] < 2:
            raise ValueError("tokens: prompts of shape (count, n+1, d+1) expected, not %s"
                             % (t.shape,))
        yy = np.ascontiguousarray(np.reshape(y, -1), dtype=np.float64)
        if yy.shape != (t.shape[0],):
            raise ValueError("y: %d targets expected, not shape %s" % (t.shape[0], yy.shape))
        held = np.flatnonzero(t[:, -1, -1])
        if held.size:
            raise status_error("LA_ERANGE", "Batch.from_tokens",
                               "tokens: the query row of prompt %d holds %g in its label "
                               "slot; from_tokens takes the query row as [x_q, 0] (paper "
                               "A's code's Z) and the targets y_q in y (from a stack whose "
                               "query rows hold y_q: y = tokens[:, -1, -1], then zero it)"
                               % (held[0], t[held[0], -1, -1]))
        self = cls._empty(lib, t.shape[2] - 1, t.shape[1] - 1, t.shape[0])
        lib.check(lib.la_batch_put_tokens(byref(self._b), _lib.dptr(t), _lib.dptr(yy)),
                  "la_batch_put_tokens")
        return self

    def tokens(self):
        """(tokens, y) in paper A's code's layout (la_batch_get_tokens)."""
        t = np.empty((self.count, self.n + 1, self.d + 1))
        y = np.empty(self.count)
        self._lib.check(self._lib.la_batch_get_tokens(byref(self._b), _lib.dptr(t),
                                                      _lib.dptr(y)), "la_batch_get_tokens")
        return t, y

    @classmethod
    def _view(cls, lib, ptr, owner):
        """The batch at ptr, kept alive by owner (a run's evaluation batch)."""
        self = cls.__new__(cls)
        self._init(lib, ptr.contents, owner)
        return self

    @classmethod
    def _empty(cls, lib, d, n, count):
        self = cls.__new__(cls)
        b = lib.Batch()
        lib.check(lib.la_batch_create(byref(b), d, n, count), "la_batch_create",
                  "d = %d, n = %d, count = %d" % (d, n, count))
        self._init(lib, b, None)
        weakref.finalize(self, _destroy_batch, lib, b)
        return self

    @property
    def count(self):
        return self._b.count

    @property
    def d(self):
        return self._b.d

    @property
    def n(self):
        return self._b.n

    @property
    def precision(self):
        return self._lib.precision

    @property
    def z(self):
        out = np.empty((self.count, self.d + 1, self.n + 1), dtype=self._lib.dtype)
        self._lib.check(self._lib.la_unpack(self.count, self.d + 1, self.n + 1,
                                            self._b.z, self._lib.ptr(out)), "la_unpack")
        return out

    @property
    def y(self):
        out = np.empty(self.count, dtype=self._lib.dtype)
        self._lib.check(self._lib.la_unpack(self.count, 1, 1, self._b.y,
                                            self._lib.ptr(out)), "la_unpack")
        return out

    def __len__(self):
        return self.count

    def __repr__(self):
        return "Batch(%d prompts, d = %d, n = %d, %s)" % (self.count, self.d, self.n,
                                                          self.precision)


class Model:
    """The model of a run (la_model): loss, gradient, HVP and curvature at
    any theta on any batch. Get it as run.model. Every method takes theta
    (a vector of nparams numbers) and a batch (a Batch, or a pair (z, y) of
    numpy arrays as Batch takes them)."""

    def __init__(self, run):
        self._run = run
        self._lib = run._lib
        self._m = self._lib.la_run_model(run._r)
        self._busy = run._busy  # the run's: one thread at a time on both
        self.nparams = run.nparams

    # ------------------------------------------------------------ inputs
    def _theta(self, theta, what="theta"):
        return self._lib.reals(theta, self.nparams, what)

    def _batch(self, batch):
        if isinstance(batch, Batch):
            if batch._lib is not self._lib:
                raise ValueError("a %s batch for a %s model" % (batch.precision,
                                                                 self._lib.precision))
            return batch
        z, y = batch
        return Batch(z, y, self._lib)

    def _work(self):
        """(work, bytes) of the model's calls, allocated once (a call would
        allocate its own): a model is used by one thread at a time."""
        if getattr(self, "_ws", None) is None:
            n = self._lib.la_model_work_bytes(self._m)
            self._ws = (ctypes.create_string_buffer(max(n, 1)), n)
        return self._ws

    def _call(self, name, *args):
        self._lib.check(getattr(self._lib, name)(*args), name)

    # ------------------------------------------------------------ values
    @exclusive()
    def loss(self, theta, batch, predictions=False):
        """The mean squared error on the batch; with predictions=True also
        each prompt's prediction -[Z_L]_{d+1,n+1}."""
        th, b = self._theta(theta), self._batch(batch)
        loss = c_double()
        pred = np.empty(b.count, dtype=self._lib.dtype) if predictions else None
        self._call("la_model_loss", self._m, self._lib.ptr(th), byref(b._b), byref(loss),
                   self._lib.ptr(pred) if predictions else None, *self._work())
        return (loss.value, pred) if predictions else loss.value

    @exclusive()
    def grad(self, theta, batch):
        """(loss, gradient)."""
        th, b = self._theta(theta), self._batch(batch)
        loss = c_double()
        g = np.empty(self.nparams, dtype=self._lib.dtype)
        self._call("la_model_grad", self._m, self._lib.ptr(th), byref(b._b), byref(loss),
                   self._lib.ptr(g), *self._work())
        return loss.value, g

    @exclusive()
    def hvp(self, theta, batch, v):
        """H(theta) v, exact (forward over reverse)."""
        th, b, vv = self._theta(theta), self._batch(batch), self._theta(v, "v")
        hv = np.empty(self.nparams, dtype=self._lib.dtype)
        self._call("la_model_hvp", self._m, self._lib.ptr(th), byref(b._b),
                   self._lib.ptr(vv), None, None, self._lib.ptr(hv), *self._work())
        return hv

    @exclusive()
    def hessian(self, theta, batch):
        """The exact Hessian, nparams x nparams (symmetrized, float64)."""
        th, b = self._theta(theta), self._batch(batch)
        h = np.empty((self.nparams, self.nparams))
        self._call("la_hessian_dense", self._m, self._lib.ptr(th), byref(b._b),
                   _lib.dptr(h), None, 0)
        return h

    @exclusive()
    def hessian_diag(self, theta, batch):
        """The exact diagonal of the Hessian (nparams HVPs)."""
        th, b = self._theta(theta), self._batch(batch)
        d = np.empty(self.nparams)
        self._call("la_hessian_diag", self._m, self._lib.ptr(th), byref(b._b),
                   _lib.dptr(d), None, 0)
        return d

    @exclusive()
    def hessian_blocks(self, theta, batch, bins=100):
        """The Hessian block by block (la_hessian_blocks): {block name with
        its layer and head, as "A[1]" or "A[1,2]" with heads, "W1":
        eigenvalues ascending} in theta's order, and the heterogeneity of
        their spectra (la_spectra_js on `bins` points): (blocks, mean
        Jensen-Shannon distance over the pairs, the matrix of distances)."""
        th, b = self._theta(theta), self._batch(batch)
        eig = np.empty(self.nparams)
        self._call("la_hessian_blocks", self._m, self._lib.ptr(th), byref(b._b),
                   _lib.dptr(eig), None, 0)
        blocks, heads = self.blocks(), self._run.config["heads"]
        out = {}
        for bl in blocks:
            key = bl.name if bl.layer < 0 else (
                "%s[%d]" % (bl.name, bl.layer) if heads == 1
                else "%s[%d,%d]" % (bl.name, bl.layer, bl.head))
            out[key] = eig[bl.offset:bl.offset + bl.shape[0] * bl.shape[1]].copy()
        sizes = (ctypes.c_int * len(blocks))(*[bl.shape[0] * bl.shape[1] for bl in blocks])
        dist = np.empty((len(blocks), len(blocks)))
        mean = ctypes.c_double()
        work = np.empty(bins * (len(blocks) + 1))
        st = self._lib.la_spectra_js(len(blocks), sizes, _lib.dptr(eig), bins, _lib.dptr(dist),
                                     byref(mean), _lib.dptr(work))
        if st:
            raise self._lib.error(st, "la_spectra_js")
        return out, mean.value, dist

    @exclusive()
    def hessian_eigs(self, theta, batch, k=10, which="largest", tol=1e-6, max_iter=0,
                     seed=0, vectors=False):
        """k eigenvalues of the Hessian by Lanczos (la_hessian_eigs): which
        is 'largest', 'smallest' or 'magnitude'. An Eigs; a warning when not
        all k converged within max_iter (the estimates are returned)."""
        th, b = self._theta(theta), self._batch(batch)
        cfg = _eig_config(_which(which), max_iter, seed)
        out, keep = _eig_result(self._lib, k, self.nparams, vectors)
        st = self._lib.la_hessian_eigs(self._m, self._lib.ptr(th), byref(b._b), len(keep[0]),
                                       _args.real(tol, "tol"), byref(cfg), byref(out), None, 0)
        return Eigs._of(self._lib, st, "la_hessian_eigs", out, keep)

    @exclusive()
    def robust_cond(self, theta, batch, dense_max=0, probes=0, steps=0, seed=0,
                    median=None):
        """Both robust condition numbers of paper A (la_robust_cond):
        max|H_ii| / median|H_ii| and lambda_max / lambda_median, exact up to
        dense_max parameters (default 1000), Lanczos and SLQ beyond. median:
        by_diag's median, 'lower' (None: torch.median's, paper A's code's)
        or 'mid' (see linattn.rcond_diag)."""
        th, b = self._theta(theta), self._batch(batch)
        cfg = _lib.RcondConfig(_args.integer(dense_max, "dense_max", 0),
                               _lib.SlqConfig(_args.integer(probes, "probes", 0),
                                              _args.integer(steps, "steps", 0),
                                              _args.integer(seed, "seed", *_args.C_U64)),
                               _median(median))
        out = _lib.Rcond()
        self._call("la_robust_cond", self._m, self._lib.ptr(th), byref(b._b), byref(cfg),
                   byref(out), None, 0)
        return RobustCond(out)

    @exclusive()
    def dir_smoothness(self, theta, theta_next, batch):
        """(u^T H(theta) u, ||grad f(theta)||) along the step from theta to
        theta_next, u its unit direction (la_dir_smoothness)."""
        th, tn, b = self._theta(theta), self._theta(theta_next, "theta_next"), \
            self._batch(batch)
        s, g = c_double(), c_double()
        self._call("la_dir_smoothness", self._m, self._lib.ptr(th), self._lib.ptr(tn),
                   byref(b._b), byref(s), byref(g), None, 0)
        return s.value, g.value

    @exclusive()
    def blocks(self):
        """The parameter matrices in theta, in theta's order
        (la_model_block_info): a list of Block(name, layer, head, offset,
        shape); layer and head are -1 for the front layer's."""
        lib, out = self._lib, []
        name = c_char_p()
        ints = [c_int() for _ in range(4)]
        i = 0
        while True:
            at = lib.la_model_block_info(self._m, i, byref(name), *map(byref, ints))
            if at < 0:
                break
            layer, head, rows, cols = (x.value for x in ints)
            out.append(Block(name.value.decode(), layer, head, at, (rows, cols)))
            i += 1
        return out

    def matrices(self, theta):
        """Every matrix of theta by name (THE PACKING OF THETA in
        linattn.h): each layer's P and Q (sparse: B and A; pgd: A; a
        factored Q: W_K and W_Q) stacked over the layers, shape (L, rows,
        cols), or (L, H, rows, cols) with several heads; the front MLP's W1,
        b1, W2, b2 as they are (b1 and b2 as columns: (h, 1), (d, 1)). Copies, float64; theta_from is the inverse."""
        th = np.asarray(self._theta(theta), dtype=np.float64)
        heads = self._run.config["heads"]
        out = {}
        for b in self.blocks():
            m = th[b.offset:b.offset + int(np.prod(b.shape))].reshape(b.shape)
            if b.layer < 0:
                out[b.name] = m.copy()
                continue
            stack = out.setdefault(b.name, np.empty((self._run.config["depth"], heads)
                                                    + b.shape))
            stack[b.layer, b.head] = m
        return {k: (v[:, 0] if v.ndim == 4 and heads == 1 else v) for k, v in out.items()}

    def theta_from(self, matrices):
        """theta (the library's precision) from matrices as matrices()
        gives them; every one must be there, in its shape."""
        want = self.matrices(np.zeros(self.nparams))
        missing = set(want) ^ set(matrices)
        if missing:
            raise status_error("LA_ESHAPE", "theta_from", "matrices %s: this model has "
                               "%s" % (sorted(set(matrices)), sorted(want)))
        th = np.empty(self.nparams, dtype=np.float64)
        heads = self._run.config["heads"]
        for b in self.blocks():
            m = np.asarray(matrices[b.name], dtype=np.float64)
            if m.shape != want[b.name].shape:
                raise status_error("LA_ESHAPE", "theta_from", "%s of shape %s, not %s"
                                   % (b.name, m.shape, want[b.name].shape))
            if b.layer >= 0:
                m = m[b.layer, b.head] if heads > 1 else m[b.layer]
            th[b.offset:b.offset + m.size] = m.reshape(-1)
        return self._theta(th)

    @exclusive()
    def init_params(self, seed, stream=_lib.LA_STREAM_EVAL - 1):
        """theta ~ N(0, init_std^2) from the stream of seed; the default
        stream is the trainer's, so init_params(run seed) is a run's theta
        at step 0."""
        th = np.empty(self.nparams, dtype=self._lib.dtype)
        rng = Rng(seed, stream)  # checks both
        self._call("la_model_init_params", self._m, byref(rng._s), self._lib.ptr(th))
        return th

    def __repr__(self):
        return "Model(%d parameters, %s)" % (self.nparams, self._lib.precision)
