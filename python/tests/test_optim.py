"""The optimizers of today (lion, sfadamw, muon, adafactor, shampoo, soap,
sophia) held step by step
to numpy implementations written here from their papers' algorithm
boxes, on the gradients the run took (after its clipping), in double. Each
reference also runs with one deliberate fault, which must disagree: the
comparison can fail."""
import ctypes
import unittest

import numpy as np

from helpers import linattn

STEPS = 16
TOL = 1e-6  # relative, per step; the largest seen is printed
FIELDS = dict(d=3, n=4, depth=2, front=2, batch=16, eval_batch=16, eval_every=-1,
              steps=STEPS, seed=5)


def record(opt, **kw):
    """The run's blocks, and per step theta before it, the gradient it took
    and the update it applied."""
    fields = dict(FIELDS)
    fields.update(kw)
    run = linattn.Run("1", opt=opt, precision="double", **fields)
    thetas, grads, updates = [run.theta.copy()], [], []

    def cb(rec):
        grads.append(rec.grad.copy())
        updates.append(rec.update.copy())
        thetas.append(rec.theta.copy())
    run.train(STEPS, every=1, callback=cb)
    return run, [(b.offset, b.shape) for b in run.model.blocks()], thetas, grads, updates


def worst(ref, updates):
    """The largest relative difference of a step's update, over the steps."""
    return max(np.max(np.abs(r - u)) / np.max(np.abs(r)) for r, u in zip(ref, updates))


# ------------------------------------------------ the papers' algorithms

def lion(cfg, thetas, grads, fault=False):
    """Chen et al. 2023, Algorithm 2."""
    b1, b2, lr, wd = cfg["beta1"], cfg["beta2"], cfg["lr"], cfg["weight_decay"]
    m, out = np.zeros_like(grads[0]), []
    for th, g in zip(thetas, grads):
        c = (b2 if fault else b1) * m + (1 - b1) * g
        out.append(-lr * (np.sign(c) + wd * th))
        m = b2 * m + (1 - b2) * g
    return out


def sfadamw(cfg, thetas, grads, fault=False):
    """Defazio et al. 2024, Algorithm 1 (AdamW form): y where the gradient
    is taken, z the base sequence, x the average, c_t = gamma_t^2 / sum
    gamma_i^2 (gamma_t = lr sqrt(1 - beta2^t) grows: it is its maximum)."""
    b1, b2, lr, eps, wd = (cfg[k] for k in ("beta1", "beta2", "lr", "eps", "weight_decay"))
    x = z = thetas[0].copy()
    v, wsum, out = np.zeros_like(x), 0.0, []
    for t, (y, g) in enumerate(zip(thetas, grads), 1):
        v = b2 * v + (1 - b2) * g * g
        gamma = lr * (1.0 if fault else np.sqrt(1 - b2 ** t))
        z = z - gamma * g / (np.sqrt(v) + eps) - gamma * wd * y
        wsum += gamma ** 2
        c = gamma ** 2 / wsum
        x = (1 - c) * x + c * z
        out.append((1 - b1) * z + b1 * x - y)
    return out


def newton_schulz(g, fault=False):
    """The reference implementation's quintic, five steps."""
    a, b, c = 3.4445, -4.7750, 2.0315
    x = g.T if g.shape[0] > g.shape[1] else g
    x = x / (np.linalg.norm(x) + 1e-7)
    for _ in range(5):
        s = x @ x.T
        x = a * x + (b * s + c * s @ s) @ x
    return x if fault or g.shape[0] <= g.shape[1] else x.T


def muon(cfg, blocks, thetas, grads, fault=False):
    """Muon's reference implementation: per matrix, Nesterov momentum
    orthogonalized; Adam (bias-corrected) for what is not a matrix."""
    mu, lr, la, b1, b2, eps, wd = (cfg[k] for k in ("momentum", "lr", "lr_aux", "beta1",
                                                   "beta2", "eps", "weight_decay"))
    n = grads[0].size
    buf, m, v, out = np.zeros(n), np.zeros(n), np.zeros(n), []
    for t, (th, g) in enumerate(zip(thetas, grads), 1):
        u = np.zeros(n)
        for off, (r, k) in blocks:
            s = slice(off, off + r * k)
            if r > 1 and k > 1:
                buf[s] = mu * buf[s] + (1 - mu) * g[s]
                d = ((1 - mu) * g[s] + mu * buf[s]).reshape(r, k)
                o = newton_schulz(d, fault and r != k)
                if o.shape != (r, k):
                    o = o.reshape(r, k)  # the fault: a transpose missed
                u[s] = -lr * (np.sqrt(max(1.0, r / k)) * o.ravel() + wd * th[s])
            else:
                m[s] = b1 * m[s] + (1 - b1) * g[s]
                v[s] = b2 * v[s] + (1 - b2) * g[s] ** 2
                mh, vh = m[s] / (1 - b1 ** t), v[s] / (1 - b2 ** t)
                u[s] = -la * (mh / (np.sqrt(vh) + eps) + wd * th[s])
        out.append(u)
    return out


