"""The diagnostics over any symmetric operator and on samples: Lanczos,
stochastic Lanczos quadrature, the papers' robust condition numbers, and
the summary of gradient-noise samples."""
import warnings
from ctypes import byref, c_double

import numpy as np

from . import _args, _header, _lib
from ._errors import status_error

_WHICH = {"largest": 0, "smallest": 1, "magnitude": 2}


class LinattnWarning(RuntimeWarning):
    """A result that is returned but is not what was asked (an iteration
    that did not converge)."""


def _which(which):
    try:
        return _WHICH[which]
    except KeyError:
        raise ValueError("which: one of %s, not %r" % (", ".join(_WHICH), which))


def _eig_config(which, max_iter, seed):
    return _lib.LanczosConfig(which, _args.integer(max_iter, "max_iter", 0),
                              _args.integer(seed, "seed", *_args.C_U64))


def _median(median):
    """R's median convention as the header numbers it (LA_MEDIAN_*): None
    or 'lower', torch.median's lower middle value (paper A's code); 'mid',
    the two middle values' midpoint."""
    names = _header._names("LA_MEDIAN_")
    if median is None:
        return 0
    if median not in names:
        raise ValueError("median: one of %s, not %r" % (", ".join(names), median))
    return names.index(median)


def _eig_result(lib, k, n, vectors):
    k = _args.integer(k, "k", 1, n)
    vals = np.full(k, np.nan)
    res = np.full(k, np.nan)
    vecs = np.zeros((k, n), dtype=lib.dtype) if vectors else None
    out = lib.EigOut(_lib.dptr(vals), _lib.dptr(res),
                     lib.ptr(vecs) if vectors else None, 0, 0, 0)
    return out, (vals, res, vecs)


class Eigs:
    """Eigenvalues from Lanczos: values (descending for 'largest',
    ascending for 'smallest', by |.| for 'magnitude'), residuals (the
    residual norm of each), vectors (k x n rows, when asked), matvecs,
    converged (how many are within the tolerance), restarts."""

    @classmethod
    def _of(cls, lib, st, where, out, keep):
        noconverge = lib.statuses.get(st, ("",))[0] == "LA_ENOCONVERGE"
        if st != 0 and not noconverge:
            raise lib.error(st, where)
        self = cls()
        self.values, self.residuals, self.vectors = keep
        self.matvecs, self.converged, self.restarts = out.matvecs, out.converged, \
            out.restarts
        if noconverge:
            warnings.warn("%s: LA_ENOCONVERGE: %d of %d eigenvalues within the "
                          "tolerance after %d products; the estimates are returned"
                          % (where, out.converged, len(self.values), out.matvecs),
                          LinattnWarning, stacklevel=3)
        return self

    def __repr__(self):
        return "Eigs(values=%s, matvecs=%d, converged=%d)" % (
            np.array2string(self.values, precision=6), self.matvecs, self.converged)


class RobustCond:
    """Paper A's robust condition numbers: by_diag = max|H_ii| /
    median|H_ii|, by_spectrum = lambda_max / lambda_median (0 unless
    resolved: |lambda_median| above resolution, the Hessian's rounding), and
    the two eigenvalues; exact when from the dense spectrum."""

    def __init__(self, r):
        self.by_diag = r.by_diag
        self.by_spectrum = r.by_spectrum
        self.lambda_max = r.lambda_max
        self.lambda_median = r.lambda_median
        self.exact = bool(r.exact)
        self.resolved = bool(r.resolved)
        self.resolution = r.resolution

    def to_dict(self):
        return dict(by_diag=self.by_diag, by_spectrum=self.by_spectrum,
                    lambda_max=self.lambda_max, lambda_median=self.lambda_median,
                    exact=self.exact, resolved=self.resolved,
                    resolution=self.resolution)

    def __repr__(self):
        return "RobustCond(%s)" % ", ".join("%s=%.6g" % kv if kv[0] not in ("exact", "resolved") else
                                            "%s=%s" % kv
                                            for kv in self.to_dict().items())


class _Operator:
    """A Python function (or a dense symmetric matrix) as la_matvec_fn. An
    exception in it stops the iteration and is raised again afterwards."""

    def __init__(self, lib, op, n):
        if isinstance(op, np.ndarray):
            a = np.asarray(op, dtype=np.float64)
            if a.ndim != 2 or a.shape[0] != a.shape[1]:
                raise ValueError("a square matrix or a function expected")
            n = a.shape[0] if n is None else n
            op = a.dot
        if n is None:
            raise ValueError("n: the operator's order is needed with a function")
        self.n = int(n)
        self.lib = lib
        self.op = op
        self.error = None
        self.fn = lib.matvec(self._call)

    def _call(self, ctx, n, x, y):
        try:
            xv = np.ctypeslib.as_array(x, shape=(n,))
            yv = np.ctypeslib.as_array(y, shape=(n,))
            out = np.asarray(self.op(xv.copy()))
            if out.shape != (n,):
                raise ValueError("the operator returned shape %s, not (%d,)"
                                 % (out.shape, n))
            yv[:] = out
            return 0
        except BaseException as e:  # noqa: B902 - raised again by the caller
            self.error = e
            return 1

    def check(self, st, where):
        if self.error is not None:
            raise self.error
        return st


