"""linattn.torch: the model as a torch.autograd.Function, held to the
library bit for bit (gradient, Hessian-vector product by double backward),
trained by torch.optim's optimizers, and never imported by `import
linattn`. Skipped where torch does not import (Debian: python3-torch)."""
import os
import subprocess
import sys
import unittest

import numpy as np

from helpers import HERE, linattn, prompts, tiny_run

try:
    import torch
    import linattn.torch as lt
except ImportError:  # pragma: no cover - the skip says so
    torch = None

REPO = os.path.dirname(os.path.dirname(HERE))
need_torch = unittest.skipIf(torch is None, "torch does not import")


@need_torch
class Exact(unittest.TestCase):
    def setUp(self):
        self.run = tiny_run(front=3, param="dense")  # double
        self.batch = self.run.sample(16, stream=2)
        self.theta = torch.tensor(self.run.model.init_params(4) * 5, requires_grad=True)

    def test_gradient_and_hvp_are_the_librarys(self):
        m, th = self.run.model, self.theta.detach().numpy()
        loss = lt.loss(self.theta, self.batch, self.run)
        g, = torch.autograd.grad(loss, self.theta, create_graph=True)
        want_loss, want_g = m.grad(th, self.batch)
        self.assertEqual(loss.item(), want_loss)
        np.testing.assert_array_equal(g.detach().numpy(), want_g)
        v = torch.tensor(np.random.default_rng(1).standard_normal(m.nparams))
        hv, = torch.autograd.grad(g, self.theta, v)
        np.testing.assert_array_equal(hv.numpy(), m.hvp(th, self.batch, v.numpy()))
        # backward without create_graph: the same gradient
        self.theta.grad = None
        lt.loss(self.theta, self.batch, self.run).backward()
        np.testing.assert_array_equal(self.theta.grad.numpy(), want_g)
        # a third derivative is refused, not wrong
        g, = torch.autograd.grad(lt.loss(self.theta, self.batch, self.run), self.theta,
                                 create_graph=True)
        hv, = torch.autograd.grad((g * v).sum(), self.theta, create_graph=True)
        with self.assertRaises(RuntimeError):
            hv.sum().backward()

    def test_the_layout_of_paper_as_code(self):
        Z, y = lt.tensors(self.batch)
        self.assertEqual(tuple(Z.shape), (16, 3 + 1, 2 + 1))  # (B, n + 1, d + 1)
        np.testing.assert_array_equal(Z.numpy(), np.swapaxes(self.batch.z, 1, 2))
        np.testing.assert_array_equal(Z[:, -1, -1].numpy(), 0)  # the query's label
        want = self.run.model.loss(self.theta.detach().numpy(), self.batch)
        self.assertEqual(lt.loss(self.theta, (Z, y), self.run).item(), want)
        # a pair made in torch, and one changed in place: packed anew
        z, yq = prompts(2, 3, 5, seed=2)
        Z2, y2 = torch.tensor(np.swapaxes(z, 1, 2)), torch.tensor(yq)
        first = lt.loss(self.theta, (Z2, y2), self.run).item()
        self.assertEqual(first, self.run.model.loss(self.theta.detach().numpy(), (z, yq)))
        y2.mul_(2)
        self.assertNotEqual(lt.loss(self.theta, (Z2, y2), self.run).item(), first)
        Zs, ys = lt.sample(self.run, 16, stream=2)
        np.testing.assert_array_equal(Zs.numpy(), Z.numpy())

    def test_tensors_of_another_kind_are_refused(self):
        for bad in (self.theta.float(), self.theta.detach().numpy()):
            with self.assertRaises(TypeError):
                lt.loss(bad, self.batch, self.run)


@need_torch
class Optimizers(unittest.TestCase):
    def test_torch_optimizers_train_on_the_testbed(self):
        run = tiny_run(batch=64)
        batch = run.sample(64)
        for make in (lambda p: torch.optim.SGD(p, lr=0.05, momentum=0.9),
                     lambda p: torch.optim.AdamW(p, lr=0.02),
                     lambda p: torch.optim.Adagrad(p, lr=0.1),
                     lambda p: torch.optim.LBFGS(p, lr=1, max_iter=5)):
            theta = torch.nn.Parameter(torch.tensor(run.theta))
            opt = make([theta])

            def closure():
                opt.zero_grad()
                loss = lt.loss(theta, batch, run)
                loss.backward()
                return loss
            start = closure().item()
            for _ in range(30):
                opt.step(closure)
            self.assertLess(closure().item(), start / 2, type(opt).__name__)

    def test_adamw_equals_linattns_adam_step_by_step(self):
        done = subprocess.run([sys.executable, os.path.join(REPO, "python", "examples",
                                                            "torch_adamw.py"),
                               "--steps", "60", "--batch", "200"],
                              capture_output=True, text=True)
        self.assertEqual(done.returncode, 0, done.stdout + done.stderr)
        self.assertIn("largest relative difference over 60 steps", done.stdout)


class Imports(unittest.TestCase):
    def test_importing_linattn_never_imports_torch(self):
        code = ("import sys, linattn\n"
                "linattn.Run('1', steps=2, batch=10).train()\n"
                "assert 'torch' not in sys.modules, 'torch imported'\n")
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                              cwd=os.path.join(REPO, "python"))
        self.assertEqual(done.returncode, 0, done.stderr)


if __name__ == "__main__":
    unittest.main()
