"""Runs from Python: the callback, the history, the views of theta, and the
same run through `linattn` giving the same numbers bit for bit (float, the
command's precision)."""
import os
import unittest

import numpy as np

from helpers import TempDir, cli, jsonl, linattn, need_cli, tiny_run

SMALL = dict(batch=64, eval_batch=64, eval_every=10, seed=4)
FLAGS = ["--batch", "64", "--eval-batch", "64", "--eval-every", "10", "--seed", "4"]


class Training(unittest.TestCase):
    def test_callback_every_k_steps_with_a_view_of_theta(self):
        run = tiny_run(eval_every=5)
        seen = []

        def cb(rec):
            self.assertFalse(rec.theta.flags.writeable)
            self.assertEqual(rec.theta.dtype, np.float64)
            np.testing.assert_array_equal(rec.theta, run.theta)  # the run's own
            seen.append((rec.step, rec.loss, rec.eval_loss, rec.theta.copy()))
        run.train(12, every=4, callback=cb)
        self.assertEqual([s for s, *_ in seen], [4, 8, 12])
        h = run.history
        self.assertEqual(list(h["step"]), list(range(13)))  # step 0 is the start
        self.assertTrue(np.isnan(h["loss"][0]) and np.isfinite(h["eval_loss"][0]))
        self.assertEqual([s for s in h["step"] if np.isfinite(h["eval_loss"][s])],
                         [0, 5, 10])
        for step, loss, ev, th in seen:
            self.assertEqual(loss, h["loss"][step])
            self.assertTrue(np.isnan(ev) or ev == h["eval_loss"][step])
        self.assertFalse(np.array_equal(seen[0][3], seen[-1][3]))  # copies kept
        self.assertEqual(run.step, 12)
        run.train()  # up to the run's steps (20)
        self.assertEqual(run.step, 20)
        self.assertEqual(len(run.history["step"]), 21)

    def test_the_callback_stops_the_run_and_its_errors_are_raised(self):
        run = tiny_run()
        run.train(50, every=1, callback=lambda r: r.step == 3)
        self.assertEqual(run.step, 3)

        def broken(rec):
            raise KeyError("from the callback")
        with self.assertRaises(KeyError):
            run.train(10, every=2, callback=broken)
        self.assertEqual(run.step, 4)  # stopped after the step that raised
        run.train(1)  # and the run goes on
        self.assertEqual(run.step, 5)

    def test_theta_view_is_read_only_and_set_theta_writes(self):
        run = tiny_run()
        view = run.theta
        with self.assertRaises(ValueError):
            view[0] = 1
        new = np.arange(run.nparams, dtype=float) / 100
        run.set_theta(new)
        np.testing.assert_array_equal(view, new)  # the view sees the run's theta
        self.assertAlmostEqual(run.eval_loss(), run.model.loss(new, run.eval_batch),
                               delta=0)

    def test_divergence_is_la_ediverged_and_keeps_the_last_finite_state(self):
        run = tiny_run(opt="sgd", lr=1e5, momentum=0, clip=0)
        with self.assertRaises(linattn.LinattnError) as e:
            run.train(50)
        self.assertEqual(e.exception.name, "LA_EDIVERGED")
        self.assertTrue(np.all(np.isfinite(run.theta)))

    def test_double_and_float_runs(self):
        for p in ("float", "double"):
            run = tiny_run(precision=p)
            run.train(3)
            self.assertEqual(run.theta.dtype, np.float32 if p == "float" else np.float64)
            self.assertEqual(run.precision, p)
        # one description, both precisions: the same run, its theta at the
        # start equal to float's rounding (the batches differ: LA_W prompts
        # a panel is 8 or 4)
        cfg = linattn.RunConfig("1", opt="sgd", beta1=None, steps=5, batch=32,
                                precision="float")
        f, d = linattn.Run(cfg), linattn.Run(cfg, precision="double")
        self.assertEqual(d.config, cfg.resolve())
        self.assertEqual(d.config.to_dict(), f.config.to_dict())
        np.testing.assert_allclose(f.theta, d.theta, rtol=2 ** -23)


class Checkpoints(TempDir):
    def test_save_resume_and_bytes(self):
        a = tiny_run(data="resample", resample_every=3)
        a.train(7)
        path = self.path("a.ckpt")
        a.save(path)
        with open(path, "rb") as f:
            self.assertEqual(f.read(), a.to_bytes())
        b = linattn.Run.resume(path, precision="double")
        c = linattn.Run.resume(a.to_bytes(), precision="double", steps=30)
        self.assertEqual((b.step, c.config["steps"]), (7, 30))
        a.train(8)
        b.train(8)
        c.train()
        np.testing.assert_array_equal(a.theta, b.theta)
        self.assertEqual(c.step, 30)
        with self.assertRaises(linattn.LinattnError) as e:
            linattn.Run.resume(path, precision="double", lr=0.5)
        self.assertEqual(e.exception.name, "LA_ESHAPE")
        self.assertIn("lr", str(e.exception))
        with self.assertRaises(linattn.LinattnError) as e:
            a.save(self.tmp)  # a folder
        self.assertEqual(e.exception.name, "LA_EIO")
        with open(self.path("junk"), "wb") as f:
            f.write(b"not a checkpoint")
        with self.assertRaises(linattn.LinattnError) as e:
            linattn.Run.resume(self.path("junk"), precision="double")
        self.assertEqual(e.exception.name, "LA_EFORMAT")


