"""linattn held to a linear transformer written in PyTorch from paper A's
definitions alone (not from linattn's code, not through linattn.torch):
the same prompts and initial theta given to `linattn train` (--data-file,
--init-theta), 50 steps of momentum SGD and of Adam with global-norm
clipping at 1, the training losses compared at every step; then the
Hessian's diagonal at the run's final theta, linattn's (the Python package)
against torch.autograd.functional.hessian. Skipped where torch does not
import (Debian: python3-torch) or where no `linattn` command is given."""
import json
import os
import subprocess
import unittest

import numpy as np

from helpers import CLI, TempDir, linattn, need_cli

try:
    import torch
except ImportError:  # pragma: no cover - the skip says so
    torch = None

need_torch = unittest.skipIf(torch is None, "torch does not import (Debian: python3-torch)")

# Paper A's Setting 1 (linattn's preset "1"): d = 5, n = 20, L = 3, the
# sparse parametrization P = [[B, 0], [0, 1]], Q = [[A, 0], [0, 0]].
D, N, L = 5, 20, 3  # d, n, L (D is d here, not the header's d + 1)
STEPS, BATCH = 50, 500
HESS_BATCH = 100  # the Hessian's batch: 150 second backward passes over it
LR = {"sgd": 0.02, "adam": 0.02}  # paper A's code's rates for Setting 1, L = 3

# The command is the float build (`make` builds only that one). Its theta,
# gradient and update are float32 while torch runs in float64; the data and
# the initial theta are float32 values, so both start from the same numbers
# and part by float rounding (about 6e-8 an operation, the loss a mean over
# 500 prompts) and by the clipping's 1e-6 (torch_train): observed up to
# 1.2e-6 relative over the 50 steps (a double build of the command: 7e-7,
# the clipping's; with linattn's clipping in torch as well, 4e-10). 1e-4
# leaves room for the drift the training adds and still catches a wrong
# convention (a sign, the mask, A for A^T, a 1/2 in the loss: 6e-2 to 1.4),
# a momentum of 0.899 (1e-2) or a clip at 1.01 (4e-3).
LOSS_RTOL = 1e-4
# Both Hessian diagonals are computed in double (the package's double
# library, torch's float64) at the same theta on the same batch. Entries
# span orders of magnitude (the P blocks' against the A blocks', the
# last layer's B exactly zero), and a small entry is a sum over prompts
# whose terms are as large as the large entries': its rounding error is
# the large entries' rounding error, so the error is measured against the
# largest entry.
HESS_RTOL = 1e-5


# ------------------------------------------------- the model, in torch
def unpack(theta):
    """linattn's packing of a sparse theta (the header's THE PACKING OF
    THETA): per layer B (d x d) then A (d x d), row-major. The P_l and
    Q_l of the paper, (D + 1) x (D + 1)."""
    Ps, Qs = [], []
    corner = torch.zeros(D + 1, D + 1, dtype=theta.dtype)
    corner[D, D] = 1
    for layer in theta.reshape(L, 2, D, D):
        B, A = layer[0], layer[1]
        Ps.append(torch.nn.functional.pad(B, (0, 1, 0, 1)) + corner)
        Qs.append(torch.nn.functional.pad(A, (0, 1, 0, 1)))
    return Ps, Qs


def loss_of(theta, Z0, yq):
    """Paper A: Z_{l+1} = Z_l + (1/n) P_l Z_l M (Z_l^T Q_l Z_l), M =
    diag(I_n, 0), prediction -[Z_L]_{d+1,n+1}, the loss the mean over the
    prompts of (prediction - y_q)^2 (no 1/2). Z0 is (count, d+1, n+1),
    tokens as columns, the query's label 0."""
    Ps, Qs = unpack(theta)
    mask = torch.ones(N + 1, dtype=Z0.dtype)
    mask[N] = 0  # the query is no key, no value
    Z = Z0
    for P, Q in zip(Ps, Qs):
        scores = Z.transpose(1, 2) @ Q @ Z  # (count, n+1, n+1): z_i^T Q z_j
        Z = Z + (P @ (Z * mask) @ scores) / N
    prediction = -Z[:, D, N]
    return torch.mean((prediction - yq) ** 2)


