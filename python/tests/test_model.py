"""Loss, gradient, HVP and the Hessian on numpy prompts, held to the model
written again in numpy and to finite differences (double precision)."""
import unittest

import numpy as np

from helpers import fd_grad, linattn, np_loss, prompts, tiny_run

SHAPES = [dict(param="sparse"), dict(param="dense"), dict(param="pgd"),
          dict(param="sparse", attention="relu"), dict(param="dense", front=3)]


class ModelAgainstNumpy(unittest.TestCase):
    def setUp(self):
        self.z, self.y = prompts(2, 3, 5, seed=1)

    def each_shape(self):
        for kw in SHAPES:
            run = tiny_run(**kw)
            theta = run.model.init_params(11) * 8  # away from 0: every term counts
            f = lambda t, kw=kw: np_loss(t, self.z, self.y, 2, 3, 2, **kw)  # noqa: E731
            yield kw, run, theta, f

    def test_loss_and_predictions_equal_numpy(self):
        for kw, run, theta, f in self.each_shape():
            loss, pred = run.model.loss(theta, (self.z, self.y), predictions=True)
            want, want_pred = np_loss(theta, self.z, self.y, 2, 3, 2, predictions=True, **kw)
            self.assertAlmostEqual(loss / want, 1, delta=1e-12, msg=kw)
            np.testing.assert_allclose(pred, want_pred, rtol=1e-11, atol=1e-13, err_msg=kw)

    def test_gradient_equals_finite_differences_of_numpy_loss(self):
        for kw, run, theta, f in self.each_shape():
            loss, g = run.model.grad(theta, (self.z, self.y))
            want = fd_grad(f, theta, 1e-4)
            self.assertAlmostEqual(loss / f(theta), 1, delta=1e-12)
            err = np.max(np.abs(g - want)) / np.max(np.abs(want))
            self.assertLess(err, 1e-8, kw)

    def test_hvp_symmetric_and_equal_to_gradient_differences(self):
        g = np.random.default_rng(5)
        batch = linattn.Batch(self.z, self.y, "double")
        for kw, run, theta, f in self.each_shape():
            m = run.model
            u, v = g.standard_normal(m.nparams), g.standard_normal(m.nparams)
            hv, hu = m.hvp(theta, batch, v), m.hvp(theta, batch, u)
            scale = np.linalg.norm(hv) * np.linalg.norm(u)
            self.assertLess(abs(u @ hv - v @ hu), 1e-12 * scale, kw)
            h = 1e-4
            gr = lambda t: m.grad(t, batch)[1]  # noqa: E731
            want = (-gr(theta + 2 * h * v) + 8 * gr(theta + h * v) - 8 * gr(theta - h * v)
                    + gr(theta - 2 * h * v)) / (12 * h)
            self.assertLess(np.max(np.abs(hv - want)) / np.max(np.abs(want)), 1e-8, kw)

    def test_hessian_dense_and_diagonal_from_products(self):
        run = tiny_run()
        m, batch = run.model, linattn.Batch(self.z, self.y, "double")
        theta = m.init_params(2) * 8
        H = m.hessian(theta, batch)
        cols = np.stack([m.hvp(theta, batch, e) for e in np.eye(m.nparams)], axis=1)
        np.testing.assert_allclose(H, (cols + cols.T) / 2, rtol=0, atol=1e-12 * np.abs(H).max())
        np.testing.assert_array_equal(H, H.T)
        np.testing.assert_allclose(m.hessian_diag(theta, batch), np.diag(cols), rtol=1e-13)


