"""Runs from Python: the callback, the history, the views of theta, and the
same run through `linattn` giving the same numbers bit for bit (float, the
command's precision)."""
import os
import unittest

import numpy as np

from helpers import AT, TempDir, cli, jsonl, linattn, need_cli, tiny_run

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
                                precision="float")  # None: not given
        f, d = linattn.Run(cfg), linattn.Run(cfg, precision="double")
        self.assertEqual(d.config, cfg.resolve())
        self.assertEqual(d.config.to_dict(), f.config.to_dict())
        np.testing.assert_allclose(f.theta, d.theta, rtol=2 ** -23)


    def test_arguments_are_refused_not_wrapped(self):
        run = tiny_run()
        for bad in (2 ** 64 + 3, 2 ** 70, -1, "10", 7.5, True, 1j):
            with self.assertRaises(ValueError, msg=repr(bad)) as e:
                run.train(bad)
            self.assertEqual(e.exception.name, "LA_ERANGE")
        self.assertEqual(run.step, 0)
        for call in (lambda: run.sample(2.5), lambda: run.sample(0),
                     lambda: run.train(1, every=0),
                     lambda: run.model.loss(run.theta + 1j, run.eval_batch),
                     lambda: run.set_theta(np.ones(run.nparams, dtype=bool)),
                     lambda: run.hessian_eigs(k=1.0), lambda: linattn.Rng(-1),
                     lambda: tiny_run(depth=True)):
            self.assertRaises(ValueError, call)
        self.assertRaises(TypeError, run.train, 1, callback=3)

    def test_history_columns_are_the_records_table(self):
        lib = linattn.library("double")
        run = tiny_run()
        self.assertEqual(run.history_keys(), [k for k, _, _ in lib.record_fields])
        self.assertEqual(run.history_keys()[:2], ["step", "loss"])
        # then the measurement table's rows, in its order, of the groups due
        run = tiny_run(diag_every=5, smooth_every=2)
        self.assertEqual(run.history_keys()[-9:],
                         ["smoothness", "smooth_grad_norm", "rcond_diag", "rcond_diag_min",
                          "rcond_diag_max", "rcond_spectrum", "spectrum_resolved",
                          "lambda_max", "lambda_median"])
        self.assertEqual([k for k, _, _, _ in lib.measure_keys][:9], run.history_keys()[-9:])
        run = tiny_run(diag_every=5, top=2, noise=5)
        self.assertEqual(run.history_keys()[-10:-8], ["top_1", "top_2"])
        self.assertEqual(run.history_keys()[-1], "true_grad_norm")
        for key in run.history_keys()[len(lib.record_fields):]:  # the header finds each
            self.assertGreaterEqual(lib.la_measure_key_find(key.encode(), None), 0, key)

    def test_block_js_along_the_run(self):
        # blocks_every: block_js_mean and block_js_max at those steps, held to the
        # dense Hessian's blocks with numpy's eigenvalues and the
        # Jensen-Shannon distance written here
        run = tiny_run(blocks_every=4, diag_batch=32)
        theta = {}
        run.train(8, every=1, callback=lambda r: theta.update({r.step: r.theta.copy()}))
        h = run.history
        at = [int(s) for s in h["step"][np.isfinite(h["block_js_mean"])]]
        self.assertEqual(at, [0, 4, 8])
        self.assertNotIn("rcond_diag", run.history_keys())
        blocks = run.model.blocks()
        for step in (4, 8):
            hess = run.hessian(theta=theta[step])
            eig = [np.linalg.eigvalsh(hess[b.offset:b.offset + b.shape[0] * b.shape[1],
                                           b.offset:b.offset + b.shape[0] * b.shape[1]])
                   for b in blocks]
            allv = np.concatenate(eig)
            lo, hi = allv.min(), allv.max()
            grid, width = np.linspace(lo, hi, 100), (hi - lo) / 100
            dens = [np.exp(-0.5 * ((grid[:, None] - e[None, :]) / width) ** 2).sum(1)
                    for e in eig]
            dens = [d / d.sum() for d in dens]
            dist = []
            for i in range(len(dens)):
                for j in range(i + 1, len(dens)):
                    p, q = dens[i], dens[j]
                    m = (p + q) / 2
                    js = 0.5 * np.sum(p[p > 0] * np.log2(p[p > 0] / m[p > 0])) + \
                        0.5 * np.sum(q[q > 0] * np.log2(q[q > 0] / m[q > 0]))
                    dist.append(np.sqrt(max(js, 0.0)))
            self.assertAlmostEqual(h["block_js_mean"][step], np.mean(dist), delta=1e-7)
            self.assertAlmostEqual(h["block_js_max"][step], max(dist), delta=1e-7)
        self.assertNotEqual(h["block_js_mean"][4], h["block_js_mean"][8])

    def test_measurements_along_the_run(self):
        run = tiny_run(diag_every=4, smooth_every=3, eval_every=5)
        seen = {}
        run.train(8, every=4, callback=lambda r: seen.update({r.step: r.rcond_diag}))
        h = run.history
        at = [int(s) for s in h["step"][np.isfinite(h["lambda_max"])]]
        self.assertEqual(at, [0, 4, 8])
        self.assertEqual([int(s) for s in h["step"][np.isfinite(h["smoothness"])]], [3, 6])
        self.assertEqual(seen[4], h["rcond_diag"][4])
        # the values are the model's own measurements at the saved thetas
        theta = {}
        again = tiny_run(diag_every=4, smooth_every=3, eval_every=5)
        again.train(8, every=1, callback=lambda r: theta.update({r.step: r.theta.copy()}))
        rc = again.robust_cond(theta=theta[8])
        self.assertEqual((h["rcond_diag"][8], h["lambda_max"][8]),
                         (rc.by_diag, rc.lambda_max))
        s, g = again.model.dir_smoothness(theta[5], theta[6], again.diag_batch())
        self.assertEqual((h["smoothness"][6], h["smooth_grad_norm"][6]), (s, g))
        # top eigenvalues and the noise, beside the command's measurements
        run = tiny_run(diag_every=4, top=2, noise=5)
        run.train(4)
        h = run.history
        self.assertAlmostEqual(h["top_1"][4], h["lambda_max"][4],
                               delta=1e-12 * h["lambda_max"][4])  # Lanczos, dense
        self.assertTrue(np.isfinite(h["noise_kurtosis"][4]) and np.isfinite(h["top_2"][4]))