def lanczos(op, k=6, n=None, which="largest", tol=1e-8, max_iter=0, seed=0,
            vectors=False, precision=None):
    """k eigenvalues of a symmetric operator by Lanczos with full
    reorthogonalization (la_lanczos). op is a function y = op(x) on vectors
    of n numbers, or a dense symmetric matrix. An Eigs."""
    lib = _lib.lib_of(precision)
    A = _Operator(lib, op, n)
    cfg = _eig_config(_which(which), max_iter, seed)
    out, keep = _eig_result(lib, k, A.n, vectors)
    st = lib.la_lanczos(A.n, A.fn, None, len(keep[0]), _args.real(tol, "tol"), byref(cfg),
                        byref(out), None, 0)
    return Eigs._of(lib, A.check(st, "la_lanczos"), "la_lanczos", out, keep)


def slq(op, n=None, probes=10, steps=0, seed=0, precision=None):
    """Stochastic Lanczos quadrature (la_slq): (nodes, weights) of the
    spectral density sum_i weights[i] delta(x - nodes[i])."""
    lib = _lib.lib_of(precision)
    A = _Operator(lib, op, n)
    cfg = _lib.SlqConfig(_args.integer(probes, "probes", 0), _args.integer(steps, "steps", 0),
                         _args.integer(seed, "seed", *_args.C_U64))
    p = cfg.probes if cfg.probes > 0 else 10
    s = cfg.steps if cfg.steps > 0 else min(A.n, 80)
    nodes, weights = np.zeros(p * s), np.zeros(p * s)
    st = lib.la_slq(A.n, A.fn, None, byref(cfg), _lib.dptr(nodes), _lib.dptr(weights),
                    None, 0)
    lib.check(A.check(st, "la_slq"), "la_slq")
    return nodes, weights


def _doubles(x, what):
    a = np.ascontiguousarray(x, dtype=np.float64).reshape(-1)
    if a.size == 0:
        raise ValueError("%s: no values" % what)
    return a


def rcond_diag(diag, precision=None, median=None):
    """max|d_i| / median|d_i| (paper A's code). median: 'lower' (None),
    torch.median's lower middle value of an even count as paper A's code
    takes it, or 'mid', the two middle values' midpoint."""
    lib = _lib.lib_of(precision)
    d = _doubles(diag, "diag")
    r = c_double()
    lib.check(lib.la_rcond_diag(d.size, _lib.dptr(d), _median(median), byref(r), None, 0),
              "la_rcond_diag")
    return r.value


def _weighted_call(name, values, weights, precision):
    """name(n, values, weights or NULL, &out, NULL, 0), the values and the
    optional weights checked alike."""
    lib = _lib.lib_of(precision)
    v = _doubles(values, "values")
    w = None if weights is None else _doubles(weights, "weights")
    if w is not None and w.size != v.size:
        raise ValueError("weights: %d values expected" % v.size)
    r = c_double()
    lib.check(getattr(lib, name)(v.size, _lib.dptr(v), None if w is None else
                                 _lib.dptr(w), byref(r), None, 0), name)
    return r.value


def rcond_spectrum(values, weights=None, precision=None):
    """lambda_max / lambda_median of a spectrum (weights: a density's)."""
    return _weighted_call("la_rcond_spectrum", values, weights, precision)


def weighted_median(values, weights=None, precision=None):
    """The weighted median (equal weights: numpy's median)."""
    return _weighted_call("la_weighted_median", values, weights, precision)


class NoiseStats:
    """The summary of noise samples (la_noise_summary): mean, var,
    kurtosis (3 for a Gaussian), hill_alpha and hill_stderr (the tail
    index), min, max; hist (densities) over edges."""

    def to_dict(self):
        return {k: getattr(self, k) for k in ("mean", "var", "kurtosis", "hill_alpha",
                                              "hill_stderr", "min", "max")}

    def __repr__(self):
        return "NoiseStats(%s)" % ", ".join("%s=%.6g" % kv for kv in self.to_dict().items())


def noise_summary(samples, bins=100, hill_k=0, precision=None):
    """The summary of samples, e.g. the norms of Run.grad_noise."""
    lib = _lib.lib_of(precision)
    x = _doubles(samples, "samples")
    bins = _args.integer(bins, "bins", 0, 1 << 24)
    bins = bins if bins > 0 else 100  # the library's default
    cfg = _lib.NoiseConfig(bins, _args.integer(hill_k, "hill_k", 0))
    st = _lib.NoiseStats()
    hist, edges = np.zeros(bins), np.zeros(bins + 1)
    lib.check(lib.la_noise_summary(x.size, _lib.dptr(x), byref(cfg), byref(st),
                                   _lib.dptr(hist), _lib.dptr(edges), None, None, None, 0),
              "la_noise_summary")
    out = NoiseStats()
    for k, _ in _lib.NoiseStats._fields_:
        setattr(out, k, getattr(st, k))
    out.hist, out.edges = hist, edges
    return out


__all__ = ["Eigs", "RobustCond", "NoiseStats", "LinattnWarning", "lanczos", "slq",
           "rcond_diag", "rcond_spectrum", "weighted_median", "noise_summary"]
