"""PyTorch's AdamW trains the testbed through linattn.torch, against
linattn's own Adam on the same batches: paper A's Setting 1, betas 0.9 and
0.9, learning rate 0.02, no weight decay, no clipping (torch.optim has
none built in). Prints each optimizer's loss every 10 steps and the largest
relative difference of the losses over every step; exits 1 when it passes
--tol (default 1e-6).

In double (the default here) the two agree to rounding (4e-14 over 200
steps). In float torch keeps AdamW's moments in float32 where linattn keeps
them in double: the losses part by about 1e-5 after 200 steps.

    python3 python/examples/torch_adamw.py [--steps 100] [--batch 1000]
                                           [--precision double|float]"""
import argparse
import os
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir))
import linattn  # noqa: E402
import linattn.torch as lt  # noqa: E402


def torch_losses(steps, batch, precision):
    """AdamW over linattn.torch.loss, on the run's training batches."""
    run = linattn.Run("1", opt="adam", clip=0, batch=batch, precision=precision)
    theta = torch.nn.Parameter(torch.tensor(run.theta))  # the run's theta at step 0
    opt = torch.optim.AdamW([theta], lr=run.config.lr, betas=(0.9, 0.9),
                            eps=run.config.eps, weight_decay=0)
    out = []
    for t in range(steps):
        Z, y = lt.sample(run, batch, stream=t)  # fresh data: stream t is step t's batch
        opt.zero_grad()
        loss = lt.loss(theta, (Z, y), run)
        loss.backward()
        opt.step()
        out.append(loss.item())
    return np.array(out)


def linattn_losses(steps, batch, precision):
    run = linattn.Run("1", opt="adam", clip=0, batch=batch, steps=steps,
                      precision=precision, eval_every=-1)
    run.train()
    return run.history["loss"][1:]  # the training loss before each step


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--steps", type=int, default=100)
    ap.add_argument("--batch", type=int, default=1000)
    ap.add_argument("--precision", default="double", choices=("float", "double"))
    ap.add_argument("--tol", type=float, default=1e-6)
    a = ap.parse_args()
    mine = torch_losses(a.steps, a.batch, a.precision)
    ref = linattn_losses(a.steps, a.batch, a.precision)
    for t in range(0, a.steps, 10):
        print("step %4d  torch AdamW %.8g  linattn adam %.8g" % (t + 1, mine[t], ref[t]))
    rel = np.max(np.abs(mine - ref) / np.abs(ref))
    print("largest relative difference over %d steps: %.3g (torch %s)"
          % (a.steps, rel, torch.__version__))
    return 0 if rel <= a.tol else 1


if __name__ == "__main__":
    sys.exit(main())