class Parallel(TempDir):
    def test_threads_give_the_same_bits(self):
        self.assertEqual(linattn.cpu_count(), linattn.library().la_cpu_count())
        one = tiny_run(threads=1, batch=64, eval_batch=64)
        two = tiny_run(threads=2, batch=64, eval_batch=64)
        self.assertEqual((one.threads, two.threads), (1, 2))
        one.train(5)
        two.train(5)
        np.testing.assert_array_equal(one.theta, two.theta)
        self.assertRaises(ValueError, tiny_run, threads=0)

    def test_cpu_count_follows_the_affinity_and_the_variables(self):
        import shutil
        import subprocess
        import sys
        code = "import linattn; print(linattn.cpu_count(), linattn.Run('1', steps=0).threads)"
        cases = [({"OMP_NUM_THREADS": "1"}, []), ({"SLURM_CPUS_PER_TASK": "1"}, [])]
        if shutil.which("taskset"):
            cases.append(({}, ["taskset", "-c", "0"]))
        for env, pre in cases:
            done = subprocess.run(pre + [sys.executable, "-c", code], capture_output=True,
                                  text=True, env=dict(os.environ, **env),
                                  cwd=os.path.dirname(linattn.__path__[0]))
            self.assertEqual(done.stdout.split(), ["1", "1"], (env, pre, done.stderr))

    def test_a_run_pickles_and_goes_on_bit_for_bit(self):
        import pickle
        a = tiny_run(data="resample", resample_every=3, diag_every=3)
        a.train(4)
        b = pickle.loads(pickle.dumps(a))
        self.assertEqual(b.step, 4)
        for k, v in a.history.items():
            np.testing.assert_array_equal(v, b.history[k], k)
        a.train(5)
        b.train(5)
        np.testing.assert_array_equal(a.theta, b.theta)
        for k, v in a.history.items():
            np.testing.assert_array_equal(v, b.history[k], k)
        e = pickle.loads(pickle.dumps(linattn.LinattnError(-6, "LA_ERANGE", "m", "w", "d")))
        self.assertEqual((e.name, e.detail), ("LA_ERANGE", "d"))

    def test_the_readme_recipe_for_seeds_in_parallel(self):
        from test_readme import readme_block
        code = readme_block("Seeds in parallel")
        env = {"__name__": "recipe"}
        exec(compile(code, "README.md", "exec"), env)
        by_threads, by_processes = env["by_threads"], env["by_processes"]
        self.assertEqual(len(by_threads), 2)
        for a, b in zip(by_threads, by_processes):
            np.testing.assert_array_equal(a.theta, b.theta)
            self.assertEqual(a.step, b.step)
        alone = linattn.Run("1", seed=2, steps=by_threads[1].step, batch=100, threads=1)
        alone.train()
        np.testing.assert_array_equal(alone.theta, by_threads[1].theta)