def adafactor(cfg, blocks, thetas, grads, fault=False):
    """Shazeer and Stern 2018, Algorithms 4 (a matrix) and 5 (a vector),
    update clipping d = 1, relative step rho_t = min(lr, 1/sqrt(t)),
    alpha_t = max(1e-3, RMS(X_{t-1})) rho_t, beta2_t = 1 - t^-0.8; with
    beta1 > 0 the first moment of the clipped update."""
    lr, b1, e1 = cfg["lr"], cfg["beta1"], cfg["eps"]
    state, m, out = {}, np.zeros(grads[0].size), []
    rms = lambda a: np.sqrt(np.mean(a * a))  # noqa: E731
    for t, (th, g) in enumerate(zip(thetas, grads), 1):
        rho, bt = min(lr, 1 / np.sqrt(t)), 1 - t ** -0.8
        u = np.zeros_like(g)
        for off, (r, k) in blocks:
            s = slice(off, off + r * k)
            G, X = g[s].reshape(r, k), th[s].reshape(r, k)
            alpha = max(1e-3, rms(X)) * rho
            if r > 1 and k > 1:
                R, C = state.get(off, (np.zeros(r), np.zeros(k)))
                R = bt * R + (1 - bt) * (G * G + e1) @ np.ones(k)
                C = bt * C + (1 - bt) * np.ones(r) @ (G * G + e1)
                state[off] = (R, C)
                V = np.outer(R, C) / (1.0 if fault else R.sum())
            else:
                V = bt * state.get(off, np.zeros((r, k))) + (1 - bt) * (G * G + e1)
                state[off] = V
            U = G / np.sqrt(V)
            U = U / max(1.0, rms(U))
            if b1 > 0:
                m[s] = b1 * m[s] + (1 - b1) * U.ravel()
                U = m[s]
            u[s] = -alpha * U.ravel()
        out.append(u)
    return out


def inv_root(s, eps, p):
    """s^(-1/p) of a symmetric positive definite s, its eigenvalues below
    eps read as eps."""
    w, q = np.linalg.eigh(s)
    return (q * np.maximum(w, eps) ** (-1.0 / p)) @ q.T


def shampoo(cfg, blocks, thetas, grads, fault=False):
    """Gupta et al. 2018, Algorithm 1 per matrix: L, R from eps I, the
    inverse fourth roots recomputed at steps 1, 1 + f, ...; diagonal
    Adagrad for a vector."""
    lr, eps, f = cfg["lr"], cfg["eps"], cfg["precond_every"]
    state, out = {}, []
    for t, g in enumerate(grads, 1):
        u = np.zeros_like(g)
        for off, (r, k) in blocks:
            s = slice(off, off + r * k)
            if r > 1 and k > 1:
                G = g[s].reshape(r, k)
                L, R, PL, PR = state.get(off, (eps * np.eye(r), eps * np.eye(k), None, None))
                L, R = L + G @ G.T, R + G.T @ G
                if (t - 1) % f == 0:  # the fault: R's root of order 2
                    PL, PR = inv_root(L, eps, 4), inv_root(R, eps, 2 if fault else 4)
                state[off] = (L, R, PL, PR)
                u[s] = -lr * (PL @ G @ PR).ravel()
            else:
                H = state.get(off, eps) + g[s] ** 2
                state[off] = H
                u[s] = -lr * g[s] / np.sqrt(H)
        out.append(u)
    return out


