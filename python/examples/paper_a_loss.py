"""Paper A's loss curves from Python: momentum SGD against Adam (betas 0.9,
0.9) on Setting 1, global clipping at 1, several seeds; the evaluation loss
over the iterations on a log scale, the mean and the band from the best to
the worst seed, as `linattn reproduce` draws it in loss.svg.

    python3 python/examples/paper_a_loss.py [--steps 2000] [--seeds 4]
                                            [--out loss_curves.png]

With matplotlib, a figure; without it, the table of the same numbers.
--csv FILE also writes every run's evaluation losses (long form: optimizer,
seed, step, eval_loss) for pandas."""
import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir))
import linattn  # noqa: E402


def curves(opt, seeds, steps, precision):
    """Each seed's (steps, eval losses) of Setting 1 under opt."""
    out = []
    for seed in range(1, seeds + 1):
        run = linattn.Run("1", opt=opt, seed=seed, steps=steps, precision=precision)
        run.train()
        h = run.history
        at = np.isfinite(h["eval_loss"])
        out.append((h["step"][at], h["eval_loss"][at]))
        print("%-4s seed %d: eval loss %.4g -> %.4g" % (opt, seed, h["eval_loss"][at][0],
                                                       h["eval_loss"][at][-1]))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--steps", type=int, default=2000)
    ap.add_argument("--seeds", type=int, default=4)
    ap.add_argument("--out", default="loss_curves.png")
    ap.add_argument("--csv", default=None)
    ap.add_argument("--precision", default=None, choices=("float", "double"))
    a = ap.parse_args()
    runs = {opt: curves(opt, a.seeds, a.steps, a.precision) for opt in ("sgd", "adam")}
    if a.csv:
        with open(a.csv, "w") as f:
            f.write("optimizer,seed,step,eval_loss\n")
            for opt, rs in runs.items():
                for seed, (x, y) in enumerate(rs, 1):
                    for s, v in zip(x, y):
                        f.write("%s,%d,%d,%r\n" % (opt, seed, s, v))
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is not installed: the curves as a table")
        x = runs["sgd"][0][0]
        print("%8s %14s %14s" % ("step", "SGD mean", "Adam mean"))
        for i in range(0, len(x), max(1, len(x) // 10)):
            print("%8d %14.5g %14.5g" % (x[i], np.mean([y[i] for _, y in runs["sgd"]]),
                                         np.mean([y[i] for _, y in runs["adam"]])))
        return 0
    fig, ax = plt.subplots(figsize=(6.4, 4))
    for opt, label in (("sgd", "SGD (momentum 0.9)"), ("adam", "Adam (0.9, 0.9)")):
        x = runs[opt][0][0]
        ys = np.array([y for _, y in runs[opt]])
        line, = ax.plot(x, ys.mean(axis=0), label=label)
        ax.fill_between(x, ys.min(axis=0), ys.max(axis=0), color=line.get_color(),
                        alpha=0.2, linewidth=0)
    ax.set_yscale("log")
    ax.set_xlabel("iteration")
    ax.set_ylabel("evaluation loss")
    ax.set_title("Setting 1, L = 3: %d seeds (band: min to max)" % a.seeds)
    ax.legend()
    fig.tight_layout()
    fig.savefig(a.out, dpi=120)
    print("figure: %s" % a.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