class Progress(unittest.TestCase):
    def run_with(self, progress, tqdm=None):
        """stderr as the last step's callback sees it (the progress shown
        as the run goes), and at the end."""
        import contextlib
        import io
        import sys
        saved = sys.modules.get("tqdm.auto", 0)
        sys.modules["tqdm.auto"] = tqdm  # None: as if tqdm were not installed
        err, during = io.StringIO(), []
        try:
            with contextlib.redirect_stderr(err):
                tiny_run().train(20, progress=progress, every=20,
                                 callback=lambda r: during.append(err.getvalue()))
        finally:
            if saved == 0:
                del sys.modules["tqdm.auto"]
            else:
                sys.modules["tqdm.auto"] = saved
        return during[0] + "|" + err.getvalue()[len(during[0]):]

    def test_a_bar_or_a_line_where_asked(self):
        during, end = self.run_with(True).split("|")
        self.assertIn("step 20/20 (100%)", during)  # drawn as the run goes
        self.assertTrue(end.endswith("\n"))
        self.assertEqual(self.run_with(None), "|")  # stderr is no terminal here
        self.assertEqual(self.run_with(False), "|")
        import types
        bars = []

        class Bar:
            def __init__(self, total, initial, **kw):
                bars.append([total, initial])

            def update(self, k):
                bars[-1].append(k)

            def close(self):
                bars[-1].append("closed")
        fake = types.ModuleType("tqdm.auto")
        fake.tqdm = Bar
        self.assertEqual(self.run_with(True, fake), "|")
        self.assertEqual(bars[0][:2], [20, 0])
        self.assertEqual(sum(bars[0][2:-1]), 20)
        self.assertEqual(bars[0][-1], "closed")


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
    def test_a_setting_asked_for_is_the_setting_trained(self):
        # Run("1", setting="3"): Setting 3's data, as the library resolves
        # it and as `linattn train --setting 3` trains it, bit for bit
        for kw, flags in ((dict(setting="3"), ["--setting", "3"]),
                          (dict(setting="sphere"), ["--setting", "sphere"])):
            ck, out = self.path("s.ckpt"), self.path("s.jsonl")
            cli("train", *flags, "--steps", "6", "--checkpoint", ck, "--out", out, *FLAGS)
            run = linattn.Run("1", steps=6, precision="float", **dict(SMALL, **kw))
            lib = run._lib
            mine = linattn.RunConfig("1", steps=6, precision="float", **dict(SMALL, **kw))
            resolved = linattn.RunConfig(None, precision="float")
            lib.check(lib.la_run_resolve(mine._buf, resolved._buf))
            self.assertEqual(run.config.to_dict(), resolved.to_dict())
            line = jsonl(out)[0]
            self.assertEqual((line["setting"], line["covariates"]),
                             (run.config.setting, run.config.covariates))
            run.train()
            np.testing.assert_array_equal(linattn.read_checkpoint(ck).theta,
                                          run.theta.astype(np.float64))

    @need_cli
    def test_measurements_along_the_run_are_the_commands(self):
        # as the command measures: its batch (diag_seed), R's median, and R
        # over several batches (their median and range)
        for extra, kw in (([], {}),
                          (["--diag-batches", "3", "--median", "mid", "--diag-seed", "77"],
                           dict(diag_batches=3, median="mid", diag_seed=77))):
            out = self.path("m.jsonl")
            cli("train", "--steps", "12", "--diag-every", "4", "--smooth-every", "3",
                "--diag-batch", "50", "--out", out, *extra, *FLAGS)
            run = linattn.Run("1", steps=12, diag_every=4, smooth_every=3, diag_batch=50,
                              precision="float", **dict(SMALL, **kw))
            run.train()
            h = run.history
            lines = [x for x in jsonl(out) if x["type"] == "step"]
            keys = set(run.history_keys())
            measured = 0
            for line in lines:
                for k, v in line.items():
                    if k in keys and k not in ("step", "type"):
                        got = h[k][line["step"]]
                        self.assertAlmostEqual(v, got, delta=1e-9 * abs(got) + 1e-300,
                                               msg=(line["step"], k, extra))
                        measured += k in ("rcond_diag", "smoothness", "rcond_diag_max")
                for k in ("rcond_diag", "smoothness"):  # where the command measured
                    self.assertEqual(k in line, bool(np.isfinite(h[k][line["step"]])),
                                     (line["step"], k))
            # steps 0, 4, 8, 12; 3, 6, 9, 12; and the range with 3 batches
            self.assertEqual(measured, 4 + 4 + (4 if kw else 0))
            if kw:
                r = h["rcond_diag"][np.isfinite(h["rcond_diag"])]
                lo = h["rcond_diag_min"][np.isfinite(h["rcond_diag"])]
                hi = h["rcond_diag_max"][np.isfinite(h["rcond_diag"])]
                self.assertTrue(np.all(lo <= r) and np.all(r <= hi) and np.all(lo < hi))

    @need_cli
    def test_one_history_and_one_resolved_rule_in_c_and_python(self):
        # a run whose Hessian at step 10 has a median eigenvalue above the
        # rounding measured in H (la_rcond.resolution) but within the bound
        # n u max|lambda| in float's unit roundoff: the rule the command
        # once had called it noise; the command and Python both follow
        # la_rcond.resolved now, through la_run_measure, line for line
        fields = dict(d=2, n=3, depth=3, batch=16, eval_batch=16, seed=2, diag_batch=64,
                      diag_every=10, smooth_every=5, steps=40)
        out = self.path("r.jsonl")
        cli("train", "--opt", "adam", "--out", out,
            *[x for k, v in fields.items() for x in ("--" + k.replace("_", "-"), str(v))])
        run = linattn.Run("1", opt="adam", precision="float", **fields)
        kept = {}
        run.train(every=10, callback=lambda r: kept.update({r.step: r.theta.copy()}))
        h = run.history
        measured = run.history_keys()[len(run._lib.record_fields):]
        lines = {x["step"]: x for x in jsonl(out) if x["type"] == "step"}
        self.assertEqual(sorted(lines), list(range(0, 41, 5)))
        for step, line in lines.items():
            # every member the command writes is a column (the table's rows)
            self.assertEqual(set(line) - {"type"} - set(run.history_keys()), set(), step)
            for k in measured:  # the same keys at the same steps
                self.assertEqual(k in line, bool(np.isfinite(h[k][step])), (step, k))
                if k in line:
                    self.assertAlmostEqual(line[k], h[k][step],
                                           delta=1e-9 * abs(h[k][step]), msg=(step, k))
        line, n = lines[10], run.nparams
        bound = n * np.finfo(np.float32).eps / 2 * max(abs(line["lambda_max"]),
                                                       abs(line["lambda_median"]))
        self.assertTrue(abs(line["lambda_median"]) <= bound)  # the old rule: noise
        self.assertEqual((line["spectrum_resolved"], h["spectrum_resolved"][10]), (1, 1))
        self.assertAlmostEqual(line["rcond_spectrum"],
                               line["lambda_max"] / line["lambda_median"],
                               delta=1e-6 * line["rcond_spectrum"])
        # and it is a measurement: the Hessian in double at the same theta on
        # the same prompts has the same median to 1e-2
        tok, y = run.diag_batch().tokens()
        exact = linattn.Run("1", opt="adam", precision="double", **fields).model.hessian(
            kept[10].astype(np.float64), linattn.Batch.from_tokens(tok, y, "double"))
        med = np.median(np.linalg.eigvalsh(exact))
        self.assertAlmostEqual(med, line["lambda_median"], delta=1e-2 * abs(med))
        self.assertTrue(med > bound / 2)  # within the old bound's reach, not at zero

    @need_cli
    def test_given_batches_and_theta0_as_train_data_file_init_theta(self):
        # another program's batches (paper A's code's tokens, the query row
        # holding its target) and theta0: the same run as the command's
        ref = linattn.Run("1", precision="float", **SMALL)
        bs = [ref.sample(16, stream=t) for t in range(6)]
        toks = []
        for b in bs:
            t, y = b.tokens()
            t[:, -1, -1] = y
            toks.append(t)
        theta0 = ref.theta.astype(np.float64) * 1.5
        data, init, ck = self.path("z.npy"), self.path("t.npy"), self.path("g.ckpt")
        np.save(data, np.stack(toks))
        np.save(init, theta0)
        cli("train", "--data-file", data, "--init-theta", init, "--checkpoint", ck,
            "--out", self.path("g.jsonl"), "--eval-batch", "64", "--eval-every", "10",
            "--seed", "4")
        given = []
        for t in toks:
            q = t.copy()
            y = q[:, -1, -1].copy()
            q[:, -1, -1] = 0
            given.append(linattn.Batch.from_tokens(q, y, "float"))
        run = linattn.Run("1", precision="float", batches=given, theta0=theta0,
                          eval_batch=64, eval_every=10, seed=4)
        self.assertEqual((run.config["data"], run.config["steps"], run.config["batch"]),
                         ("given", 6, 16))
        run.train()
        np.testing.assert_array_equal(linattn.read_checkpoint(ck).theta,
                                      run.theta.astype(np.float64))
        with self.assertRaises(ValueError):
            linattn.Run("1", precision="float", theta0=theta0[:-1])
        with self.assertRaises(ValueError):
            linattn.Run("1", precision="float", batches=[given[0], ref.sample(8)])

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
        cli("noise", AT, ck, "--samples", "30", "--minibatch", "50",
            "--true-batch", "500", "--bins", "10", "--out", self.path("n.json"),
            "--samples-out", s_npy)
        cli("noise", AT, ck, "--samples", "30", "--minibatch", "50",
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
        cli("curvature", AT, ck, "--top", "3", "--out", self.path("c.json"))
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