def soap(cfg, blocks, thetas, grads, fault=False):
    """Vyas et al. 2024, Algorithm 3 (idealized SOAP, full eigendecompositions)
    per matrix: Adam (bias-corrected) in the eigenbasis Q_L, Q_R of Shampoo's
    L, R (exponential averages at beta2), the bases recomputed after every
    f-th step, the identity before; Adam for a vector."""
    lr, b1, b2, eps, f = (cfg[k] for k in ("lr", "beta1", "beta2", "eps", "precond_every"))
    state, out = {}, []
    for t, g in enumerate(grads, 1):
        u, c1, c2 = np.zeros_like(g), 1 - b1 ** t, 1 - b2 ** t
        for off, (r, k) in blocks:
            s = slice(off, off + r * k)
            if r > 1 and k > 1:
                G = g[s].reshape(r, k)
                L, R, QL, QR, M, V = state.get(off, (np.zeros((r, r)), np.zeros((k, k)),
                                                     np.eye(r), np.eye(k), np.zeros((r, k)),
                                                     np.zeros((r, k))))
                Gr = QL.T @ G @ QR
                M = b1 * M + (1 - b1) * G
                V = b2 * V + (1 - b2) * Gr * Gr
                Nr = ((QL.T @ M @ QR) / c1) / (np.sqrt(V / (1.0 if fault else c2)) + eps)
                u[s] = -lr * (QL @ Nr @ QR.T).ravel()
                L = b2 * L + (1 - b2) * G @ G.T
                R = b2 * R + (1 - b2) * G.T @ G
                if t % f == 0:
                    QL, QR = np.linalg.eigh(L)[1], np.linalg.eigh(R)[1]
                state[off] = (L, R, QL, QR, M, V)
            else:
                m, v = state.get(off, (0.0, 0.0))
                m = b1 * m + (1 - b1) * g[s]
                v = b2 * v + (1 - b2) * g[s] ** 2
                state[off] = (m, v)
                u[s] = -lr * (m / c1) / (np.sqrt(v / c2) + eps)
        out.append(u)
    return out


def sophia(cfg, thetas, grads, hhats, fault=False, clipped=None):
    """Liu et al. 2023, Algorithm 3: h renewed at steps 1, 1 + k, ..
    (hhats[t] the estimate at step t + 1), decoupled decay, the clipped
    ratio (clipped, a list, receives each step's share of entries at the
    clip). The fault: h's average takes beta1's coefficient."""
    b1, b2, lr, eps, wd, gamma, k = (cfg[x] for x in ("beta1", "beta2", "lr", "eps",
                                                      "weight_decay", "gamma", "precond_every"))
    m, h, out = np.zeros_like(grads[0]), np.zeros_like(grads[0]), []
    for t, (th, g) in enumerate(zip(thetas, grads)):
        m = b1 * m + (1 - b1) * g
        if t % k == 0:
            h = b2 * h + (1 - (b1 if fault else b2)) * hhats[t]
        decayed = th - lr * wd * th
        ratio = m / np.maximum(gamma * h, eps)
        if clipped is not None:
            clipped.append(np.mean(np.abs(ratio) >= 1))
        out.append(decayed - lr * np.clip(ratio, -1, 1) - th)
    return out


def sophia_estimates(run, thetas, kind):
    """The estimate of each step that renews h, computed here on the step's
    batch (a fresh-data run: stream t of the run's seed): the dense
    Hessian's diagonal; u * (H u) with H dense and u_i = +1 when the
    uniform draw is below 1/2; B g~^2, g~ the gradient on labels f + xi /
    sqrt 2. The draws from the run's seed's stream LA_STREAM_HESS, one
    after the other."""
    cfg, lib = run.config, run._lib
    rng = linattn.Rng(cfg["seed"], linattn._lib._header.define("LA_STREAM_HESS"))
    out = []
    for t, th in enumerate(thetas[:-1]):
        if t % cfg["precond_every"]:
            out.append(None)
            continue
        batch = run.sample(cfg["batch"], stream=t)
        if kind == "gnb":
            _, pred = run.model.loss(th, batch, predictions=True)
            xi = np.array([lib.la_rng_normal(ctypes.byref(rng._s)) for _ in pred])
            tilde = linattn.Batch(batch.z, pred + xi / np.sqrt(2), precision="double")
            g = run.model.grad(th, tilde)[1]
            out.append(batch.count * g * g)
            continue
        h = run.model.hessian(th, batch)
        if kind == "exact":
            out.append(np.diag(h).copy())
        else:
            u = np.array([1.0 if lib.la_rng_uniform(ctypes.byref(rng._s)) < 0.5 else -1.0
                          for _ in th])
            out.append(u * (h @ u))
    return out