class AgainstTheCommand(TempDir):
    @need_cli
    def test_a_run_equals_linattn_trains_bit_for_bit(self):
        ck, out, th = self.path("c.ckpt"), self.path("c.jsonl"), self.path("th.npy")
        cli("train", "--steps", "25", "--opt", "sgd", "--save-theta", th,
            "--save-theta-every", "10", "--checkpoint", ck, "--out", out, *FLAGS)
        run = linattn.Run("1", opt="sgd", steps=25, precision="float", **SMALL)
        kept = {0: run.theta.astype(np.float64)}

        def keep(rec):
            kept[rec.step] = rec.theta.astype(np.float64)
        run.train(every=1, callback=keep)
        ref = linattn.read_checkpoint(ck)  # Python alone, not the library
        np.testing.assert_array_equal(ref.theta, run.theta.astype(np.float64))
        self.assertEqual(ref.step, 25)
        # the trajectory: rows at 0, 10, 20 and the last step
        traj = np.load(th)
        self.assertEqual(traj.dtype, np.float64)
        self.assertEqual(list(traj[:, 0]), [0, 10, 20, 25])
        for row in traj:
            np.testing.assert_array_equal(row[1:], kept[int(row[0])])
        # the records: the eval losses of the JSON lines (10 digits)
        h = run.history
        for line in jsonl(out):
            if line["type"] == "step" and "eval_loss" in line:
                self.assertAlmostEqual(line["eval_loss"], h["eval_loss"][line["step"]],
                                       delta=1e-9 * line["eval_loss"])

    @need_cli
    def test_measurements_equal_the_commands(self):
        ck = self.path("m.ckpt")
        cli("train", "--steps", "20", "--checkpoint", ck, "--out", self.path("m.jsonl"),
            *FLAGS)
        run = linattn.Run.resume(ck, precision="float")
        s_npy, s_csv = self.path("s.npy"), self.path("s.csv")
        cli("noise", "--at", ck, "--samples", "30", "--minibatch", "50",
            "--true-batch", "500", "--bins", "10", "--out", self.path("n.json"),
            "--samples-out", s_npy)
        cli("noise", "--at", ck, "--samples", "30", "--minibatch", "50",
            "--true-batch", "500", "--bins", "10", "--out", self.path("n2.json"),
            "--samples-out", s_csv)
        noise = run.grad_noise(minibatch=50, true_batch=500, samples=30, bins=10)
        np.testing.assert_array_equal(np.load(s_npy), noise.norms)
        with open(s_csv) as f:
            self.assertEqual(f.readline().strip(), "norm")
            np.testing.assert_array_equal(np.array([float(x) for x in f]), noise.norms)
        obj = jsonl(self.path("n.json"))[0]
        self.assertAlmostEqual(obj["true_grad_norm"], noise.true_grad_norm,
                               delta=1e-9 * noise.true_grad_norm)
        np.testing.assert_allclose(obj["hist"], noise.stats.hist, rtol=1e-9)
        cli("curvature", "--at", ck, "--top", "3", "--out", self.path("c.json"))
        obj = jsonl(self.path("c.json"))[0]
        e = run.hessian_eigs(k=3)
        np.testing.assert_allclose(obj["top"], e.values, rtol=1e-9)
        rc = run.robust_cond()
        self.assertAlmostEqual(obj["rcond_diag"], rc.by_diag, delta=1e-9 * rc.by_diag)
        self.assertAlmostEqual(obj["lambda_max"], rc.lambda_max, delta=1e-9 * rc.lambda_max)

    @need_cli
    def test_a_killed_runs_trajectory_still_loads(self):
        import signal
        import subprocess
        import time
        th = self.path("k.npy")
        p = subprocess.Popen([os.environ["LINATTN_CLI"], "train", "--steps", "1000000",
                              "--batch", "64", "--save-theta", th, "--save-theta-every",
                              "1", "--out", os.devnull])
        deadline = time.time() + 60
        while time.time() < deadline and (not os.path.exists(th) or
                                          os.path.getsize(th) < 128 + 3 * 151 * 8):
            time.sleep(0.05)
        p.send_signal(signal.SIGKILL)
        p.wait()
        a = np.load(th)
        self.assertGreaterEqual(a.shape[0], 3)
        self.assertEqual(a.shape[1], 151)
        np.testing.assert_array_equal(a[:, 0], np.arange(a.shape[0]))


if __name__ == "__main__":
    unittest.main()
