"""Paper A's table from another program's files, by the command alone: a
generator written here in torch from paper A's definitions (Setting 1:
x ~ N(0, I_d), w ~ N(0, I_d), y = w^T x; the initialization N(0, 0.05^2)
as paper A's code's allparam) writes the training batches, the initial
theta and one Hessian batch; `linattn train --data-file --init-theta
--diag-file` trains on them and measures R = max|diag H| / median|diag H|
on the file's Hessian batch along the run; `linattn curvature --diag-file
--at` measures it again at the run's checkpoint; Run(batches=, theta0=,
hessian_batches=) does the same in Python. R at 750 and 1250 is held to
torch's R, the Hessian diagonal by torch.autograd on the same thetas and
the same batch. Skipped where torch does not import (Debian:
python3-torch) or where no `linattn` command is given."""
import json
import os
import unittest

import numpy as np

from helpers import TempDir, cli, cli_fails, jsonl, linattn, need_cli

try:
    import torch
except ImportError:  # pragma: no cover - the skip says so
    torch = None

need_torch = unittest.skipIf(torch is None, "torch does not import (Debian: python3-torch)")

D, N, L = 5, 20, 3  # Setting 1, depth 3
STEPS, BATCH, HESS_BATCH = 1250, 64, 200
AT = (750, 1250)  # paper A's table's iterations
# The command is the float build: its Hessian diagonal is float32 arithmetic
# on theta's float32 values, torch's float64 on the same values. R is a
# quotient of two entries, each off by float rounding relative to the
# largest entry (about 1e-6 here); the median entry is R times smaller, so
# R's relative error is about R * 1e-6 (R is 1 to 30 along this run).
# 1e-4 catches another median (the midpoint of the two middle values moves
# R by 1e-3 or more here), a transposed A, another batch.
R_RTOL = 1e-4


# ------------------------------------------------- paper A's definitions
def draw(gen, count):
    """count prompts of Setting 1 in paper A's code's token layout, (count,
    n+1, d+1): row j the token [x_j, y_j], the query's row [x_q, y_q]
    holding its target (the layout --data-file reads)."""
    x = torch.randn(count, N + 1, D, generator=gen, dtype=torch.float64)
    w = torch.randn(count, D, generator=gen, dtype=torch.float64)
    y = torch.einsum("cnd,cd->cn", x, w)
    return torch.cat([x, y[..., None]], dim=2).float().double().numpy()


def loss_of(allparam, tokens):
    """Paper A's code's model on its own parameters (allparam (L, 1, 2, d,
    d): P_l's block, then Q_l's): Z_{l+1} = Z_l + (1/n) Attn, the attention
    of the tokens z_i (rows) against the keys z_j, j < n, scored z_i^T Q
    z_j; the prediction minus the query's last entry after L layers; the
    loss the mean of (prediction - y_q)^2. tokens (count, n+1, d+1) as
    drawn: the query's label is zeroed here, the target kept."""
    Z = tokens.clone()
    yq = Z[:, N, D].clone()
    Z[:, N, D] = 0
    for layer in allparam:
        Pb, Qb = layer[0, 0], layer[0, 1]
        P = torch.zeros(D + 1, D + 1, dtype=Z.dtype)
        P[:D, :D] = Pb
        P[D, D] = 1
        Q = torch.zeros(D + 1, D + 1, dtype=Z.dtype)
        Q[:D, :D] = Qb
        keys = Z[:, :N, :]  # the query is no key, no value
        scores = Z @ Q @ keys.transpose(1, 2)  # (count, n+1, n): z_i^T Q z_j
        Z = Z + (scores @ keys @ P.T) / N
    return torch.mean((-Z[:, N, D] - yq) ** 2)


def torch_r(allparam, tokens):
    """R on the batch: max |H_ii| / the lower median of |H_ii| over every
    parameter (torch.median, as paper A's code takes it)."""
    shape = allparam.shape
    flat = torch.tensor(allparam, dtype=torch.float64).reshape(-1)
    tok = torch.tensor(tokens)
    H = torch.autograd.functional.hessian(lambda t: loss_of(t.reshape(shape), tok), flat)
    diag = torch.diagonal(H).abs()
    return (diag.max() / torch.median(diag)).item()


