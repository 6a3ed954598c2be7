"""The README's Python: its notebook cell and its pandas lines run as
written (where matplotlib and pandas are installed), and the example that
redraws paper A's loss curves."""
import os
import re
import subprocess
import sys
import unittest

import numpy as np

from helpers import HERE, OUT_DIR, TempDir, cli, linattn, need_cli

REPO = os.path.dirname(os.path.dirname(HERE))


def readme_block(after):
    """The first ```python block after the line containing `after`."""
    with open(os.path.join(REPO, "README.md")) as f:
        text = f.read()
    at = text.index(after)
    m = re.compile(r"```python\n(.*?)```", re.S).search(text, at)
    return m.group(1)


def have(module):
    try:
        __import__(module)
        return True
    except ImportError:
        return False


class Readme(TempDir):
    @unittest.skipUnless(have("matplotlib"), "matplotlib is not installed")
    def test_the_notebook_cell(self):
        import matplotlib
        matplotlib.use("Agg")
        code = readme_block("A notebook cell")
        env = {}
        exec(compile(code, "README.md", "exec"), env)
        run, h, m = env["run"], env["h"], env["m"]
        self.assertEqual(run.step, 1000)
        self.assertEqual(list(h["step"][np.isfinite(h["rcond_diag"])]),
                         list(range(0, 1001, 100)))
        self.assertGreater(h["rcond_diag"][1000], 1)
        self.assertLess(h["eval_loss"][1000], h["eval_loss"][0] / 10)  # it trained
        self.assertEqual(m["B"].shape, (3, 5, 5))
        env["fig"].savefig(self.path("cell.png"))
        self.assertGreater(os.path.getsize(self.path("cell.png")), 1000)

    @unittest.skipUnless(have("torch"), "torch is not installed")
    def test_the_torch_example(self):
        code = readme_block("linattn.torch").replace("range(200)", "range(30)")
        env = {}
        exec(compile(code, "README.md", "exec"), env)
        run, theta = env["run"], env["theta"]
        batch = run.sample(1000, stream=1000)
        self.assertLess(run.model.loss(theta.detach().numpy(), batch),
                        run.model.loss(run.theta, batch) / 2)  # it trained

    def test_the_python_section_is_on_the_first_screen(self):
        with open(os.path.join(REPO, "README.md")) as f:
            lines = f.read().split("\n")
        two = lines.index("## Two commands")
        python = lines.index("## Python")
        self.assertEqual([x for x in lines[two + 1:python] if x.startswith("## ")], [])
        self.assertLess(python, 40)

    @need_cli
    @unittest.skipUnless(have("pandas"), "pandas is not installed")
    def test_pandas_in_five_lines(self):
        os.makedirs(self.path("runs"))
        for opt in ("sgd", "adam"):
            for seed in (1, 2):
                cli("train", "--opt", opt, "--seed", seed, "--steps", "20", "--batch", "50",
                    "--eval-every", "10", "--out", self.path("runs/%s-%d.jsonl" % (opt, seed)))
        cli("export", self.path("runs"), OUT_DIR, self.path("csv"))
        os.rename(self.path("runs/adam-1.jsonl"), self.path("run.jsonl"))
        code = readme_block("pandas in five lines")
        cwd = os.getcwd()
        os.chdir(self.tmp)
        try:
            env = {}
            exec(compile(code, "README.md", "exec"), env)
        finally:
            os.chdir(cwd)
        self.assertEqual(len(env["cfg"]), 4)
        self.assertIn("eval_loss", env["steps"].columns)


class Example(TempDir):
    def test_paper_a_loss_curves(self):
        out, csv = self.path("loss.png"), self.path("loss.csv")
        done = subprocess.run([sys.executable, os.path.join(REPO, "python", "examples",
                                                            "paper_a_loss.py"),
                               "--steps", "100", "--seeds", "2", "--out", out, "--csv", csv],
                              capture_output=True, text=True)
        self.assertEqual(done.returncode, 0, done.stderr)
        if have("matplotlib"):
            self.assertTrue(os.path.getsize(out) > 1000)
        else:
            self.assertIn("matplotlib is not installed", done.stdout)
        with open(csv) as f:
            rows = [line.strip().split(",") for line in f][1:]
        self.assertEqual(len(rows), 2 * 2 * 3)  # 2 optimizers, 2 seeds, steps 0, 50, 100
        run = linattn.Run("1", opt="adam", seed=2, steps=100)
        run.train()
        want = run.history["eval_loss"][100]
        got = [float(r[3]) for r in rows if r[:3] == ["adam", "2", "100"]]
        self.assertEqual(got, [want])


if __name__ == "__main__":
    unittest.main()