# ------------------------------------------------- what both are given
def draw(steps, count):
    """A batch a step from linattn's Setting 1 sampler (float: the values
    the float command reads exactly): z (steps, count, d+1, n+1), y
    (steps, count)."""
    run = linattn.Run("1", precision="float", batch=count, seed=11)
    zs, ys = [], []
    for t in range(steps):
        b = run.sample(count, stream=t)
        zs.append(b.z.astype(np.float64))
        ys.append(b.y.astype(np.float64))
    return np.stack(zs), np.stack(ys)


def data_file(z, y):
    """The stack --data-file reads: (T, B, n+1, d+1) in paper A's code's
    layout, a prompt's tokens as rows, the query's row [x_q, y_q] holding
    its target."""
    tok = np.swapaxes(z, 2, 3).copy()
    tok[:, :, N, D] = y
    return tok


def allparam(theta):
    """theta as paper A's code's allparam (L, 1, 2, d, d): P's block B as it
    is, Q the transpose of linattn's A (that code scores z_out^T Q z_key;
    linattn, like the paper, z_key^T A z_out)."""
    m = np.asarray(theta).reshape(L, 2, D, D).copy()
    m[:, 1] = np.swapaxes(m[:, 1], 1, 2)
    return m[:, None]


def optimizer_flags(opt):
    """Every field the two optimizers share, given on the command line."""
    common = ["--lr", LR[opt], "--weight-decay", 0, "--clip", 1, "--clip-block", 0,
              "--schedule", "constant", "--warmup", 0]
    if opt == "sgd":
        return ["--opt", "sgd", "--momentum", 0.9] + common
    return ["--opt", "adam", "--beta1", 0.9, "--beta2", 0.9, "--eps", 1e-8,
            "--decoupled"] + common


def torch_optimizer(opt, params):
    if opt == "sgd":
        return torch.optim.SGD(params, lr=LR[opt], momentum=0.9, dampening=0,
                               nesterov=False, weight_decay=0)
    return torch.optim.AdamW(params, lr=LR[opt], betas=(0.9, 0.9), eps=1e-8,
                             weight_decay=0)


def torch_train(opt, theta0, z, y):
    """The training losses (each step's, before its update) and the final
    theta. torch's clip_grad_norm_ scales by 1 / (norm + 1e-6), linattn's
    by 1 / norm: a 1e-6 relative difference when the clip acts, far under
    the tolerance."""
    theta = torch.nn.Parameter(torch.tensor(theta0, dtype=torch.float64))
    o = torch_optimizer(opt, [theta])
    losses = []
    for t in range(z.shape[0]):
        o.zero_grad()
        loss = loss_of(theta, torch.tensor(z[t]), torch.tensor(y[t]))
        loss.backward()
        torch.nn.utils.clip_grad_norm_([theta], 1.0)
        o.step()
        losses.append(loss.item())
    return np.array(losses), theta.detach().numpy().copy()