def as_allparam(theta):
    """linattn's packing (per layer B then A, row-major) as allparam: P's
    block is B, Q is A^T (paper A's code scores z_i^T Q z_j, linattn z_j^T
    A z_i): the inverse of what --init-theta reads."""
    m = np.asarray(theta, dtype=np.float64).reshape(L, 2, D, D).copy()
    m[:, 1] = np.swapaxes(m[:, 1], 1, 2)
    return m[:, None]


@need_torch
@need_cli
class DiagFile(TempDir):
    @classmethod
    def setUpClass(cls):
        gen = torch.Generator().manual_seed(20231002)
        cls.data = np.stack([draw(gen, BATCH) for _ in range(STEPS)])
        cls.hess = draw(gen, HESS_BATCH)
        theta = 0.05 * torch.randn(L, 1, 2, D, D, generator=gen, dtype=torch.float64)
        cls.theta0 = theta.float().double().numpy()
        cls.results = {}

    @classmethod
    def tearDownClass(cls):
        if os.environ.get("LINATTN_CROSSCHECK_VERBOSE"):
            print("R from files against torch (relative):", cls.results)

    def write(self):
        paths = {k: self.path(k + ".npy") for k in ("data", "init", "hess")}
        np.save(paths["data"], self.data)
        np.save(paths["init"], self.theta0)
        np.save(paths["hess"], self.hess)
        return paths

    def train(self, paths):
        out, th, ck = self.path("run.jsonl"), self.path("theta.npy"), self.path("run.ckpt")
        cli("train", "--preset", "1", "--opt", "adam", "--data-file", paths["data"],
            "--init-theta", paths["init"], "--diag-file", paths["hess"], "--diag-every", 250,
            "--smooth-every", 0, "--eval-every", 0, "--threads", 1, "--save-theta", th,
            "--save-theta-every", 250, "--checkpoint", ck, "--out", out)
        lines = jsonl(out)
        r = {s["step"]: s["rcond_diag"] for s in lines
             if s.get("type") == "step" and "rcond_diag" in s}
        rows = np.load(th)
        thetas = {int(row[0]): row[1:] for row in rows}
        return lines[0], r, thetas, ck

    def test_r_from_files_against_torch(self):
        paths = self.write()
        config, r, thetas, ck = self.train(paths)
        self.assertEqual((config["data"], config["steps"], config["batch"],
                          config["diag_batch"], config["diag_batches"]),
                         ("given", STEPS, BATCH, HESS_BATCH, 1))
        self.assertEqual(config["median"], "lower")
        # the run learned: R moved, the thetas are not the start
        self.assertGreater(np.abs(thetas[1250] - thetas[0]).max(), 0.1)
        for t in AT:
            theirs = torch_r(as_allparam(thetas[t]), self.hess)
            self.results[t] = (r[t], theirs, abs(r[t] / theirs - 1))
            self.assertLess(abs(r[t] / theirs - 1), R_RTOL,
                            "step %d: linattn %.9g, torch %.9g" % (t, r[t], theirs))
        # the start: theta0 read as allparam, R on the file's batch
        theirs0 = torch_r(self.theta0, self.hess)
        self.assertLess(abs(r[0] / theirs0 - 1), R_RTOL, (r[0], theirs0))
        # curvature at the run's end, on the same file: the same R
        out = self.path("curv.json")
        cli("curvature", "--data-file", paths["data"], "--init-theta", paths["init"],
            "--diag-file", paths["hess"], "--at", ck, "--top", 2, "--out", out)
        with open(out) as f:
            curv = json.load(f)
        self.assertEqual(curv["step"], STEPS)
        self.assertAlmostEqual(curv["rcond_diag"] / r[1250], 1, delta=1e-9)

    def test_python_run_on_the_same_files(self):
        # Run(batches=, theta0= allparam, hessian_batches=) is the command's
        # run: the same R at every measured step (the command's JSON holds 10
        # digits)
        paths = self.write()
        _, r, _, _ = self.train(paths)

        def batch(tok):
            q = tok.copy()
            y = q[:, N, D].copy()
            q[:, N, D] = 0
            return linattn.Batch.from_tokens(q, y, "float")
        run = linattn.Run("1", opt="adam", precision="float", threads=1,
                          batches=[batch(t) for t in self.data], theta0=self.theta0,
                          hessian_batches=[batch(self.hess)], diag_every=250,
                          smooth_every=0, eval_every=0)
        run.train()
        h = run.history
        ours = {int(s): v for s, v in zip(h["step"], h["rcond_diag"]) if np.isfinite(v)}
        self.assertEqual(sorted(ours), sorted(r))
        for t in r:
            self.assertAlmostEqual(ours[t] / r[t], 1, delta=1e-9, msg=t)


