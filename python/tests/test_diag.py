"""Lanczos, SLQ, robust condition numbers and gradient noise, held to numpy
(dense eigensolvers, medians, moments) and to the model's own gradients."""
import unittest
import warnings

import numpy as np

from helpers import linattn, prompts, tiny_run


def sym(n, seed):
    g = np.random.default_rng(seed)
    a = g.standard_normal((n, n))
    return (a + a.T) / 2


class LanczosOnMatrices(unittest.TestCase):
    def test_ends_of_the_spectrum_equal_numpy(self):
        a = sym(40, 1)
        w = np.linalg.eigvalsh(a)
        for p in ("float", "double"):
            tol = 1e-5 if p == "float" else 1e-9
            top = linattn.lanczos(a, 4, which="largest", precision=p)
            np.testing.assert_allclose(top.values, w[::-1][:4], rtol=0, atol=tol * 10)
            low = linattn.lanczos(a, 3, which="smallest", precision=p)
            np.testing.assert_allclose(low.values, w[:3], rtol=0, atol=tol * 10)
            mag = linattn.lanczos(a, 3, which="magnitude", precision=p)
            want = w[np.argsort(-np.abs(w))][:3]
            np.testing.assert_allclose(mag.values, want, rtol=0, atol=tol * 10)
            self.assertEqual(top.converged, 4)

    def test_vectors_are_eigenvectors(self):
        a = sym(30, 2)
        e = linattn.lanczos(a, 2, vectors=True, precision="double")
        for lam, v in zip(e.values, e.vectors):
            self.assertAlmostEqual(np.linalg.norm(v), 1, delta=1e-10)
            self.assertLess(np.linalg.norm(a @ v - lam * v), 1e-6)

    def test_a_function_and_its_exception(self):
        d = np.arange(1.0, 21.0)
        e = linattn.lanczos(lambda x: d * x, 2, n=20, precision="double")
        np.testing.assert_allclose(e.values, [20, 19], atol=1e-8)

        def broken(x):
            raise ZeroDivisionError("inside the operator")
        with self.assertRaises(ZeroDivisionError):
            linattn.lanczos(broken, 2, n=20, precision="double")
        with self.assertRaises(ValueError):
            linattn.lanczos(lambda x: x, 2, precision="double")  # no n

    def test_not_converged_warns_and_returns(self):
        a = sym(50, 3)
        with warnings.catch_warnings(record=True) as got:
            warnings.simplefilter("always")
            e = linattn.lanczos(a, 3, max_iter=4, tol=1e-14, precision="double")
        self.assertTrue(any("LA_ENOCONVERGE" in str(w.message) for w in got))
        self.assertEqual(e.matvecs, 4)
        self.assertLess(e.converged, 3)

    def test_bad_arguments_name_the_status(self):
        with self.assertRaises(linattn.LinattnError) as e:
            linattn.lanczos(sym(10, 1), 3, tol=-1, precision="double")
        self.assertEqual((e.exception.name, e.exception.status), ("LA_ERANGE", -6))
        self.assertIn(e.exception.message, str(e.exception))

    def test_slq_weights_make_a_density(self):
        a = sym(30, 4)
        nodes, weights = linattn.slq(a, probes=6, steps=30, precision="double")
        self.assertAlmostEqual(weights.sum(), 1, delta=1e-12)
        w = np.linalg.eigvalsh(a)
        # a full Krylov space of each probe: its first moment is tr(A)/n exactly in
        # expectation; every node lies in the spectrum's hull
        self.assertTrue(np.all(nodes[weights > 0] >= w[0] - 1e-8))
        self.assertTrue(np.all(nodes[weights > 0] <= w[-1] + 1e-8))