@need_torch
@need_cli
class CrossCheck(TempDir):
    @classmethod
    def setUpClass(cls):
        cls.z, cls.y = draw(STEPS + 1, BATCH)  # the last: the Hessian's batch
        g = np.random.default_rng(5)  # paper A's init, N(0, 0.05^2), as float32 values
        cls.theta0 = (0.05 * g.standard_normal(L * 2 * D * D)).astype(np.float32)
        cls.theta0 = cls.theta0.astype(np.float64)
        cls.results = {}

    def linattn_train(self, opt):
        """`linattn train` on the files: its config line, its per-step
        training losses and its final theta (--save-theta's last row)."""
        data, init = self.path("data.npy"), self.path("init.npy")
        out, saved = self.path(opt + ".jsonl"), self.path(opt + "-theta.npy")
        np.save(data, data_file(self.z[:STEPS], self.y[:STEPS]))
        np.save(init, allparam(self.theta0))
        args = ["train", "--preset", "1", "--setting", "1", "--d", D, "--n", N,
                "--depth", L, "--param", "sparse", "--attention", "linear", "--heads", 1,
                "--qk-rank", 0, "--front", 0, "--batch", BATCH, "--data", "given",
                "--steps", STEPS, "--log-every", 1, "--eval-every", 0, "--threads", 1,
                "--data-file", data, "--init-theta", init, "--save-theta", saved,
                "--save-theta-every", STEPS, "--out", out] + optimizer_flags(opt)
        done = subprocess.run([CLI] + [str(a) for a in args], capture_output=True, text=True)
        self.assertEqual(done.returncode, 0, done.stderr)
        with open(out) as f:
            lines = [json.loads(s) for s in f if s.strip()]
        config = lines[0]
        steps = [r for r in lines if r.get("type") == "step" and "loss" in r]
        self.assertEqual([r["step"] for r in steps], list(range(1, STEPS + 1)))
        rows = np.load(saved)
        self.assertEqual(rows[-1, 0], STEPS)
        return config, np.array([r["loss"] for r in steps]), rows[-1, 1:]

    def check_optimizer(self, opt):
        config, ours, theta = self.linattn_train(opt)
        # the run is the one torch trains: no field left to a default unseen
        want = {"opt": opt, "lr": LR[opt], "weight_decay": 0, "clip": 1, "clip_block": 0,
                "schedule": "constant", "warmup": 0, "d": D, "n": N, "depth": L,
                "param": "sparse", "attention": "linear", "heads": 1, "front": 0,
                "batch": BATCH, "data": "given", "steps": STEPS}
        want.update({"momentum": 0.9, "nesterov": 0} if opt == "sgd" else
                    {"beta1": 0.9, "beta2": 0.9, "eps": 1e-8, "decoupled": 1})
        self.assertEqual({k: config[k] for k in want}, want)
        theirs, _ = torch_train(opt, self.theta0, self.z[:STEPS], self.y[:STEPS])
        rel = np.abs(ours - theirs) / np.abs(theirs)
        self.results[opt] = rel.max()
        self.assertLess(rel.max(), LOSS_RTOL,
                        "%s: step %d, linattn %.9g, torch %.9g"
                        % (opt, rel.argmax() + 1, ours[rel.argmax()], theirs[rel.argmax()]))
        # the losses moved: a run that did nothing would agree trivially
        self.assertLess(ours[-1], 0.9 * ours[0])
        return theta

    def test_sgd_losses_agree_at_every_step(self):
        self.check_optimizer("sgd")

    def test_adam_losses_and_hessian_diagonal_agree(self):
        theta = self.check_optimizer("adam")
        run = linattn.Run("1", precision="double", batch=BATCH)
        z, y = self.z[STEPS, :HESS_BATCH], self.y[STEPS, :HESS_BATCH]
        ours = run.model.hessian_diag(theta, linattn.Batch(z, y, precision="double"))
        Z, yq = torch.tensor(z), torch.tensor(y)
        H = torch.autograd.functional.hessian(lambda th: loss_of(th, Z, yq),
                                              torch.tensor(theta))
        theirs = torch.diagonal(H).numpy()
        err = np.abs(ours - theirs).max() / np.abs(theirs).max()
        self.results["hessian"] = err
        self.assertLess(err, HESS_RTOL)
        # the last layer's B never reaches the loss: zero in both
        last_b = slice((L - 1) * 2 * D * D, (L - 1) * 2 * D * D + D * D)
        np.testing.assert_array_equal(theirs[last_b], 0)
        np.testing.assert_array_equal(ours[last_b], 0)

    @classmethod
    def tearDownClass(cls):
        if os.environ.get("LINATTN_CROSSCHECK_VERBOSE"):
            print("torch cross-check:", cls.results)


if __name__ == "__main__":
    unittest.main()