class BatchesAndPrompts(unittest.TestCase):
    def test_batch_keeps_the_prompts(self):
        z, y = prompts(3, 4, 11, seed=2)  # 11: a panel and part of one
        for precision in ("float", "double"):
            b = linattn.Batch(z, y, precision)
            self.assertEqual((b.count, b.d, b.n), (11, 3, 4))
            dt = np.float32 if precision == "float" else np.float64
            np.testing.assert_array_equal(b.z, z.astype(dt))
            np.testing.assert_array_equal(b.y, y.astype(dt))

    def test_bad_prompts_are_errors(self):
        with self.assertRaises(ValueError):
            linattn.Batch(np.zeros((4, 3)).ravel(), np.zeros(1), "double")
        with self.assertRaises(ValueError):
            linattn.Batch(np.zeros((2, 3, 4)), np.zeros(3), "double")
        with self.assertRaises(linattn.LinattnError) as e:
            linattn.Batch(np.zeros((2, 300, 4)), np.zeros(2), "double")  # d beyond LA_MAX_D
        self.assertEqual(e.exception.name, "LA_EDIM")
        run = tiny_run()
        with self.assertRaises(linattn.LinattnError) as e:  # another n than the model's
            run.model.loss(np.zeros(run.nparams), prompts(2, 4, 3))
        self.assertEqual(e.exception.name, "LA_ESHAPE")
        with self.assertRaises(linattn.LinattnError) as e:
            theta = np.zeros(run.nparams)
            theta[0] = np.nan
            run.model.grad(theta, prompts(2, 3, 3))
        self.assertEqual(e.exception.name, "LA_ENONFINITE")
        self.assertEqual(e.exception.status, -7)
        with self.assertRaises(ValueError):
            run.model.loss(np.zeros(run.nparams + 1), prompts(2, 3, 3))

    def test_samples_are_the_training_batches(self):
        # SGD without momentum or clipping: the first step is -lr times the
        # gradient on the batch of step 0, which sample(stream=0) draws
        run = tiny_run(opt="sgd", lr=0.05, momentum=0, clip=0)
        theta0 = run.theta.copy()
        b = run.sample(8, stream=0)
        _, g = run.model.grad(theta0, b)
        run.train(1)
        np.testing.assert_allclose(run.theta, theta0 - 0.05 * g, rtol=0, atol=1e-15)
        self.assertFalse(np.array_equal(run.sample(8, stream=1).z, b.z))
        rng = linattn.Rng(3, 0)  # drawn twice from one generator: two batches
        a1, a2 = run.sample(8, rng=rng), run.sample(8, rng=rng)
        np.testing.assert_array_equal(a1.z, b.z)
        self.assertFalse(np.array_equal(a2.z, a1.z))

    def test_init_params_is_the_runs_theta_at_step_0(self):
        run = tiny_run(seed=9)
        np.testing.assert_array_equal(run.model.init_params(9), run.theta)

    def test_blocks_tile_theta(self):
        run = tiny_run(front=3, param="dense")
        blocks = run.model.blocks()
        self.assertEqual(blocks[0].offset, 0)
        self.assertEqual(sum(int(np.prod(b.shape)) for b in blocks), run.nparams)
        for b1, b2 in zip(blocks, blocks[1:]):
            self.assertEqual(b1.offset + int(np.prod(b1.shape)), b2.offset)
        self.assertEqual([b.name for b in blocks], ["P", "Q", "P", "Q", "W1", "b1", "W2", "b2"])


class NamedMatrices(unittest.TestCase):
    def test_the_packing_of_theta_by_name(self):
        # each packing, written again from the header's PACKING OF THETA
        d, D, L = 2, 3, 2
        cases = [(dict(param="sparse"), {"B": (L, d, d), "A": (L, d, d)}),
                 (dict(param="dense"), {"P": (L, D, D), "Q": (L, D, D)}),
                 (dict(param="pgd"), {"A": (L, d, d)}),
                 (dict(param="dense", qk_rank=2, heads=3),
                  {"P": (L, 3, D, D), "W_K": (L, 3, 2, D), "W_Q": (L, 3, 2, D)}),
                 (dict(param="sparse", front=4),
                  {"B": (L, d, d), "A": (L, d, d), "W1": (4, d), "b1": (4, 1),
                   "W2": (d, 4), "b2": (d, 1)})]
        for kw, shapes in cases:
            run = tiny_run(**kw)
            theta = np.arange(run.nparams, dtype=float)
            m = run.model.matrices(theta)
            self.assertEqual({k: v.shape for k, v in m.items()}, shapes, kw)
            np.testing.assert_array_equal(run.model.theta_from(m), theta)
            # layer 0's first matrix is theta's first entries, row-major
            first = next(iter(m.values()))
            head0 = first[0, 0] if first.ndim == 4 else first[0]
            np.testing.assert_array_equal(head0.reshape(-1), theta[:head0.size])
        run = tiny_run(param="sparse")
        m = run.matrices()
        np.testing.assert_array_equal(m["B"][1], run.theta[8:12].reshape(2, 2))
        # the numpy model's P and Q from B and A: the same loss
        z, y = prompts(2, 3, 4, seed=6)
        self.assertAlmostEqual(run.model.loss(run.theta, (z, y)),
                               np_loss(run.theta, z, y, 2, 3, 2), delta=1e-12)

    def test_theta_from_checks_names_and_shapes(self):
        run = tiny_run()
        m = run.matrices()
        with self.assertRaises(linattn.LinattnError) as e:
            run.model.theta_from({"B": m["B"]})
        self.assertEqual(e.exception.name, "LA_ESHAPE")
        with self.assertRaises(ValueError):
            run.model.theta_from(dict(m, A=m["A"][:1]))


if __name__ == "__main__":
    unittest.main()
