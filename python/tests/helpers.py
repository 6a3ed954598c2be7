"""What the tests share: the package from this checkout, the `linattn`
command (LINATTN_CLI), a model written again in numpy, finite differences."""
import json
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

import numpy as np  # noqa: E402

import linattn  # noqa: E402

CLI = os.environ.get("LINATTN_CLI")


def need_cli(test):
    """Skips a test that compares with the `linattn` command when it is not
    given (LINATTN_CLI=build/linattn)."""
    return unittest.skipUnless(CLI and os.path.isfile(CLI),
                               "LINATTN_CLI names no linattn command")(test)


def cli(*args, cwd=None):
    """Runs the command; its stdout (fails the test on a non-zero exit)."""
    done = subprocess.run([CLI] + [str(a) for a in args], capture_output=True, text=True,
                          cwd=cwd)
    if done.returncode != 0:
        raise AssertionError("linattn %s: exit %d: %s" % (" ".join(map(str, args)),
                                                         done.returncode, done.stderr))
    return done.stdout


def cli_fails(*args):
    """Runs the command expecting it to refuse; its stderr."""
    done = subprocess.run([CLI] + [str(a) for a in args], capture_output=True, text=True)
    if done.returncode == 0:
        raise AssertionError("linattn %s: accepted" % " ".join(map(str, args)))
    return done.stderr


# The flags of the command that the CLI's split may rename, in one place:
# the checkpoint a measurement reads (noise, curvature) and a folder output.
AT = "--at"
OUT_DIR = "--out-dir"


def jsonl(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


class TempDir(unittest.TestCase):
    """A test case with a fresh folder, self.tmp."""

    def setUp(self):
        self._dir = tempfile.TemporaryDirectory(prefix="linattn-py-")
        self.tmp = self._dir.name

    def tearDown(self):
        self._dir.cleanup()

    def path(self, name):
        return os.path.join(self.tmp, name)


def tiny_run(precision="double", **kw):
    """A tiny model's run: d = 2, n = 3, L = 2, 8 prompts a batch."""
    fields = dict(d=2, n=3, depth=2, batch=8, eval_batch=8, steps=20, seed=3)
    fields.update(kw)
    return linattn.Run("1", precision=precision, **fields)


def prompts(d, n, count, seed=0):
    """Prompts Z0 = [[x_1..x_n x_q], [y_1..y_n 0]] and targets, in numpy."""
    g = np.random.default_rng(seed)
    x = g.standard_normal((count, d, n + 1))
    w = g.standard_normal((count, d))
    y = np.einsum("cd,cdn->cn", w, x)
    z = np.zeros((count, d + 1, n + 1))
    z[:, :d, :] = x
    z[:, d, :n] = y[:, :n]
    return z, y[:, n]


def np_loss(theta, z, y, d, n, layers, param="sparse", attention="linear", front=0,
            predictions=False):
    """The model of the header's THE PACKING OF THETA and its loss, written
    again here from the formula:
        Z_{l+1} = Z_l + (1/n) P_l Z_l M act(Z_l^T Q_l Z_l)
    prediction -[Z_L]_{d+1,n+1}, loss the mean of ([Z_L]_{d+1,n+1} + y)^2."""
    D = d + 1
    theta = np.asarray(theta, dtype=np.float64)
    at = [0]

    def take(*shape):
        k = int(np.prod(shape))
        out = theta[at[0]:at[0] + k].reshape(shape)
        at[0] += k
        return out

    Ps, Qs = [], []
    for _ in range(layers):
        P, Q = np.zeros((D, D)), np.zeros((D, D))
        if param == "dense":
            P, Q = take(D, D), take(D, D)
        elif param == "sparse":
            P[:d, :d] = take(d, d)
            P[d, d] = 1
            Q[:d, :d] = take(d, d)
        else:  # pgd
            P[d, d] = 1
            Q[:d, :d] = take(d, d)
        Ps.append(P)
        Qs.append(Q)
    Z = np.array(z, dtype=np.float64)
    if front:
        W1, b1, W2, b2 = take(front, d), take(front), take(d, front), take(d)
        X = Z[:, :d, :]
        H = np.maximum(np.einsum("hd,cdt->cht", W1, X) + b1[None, :, None], 0)
        Z[:, :d, :] = np.einsum("dh,cht->cdt", W2, H) + b2[None, :, None]
    assert at[0] == theta.size, (at[0], theta.size)
    M = np.diag([1.0] * n + [0.0])
    for P, Q in zip(Ps, Qs):
        S = np.einsum("cia,ij,cjb->cab", Z, Q, Z)
        if attention == "relu":
            S = np.maximum(S, 0)
        Z = Z + np.einsum("ij,cjt,tu,cub->cib", P, Z, M, S) / n
    out = Z[:, d, n]
    loss = np.mean((out + y) ** 2)
    return (loss, -out) if predictions else loss


def fd_grad(f, x, h):
    """The gradient of f at x by the 4-point central stencil (error h^4)."""
    g = np.zeros_like(x)
    for i in range(x.size):
        e = np.zeros_like(x)
        e[i] = h
        g[i] = (-f(x + 2 * e) + 8 * f(x + e) - 8 * f(x - e) + f(x - 2 * e)) / (12 * h)
    return g