class PapersNumbers(unittest.TestCase):
    def test_rcond_diag_and_spectrum_equal_numpy(self):
        g = np.random.default_rng(7)
        d = g.standard_normal(101)
        self.assertAlmostEqual(linattn.rcond_diag(d, "double"),
                               np.max(np.abs(d)) / np.median(np.abs(d)), delta=1e-12)
        v = np.abs(g.standard_normal(50)) + 0.1
        self.assertAlmostEqual(linattn.rcond_spectrum(v, precision="double"),
                               v.max() / np.median(v), delta=1e-12)
        # an even count: torch.median's lower middle value (paper A's code)
        # by default, numpy's midpoint as 'mid'
        e = g.standard_normal(150)
        a = np.sort(np.abs(e))
        self.assertAlmostEqual(linattn.rcond_diag(e, "double"), a[-1] / a[74], delta=1e-12)
        self.assertAlmostEqual(linattn.rcond_diag(e, "double", median="lower"), a[-1] / a[74],
                               delta=1e-12)
        self.assertAlmostEqual(linattn.rcond_diag(e, "double", median="mid"),
                               a[-1] / np.median(a), delta=1e-12)
        with self.assertRaises(ValueError):
            linattn.rcond_diag(e, "double", median="upper")
        try:
            import torch
        except ImportError:
            torch = None
        if torch is not None:
            t = torch.tensor(np.abs(e))
            self.assertAlmostEqual(linattn.rcond_diag(e, "double"),
                                   float(t.max() / torch.median(t)), delta=1e-12)
        self.assertEqual(linattn.weighted_median([3, 1, 2, 10], precision="double"), 2.5)
        self.assertEqual(linattn.weighted_median([1, 2, 3], [0, 0, 1], "double"), 3)
        with self.assertRaises(linattn.LinattnError) as e:
            linattn.rcond_diag([0, 0, 1], "double")  # the median is 0
        self.assertEqual(e.exception.name, "LA_ERANGE")
        with self.assertRaises(linattn.LinattnError) as e:
            linattn.rcond_diag([1, np.nan], "double")
        self.assertEqual(e.exception.name, "LA_ENONFINITE")

    def test_model_measurements_equal_the_dense_spectrum(self):
        run = tiny_run(front=3, param="dense")  # 80 parameters
        z, y = prompts(2, 3, 6, seed=3)
        batch = linattn.Batch(z, y, "double")
        theta = run.model.init_params(4) * 6
        H = run.model.hessian(theta, batch)
        w = np.linalg.eigvalsh(H)
        e = run.model.hessian_eigs(theta, batch, k=3, tol=1e-10)
        np.testing.assert_allclose(e.values, w[::-1][:3], rtol=1e-8)
        e = run.model.hessian_eigs(theta, batch, k=2, which="smallest", tol=1e-10)
        np.testing.assert_allclose(e.values, w[:2], rtol=1e-7, atol=1e-9 * abs(w).max())
        rc = run.model.robust_cond(theta, batch)
        self.assertTrue(rc.exact)
        self.assertAlmostEqual(rc.lambda_max / w[-1], 1, delta=1e-12)
        # the median is of the order of rounding here (the model's symmetries
        # leave many zero eigenvalues): held to an absolute tolerance
        self.assertAlmostEqual(rc.lambda_median, np.median(w), delta=1e-10 * w[-1])
        # ... so the ratio is given only where the median stands above it
        self.assertEqual(rc.resolved, abs(rc.lambda_median) > rc.resolution)
        self.assertEqual(rc.by_spectrum,
                         rc.lambda_max / rc.lambda_median if rc.resolved else 0)
        self.assertGreater(rc.resolution, 0)
        dg = np.sort(np.abs(np.diag(H)))
        self.assertAlmostEqual(rc.by_diag / (dg[-1] / dg[(dg.size - 1) // 2]), 1, delta=1e-12)
        mid = run.model.robust_cond(theta, batch, median="mid")
        self.assertAlmostEqual(mid.by_diag / (dg[-1] / np.median(dg)), 1, delta=1e-12)
        # beyond dense_max: Lanczos for lambda_max, SLQ for the median
        it = run.model.robust_cond(theta, batch, dense_max=10, probes=20, steps=80)
        self.assertFalse(it.exact)
        self.assertAlmostEqual(it.lambda_max / w[-1], 1, delta=1e-6)
        self.assertAlmostEqual(it.by_diag, rc.by_diag, delta=1e-10 * rc.by_diag)

    def test_directional_smoothness_is_the_curvature_along_the_step(self):
        run = tiny_run()
        batch = linattn.Batch(*prompts(2, 3, 6, seed=8), precision="double")
        theta = run.model.init_params(5) * 4
        step = np.random.default_rng(1).standard_normal(run.nparams)
        s, gn = run.model.dir_smoothness(theta, theta + step, batch)
        u = step / np.linalg.norm(step)
        self.assertAlmostEqual(s, u @ run.model.hvp(theta, batch, u), delta=1e-10 * abs(s))
        self.assertAlmostEqual(gn, np.linalg.norm(run.model.grad(theta, batch)[1]),
                               delta=1e-12 * gn)


class GradientNoise(unittest.TestCase):
    def test_noise_is_minibatch_gradients_minus_the_true_one(self):
        run = tiny_run()
        theta = run.theta.copy()
        noise = run.grad_noise(minibatch=4, true_batch=12, samples=5,
                               rng=linattn.Rng(21, 5))
        # again with the model's gradient on the same draws, in the same order
        rng = linattn.Rng(21, 5)
        g = sum(run.model.grad(theta, run.sample(4, rng=rng))[1] for _ in range(3)) / 3
        want = [np.linalg.norm(run.model.grad(theta, run.sample(4, rng=rng))[1] - g)
                for _ in range(5)]
        np.testing.assert_allclose(noise.norms, want, rtol=1e-12)
        self.assertAlmostEqual(noise.true_grad_norm, np.linalg.norm(g), delta=1e-12)

    def test_summary_moments_equal_numpy(self):
        x = np.random.default_rng(3).gamma(2.0, size=500) + 0.1
        st = linattn.noise_summary(x, bins=20, precision="double")
        self.assertAlmostEqual(st.mean, x.mean(), delta=1e-12)
        self.assertAlmostEqual(st.var, x.var(ddof=1), delta=1e-10)
        m2, m4 = np.mean((x - x.mean()) ** 2), np.mean((x - x.mean()) ** 4)
        self.assertAlmostEqual(st.kurtosis, m4 / m2 ** 2, delta=1e-10)
        self.assertEqual((st.min, st.max), (x.min(), x.max()))
        widths = np.diff(st.edges)
        self.assertAlmostEqual(np.sum(st.hist * widths), 1, delta=1e-12)
        counts, _ = np.histogram(x, bins=st.edges)
        np.testing.assert_allclose(st.hist * widths * len(x), counts, atol=1e-9)


if __name__ == "__main__":
    unittest.main()