@need_cli
class GivenInputs(TempDir):
    """What another program's files must hold, said when they do not."""

    def stack(self, zero_labels=False):
        g = np.random.default_rng(3)
        x = g.standard_normal((2, 8, N + 1, D))
        w = g.standard_normal((2, 8, D))
        z = np.concatenate([x, np.einsum("tcnd,tcd->tcn", x, w)[..., None]], axis=3)
        if zero_labels:
            z[:, :, N, D] = 0  # the tokens as paper A's code returns them
        path = self.path("z%d.npy" % zero_labels)
        np.save(path, z)
        return path

    def test_all_zero_query_labels_refused_with_what_the_file_should_hold(self):
        err = cli_fails("train", "--data-file", self.stack(True), "--out", self.path("a"))
        self.assertIn("should hold each prompt's target", err)
        err = cli_fails("train", "--data-file", self.stack(), "--diag-file", self.stack(True),
                        "--out", self.path("b"))
        self.assertIn("--diag-file", err)

    def test_diag_file_shape_and_count(self):
        data = self.stack()
        err = cli_fails("train", "--data-file", data, "--diag-file", data, "--diag-batches",
                        3, "--out", self.path("c"))
        self.assertIn("--diag-batches 3 does not fit --diag-file", err)
        other = self.path("other.npy")
        np.save(other, np.ones((1, 4, N + 1, D + 2)))
        err = cli_fails("train", "--data-file", data, "--diag-file", other,
                        "--out", self.path("d"))
        self.assertIn("d = 6", err)

    def test_eval_every_0_no_evaluation(self):
        out = self.path("e.jsonl")
        cli("train", "--data-file", self.stack(), "--eval-every", 0, "--out", out)
        self.assertFalse(any("eval_loss" in s or "final_eval_loss" in s for s in jsonl(out)))

    def test_theta0_allparam_as_init_theta_or_refused(self):
        data = self.stack()
        g = np.random.default_rng(4)
        allp = 0.05 * g.standard_normal((L, 1, 2, D, D))
        init, ck = self.path("init.npy"), self.path("g.ckpt")
        np.save(init, allp)
        cli("train", "--data-file", data, "--init-theta", init, "--steps", 1,
            "--checkpoint", ck, "--out", self.path("f"))
        toks = np.load(data)
        q = toks.copy()
        y = q[:, :, N, D].copy()
        q[:, :, N, D] = 0
        bs = [linattn.Batch.from_tokens(q[t], y[t], "float") for t in range(2)]
        run = linattn.Run("1", precision="float", batches=bs, theta0=allp, steps=1)
        # the same start as the command's: B = P, A = Q^T
        want = np.concatenate([np.concatenate([blk[0, 0].ravel(), blk[0, 1].T.ravel()])
                               for blk in allp])
        np.testing.assert_array_equal(run.theta, want.astype(np.float32))
        run.train()
        np.testing.assert_array_equal(linattn.read_checkpoint(ck).theta,
                                      run.theta.astype(np.float64))
        with self.assertRaisesRegex(ValueError, "allparam"):
            linattn.Run("1", precision="float", batches=bs, theta0=allp[:, :, :, :, :4])
        with self.assertRaisesRegex(ValueError, "every target y_q is 0"):
            linattn.Run("1", precision="float",
                        batches=[linattn.Batch.from_tokens(q[0], 0 * y[0], "float")])
        with self.assertRaisesRegex(ValueError, "query row of prompt 0 holds"):
            linattn.Batch.from_tokens(toks[0], y[0], "float")


if __name__ == "__main__":
    unittest.main()