class Optimizers(unittest.TestCase):
    def check(self, name, ref, kw=None, report=[]):
        run, blocks, thetas, grads, updates = record(name, **(kw or {}))
        cfg = run.config
        self.assertEqual(cfg["opt"], name)
        shaped = name in ("muon", "adafactor", "shampoo", "soap")
        args = (cfg, blocks, thetas, grads) if shaped else (cfg, thetas, grads)
        good = worst(ref(*args), updates)
        bad = worst(ref(*args, fault=True), updates)
        print("   %s %s: largest relative difference %.2e (with a fault %.2e)"
              % (name, kw or "", good, bad))
        self.assertLess(good, TOL)
        self.assertGreater(bad, 1e-3)
        return run

    def test_lion(self):
        self.check("lion", lion)
        self.check("lion", lion, dict(lr=3e-3, weight_decay=0.5))

    def test_sfadamw(self):
        self.check("sfadamw", sfadamw)
        self.check("sfadamw", sfadamw, dict(lr=0.05, weight_decay=0.1, beta1=0.5))

    def test_muon(self):
        run = self.check("muon", muon)
        self.assertTrue(any(r > 1 and k > 1 and r != k for _, (r, k) in
                            ((b.offset, b.shape) for b in run.model.blocks())))
        self.check("muon", muon, dict(lr=0.05, momentum=0.9, weight_decay=0.1, lr_aux=0.01))

    def test_adafactor(self):
        self.check("adafactor", adafactor)
        self.check("adafactor", adafactor, dict(lr=0.3, beta1=0.9))

    def test_shampoo(self):
        self.check("shampoo", shampoo)
        self.check("shampoo", shampoo, dict(lr=0.03, eps=1e-3, precond_every=3))

    def test_soap(self):
        self.check("soap", soap, dict(precond_every=5))
        self.check("soap", soap, dict(lr=0.01, beta1=0.9, beta2=0.99, precond_every=4))

    def test_sophia(self):
        """Each estimator, its estimates formed here; gamma large enough
        that some entries are clipped and some are not (the fault moves
        only those that are not)."""
        for kind, kw in (("hutchinson", dict(gamma=5.0)),
                         ("exact", dict(gamma=5.0, precond_every=3, weight_decay=0.1)),
                         ("gnb", dict(gamma=2.0, lr=1e-3, beta1=0.9))):
            run, _, thetas, grads, updates = record("sophia", hessian=kind, **kw)
            cfg = run.config
            self.assertEqual((cfg["opt"], cfg["hessian"], cfg["data"]),
                             ("sophia", kind, "fresh"))
            hh = sophia_estimates(run, thetas, kind)
            clipped = []
            good = worst(sophia(cfg, thetas, grads, hh, clipped=clipped), updates)
            bad = worst(sophia(cfg, thetas, grads, hh, fault=True), updates)
            free = 1 - np.mean(clipped)
            print("   sophia %s %s: largest relative difference %.2e (with a fault %.2e), "
                  "%.0f%% of entries not clipped" % (kind, kw, good, bad, 100 * free))
            self.assertLess(good, TOL)
            self.assertGreater(bad, 1e-3)
            self.assertTrue(0 < free < 1)

    def test_hessian_blocks(self):
        """Each block's eigenvalues are those of the dense Hessian's block
        (numpy's eigvalsh); the heterogeneity is the mean Jensen-Shannon
        distance written here from its definition."""
        run = linattn.Run("1", precision="double", **dict(FIELDS, front=0))
        run.train(5)
        blocks, mean, dist = run.hessian_blocks(bins=50)
        h = run.hessian()
        spectra = []
        for b in run.model.blocks():
            s = slice(b.offset, b.offset + b.shape[0] * b.shape[1])
            ref = np.linalg.eigvalsh(h[s, s])
            key = "%s[%d]" % (b.name, b.layer)
            np.testing.assert_allclose(blocks[key], ref, rtol=0,
                                       atol=1e-12 * np.max(np.abs(ref)))
            spectra.append(ref)
        allv = np.concatenate(spectra)
        lo, hi = allv.min(), allv.max()
        x, w = np.linspace(lo, hi, 50), (hi - lo) / 50
        dens = [np.exp(-0.5 * ((x[:, None] - e[None, :]) / w) ** 2).sum(1) for e in spectra]
        dens = [d / d.sum() for d in dens]

        def js(p, q):
            m = (p + q) / 2
            kl = lambda a: np.sum(a[a > 0] * np.log2(a[a > 0] / m[a > 0]))  # noqa: E731
            return np.sqrt(max(0.0, 0.5 * kl(p) + 0.5 * kl(q)))
        ref = np.array([[js(p, q) for q in dens] for p in dens])
        np.testing.assert_allclose(dist, ref, atol=1e-10)
        k = len(spectra)
        self.assertAlmostEqual(mean, ref[np.triu_indices(k, 1)].mean(), places=10)
        self.assertGreater(mean, 0)

    def test_names_and_defaults(self):
        names = linattn.optimizers()
        for n in ("lion", "sfadamw", "muon", "adafactor", "shampoo", "soap", "sophia"):
            self.assertIn(n, names)
        cfg = linattn.RunConfig("1", opt="muon").resolve()
        self.assertEqual((cfg["momentum"], cfg["lr_aux"]), (0.95, 3e-4))
        cfg = linattn.RunConfig("1", opt="sophia").resolve()
        self.assertEqual((cfg["beta1"], cfg["beta2"], cfg["eps"], cfg["gamma"],
                          cfg["precond_every"], cfg["hessian"]),
                         (0.96, 0.99, 1e-12, 0.01, 10, "hutchinson"))


if __name__ == "__main__":
    unittest.main()
