"""Run descriptions through the header's field table: every field by key,
the header's rule of presets, selectors, defaults and zero, resolution, and
refusals in the `linattn` command's words (la_run_explain)."""
import ctypes
import pickle
import unittest

from helpers import TempDir, cli, cli_fails, jsonl, linattn, need_cli

D = "double"


class Table(unittest.TestCase):
    def test_every_field_reads_and_writes_by_value(self):
        cfg = linattn.RunConfig("1", precision=D)
        self.assertEqual(cfg.keys(), [f.key for f in linattn.fields(D)])
        self.assertGreater(len(cfg), 40)
        for f in linattn.fields(D):
            c = cfg.copy()
            if f.kind in ("enum", "optimizer"):
                for name in f.names:
                    if name:
                        c[f.key] = name
                        self.assertEqual(c[f.key], name)
            elif f.kind == "bool":
                c[f.key] = True
                self.assertIs(c[f.key], True)
            else:
                v = f.hi if f.hi < 1e6 else 7
                v = 0.5 * v if f.kind == "real" else int(v)
                c[f.key] = v
                self.assertEqual(c[f.key], v, f.key)
                self.assertEqual(c.raw(f.key), v)
            self.assertTrue(c.given(f.key), f.key)
            c[f.key] = None
            self.assertFalse(c.given(f.key), f.key)

    def test_the_table_is_the_headers(self):
        lib = linattn.library(D)
        for f in linattn.fields(D):
            buf = ctypes.create_string_buffer(400)
            lib.la_run_field_help(f._row, buf, 400)
            self.assertEqual(f.help, buf.value.decode())  # help with its default
        by = {f.key: f for f in linattn.fields(D)}
        self.assertEqual((by["batch"].default, by["batch"].follows), (1000, None))
        self.assertEqual((by["eval_batch"].default, by["eval_batch"].follows),
                         (None, "batch"))
        self.assertTrue(by["setting"].selector and by["opt"].selector)
        self.assertTrue(by["covariates"].setting and not by["lr"].setting)
        self.assertIn("default", by["batch"].help)

    def test_zero_given_is_zero_none_is_not_given(self):
        cfg = linattn.RunConfig("1", beta1=0, clip=0, precision=D)
        self.assertTrue(cfg.given("beta1") and cfg.given("clip"))
        r = cfg.resolve()
        self.assertEqual((r["beta1"], r["clip"]), (0, 0))  # zero itself
        cfg["beta1"] = None
        cfg["clip"] = None
        r = cfg.resolve()
        self.assertEqual((r["beta1"], r["clip"]), (0.9, 1))  # paper A's
        # an integer zero too: eval_seed 0 is seed 0, not "the seed"
        r = linattn.RunConfig("1", seed=5, eval_seed=0, precision=D).resolve()
        self.assertEqual((r["seed"], r["eval_seed"]), (5, 0))
        r = linattn.RunConfig("1", seed=5, precision=D).resolve()
        self.assertEqual(r["eval_seed"], 5)

    def test_selectors_choose_what_is_not_given(self):
        # the label that lied: Setting 3 asked for is Setting 3's data
        for preset, setting, covariates in (("1", "3", "gamma-sphere"),
                                            ("1", "sphere", "sphere"),
                                            ("1", "2", "gaussian")):
            r = linattn.RunConfig(preset, setting=setting, precision=D).resolve()
            self.assertEqual((r.setting, r.covariates), (setting, covariates))
        r = linattn.RunConfig("1", setting="2", precision=D).resolve()
        self.assertEqual((r.n, r.lr), (5, 0.005))  # Setting 2's n and Adam's rate
        r = linattn.RunConfig("1", opt="sgd", precision=D).resolve()
        self.assertEqual((r.lr, r.momentum, r.beta1), (0.02, 0.9, 0))  # paper A's SGD
        r = linattn.RunConfig("large", setting="3", precision=D).resolve()
        self.assertEqual((r.d, r.n, r.depth, r.covariates), (20, 60, 8, "gamma-sphere"))
        # a preset is the selector alone, as la_run_preset writes it
        lib = linattn.library(D)
        c = linattn.RunConfig("b-depth", opt="sgd", precision=D)
        theirs = lib.opaque(linattn._lib.TYPE["run_config"])
        lib.check(lib.la_run_preset(theirs, b"b-depth", b"sgd"))
        self.assertEqual(bytes(c._buf), bytes(theirs))

    def test_attributes_flags_and_update(self):
        cfg = linattn.RunConfig("2", opt="sgd", precision=D).resolve()
        self.assertEqual((cfg.setting, cfg.n, cfg.opt, cfg.lr), ("2", 5, "sgd", 0.01))
        cfg = linattn.RunConfig("2", opt="sgd", precision=D)
        cfg.depth = 4
        cfg.update({"eval-every": 7}, schedule="cosine")
        self.assertEqual((cfg["depth"], cfg.eval_every, cfg.schedule), (4, 7, "cosine"))
        self.assertEqual(cfg.field("clip-block").key, "clip_block")
        self.assertIn("beta1", dir(cfg))  # completed as attributes
        self.assertTrue(cfg.field("depth").shape and cfg.field("seed").seed)
        self.assertFalse(cfg.field("steps").identity)
        self.assertEqual(cfg.to_dict(given_only=True),
                         dict(preset="2", opt="sgd", depth=4, eval_every=7,
                              schedule="cosine"))

    def test_presets_and_optimizers_from_the_header(self):
        p = linattn.presets(D)
        self.assertIn("1", p)
        self.assertIn("b-depth", p)
        for name in p:
            linattn.RunConfig(name, precision=D).resolve()
        self.assertIn("adam", linattn.optimizers(D))
        self.assertEqual(linattn.RunConfig("b-depth", precision=D).resolve().opt, "adam")

    def test_resolve_and_diff(self):
        a = linattn.RunConfig("1", precision=D)
        r = a.resolve()
        self.assertEqual(r["log_every"], 10)  # the default written out
        self.assertEqual(a, r)                # they mean the same run
        self.assertEqual(r.resolve().to_dict(), r.to_dict())  # final
        b = a.copy()
        b["lr"] = 0.5
        self.assertEqual(a.diff(b), "lr")
        self.assertIsNone(a.diff(a.copy()))
        b = a.copy()
        b["steps"] = 5
        self.assertIsNone(a.diff(b, identity_only=True))

    def test_pickles_as_its_fields_given(self):
        a = linattn.RunConfig("1", setting="3", beta1=0, depth=2, precision=D)
        b = pickle.loads(pickle.dumps(a))
        self.assertEqual(b.to_dict(given_only=True), a.to_dict(given_only=True))
        self.assertEqual(b.resolve().to_dict(), a.resolve().to_dict())


class Refusals(unittest.TestCase):
    def refused(self, name="LA_ERANGE", **kw):
        """The error of RunConfig("1", **kw).resolve()."""
        with self.assertRaises(linattn.LinattnError) as e:
            linattn.RunConfig(kw.pop("preset", "1"), precision=D, **kw).resolve()
        self.assertEqual(e.exception.name, name)
        return e.exception

    def test_the_words_of_the_header(self):
        # la_run_explain's words, after the key and the value as given
        e = self.refused(opt="sgd", beta1=0.9)
        self.assertEqual(e.detail, "beta1 0.9: sgd does not read it")
        self.assertIsInstance(e, ValueError)
        self.assertEqual((e.status, e.message), (-6, "a configuration value is out of range"))
        e = self.refused(setting="3", covariates="gaussian")
        self.assertEqual(e.detail, "covariates gaussian: setting 3 has covariates "
                                   "gamma-sphere; setting none describes other data")
        e = self.refused(lr=-1)
        self.assertEqual(e.detail, "lr -1: is outside its range (0 to 1000000)")
        e = self.refused(depth=1000)
        self.assertEqual(e.detail, "depth 1000: is outside its range (1 to 64)")
        e = self.refused(depth=0)  # a given zero that no depth can be
        self.assertEqual(e.detail, "depth 0: is outside its range (1 to 64)")
        e = self.refused(schedule="wavy")
        self.assertTrue(e.detail.startswith("schedule wavy: is not one of its names"),
                        e.detail)
        self.assertIn("cosine", e.detail)
        e = self.refused(opt="adamx")
        self.assertTrue(e.detail.startswith("opt adamx: is not an optimizer of the "
                                            "registry"), e.detail)
        e = self.refused(preset="no-such-experiment")
        self.assertIn("b-depth", e.detail)  # the presets named

    def test_types_are_refused_not_cast(self):
        for kw in (dict(depth=2.5), dict(depth=2.0), dict(depth=True), dict(depth="3"),
                   dict(depth=3j), dict(lr="0.1"), dict(lr=True), dict(lr=1j),
                   dict(steps=2 ** 70), dict(seed=2 ** 64 + 3), dict(seed=-1),
                   dict(setting=3.0), dict(nesterov=2)):
            with self.assertRaises(ValueError, msg=kw) as e:
                linattn.RunConfig("1", opt="sgd", precision=D, **kw)
            self.assertEqual(e.exception.name, "LA_ERANGE", kw)
        # beyond 2^53 a double would round: refused, not taken as 2^53
        with self.assertRaises(ValueError):
            linattn.RunConfig("1", seed=2 ** 53 + 1, precision=D)
        # numpy's integers and floats are numbers; an integer name is a name
        import numpy as np
        c = linattn.RunConfig(1, depth=np.int32(2), lr=np.float32(0.5), setting=3,
                              precision=D)
        self.assertEqual((c.preset, c.depth, c.lr, c.setting), ("1", 2, 0.5, "3"))
        with self.assertRaises(KeyError) as e:
            linattn.RunConfig("1", lrr=0.1, precision=D)
        self.assertIn("did you mean lr", str(e.exception))

    def test_run_says_the_same(self):
        with self.assertRaises(linattn.LinattnError) as e:
            linattn.Run("1", opt="sgd", beta1=0.9, precision=D)
        self.assertEqual(e.exception.detail, "beta1 0.9: sgd does not read it")
        with self.assertRaises(ValueError):
            linattn.Run(1.5)
        self.assertEqual(linattn.Run(1, steps=0, precision=D).config.setting, "1")

    def test_measurements_python_does_not_take_are_refused(self):
        # every field outside the identity is one a Python run measures
        from linattn import run as run_mod
        for f in linattn.fields(D):
            if not (f.identity or f.selector):
                self.assertIn(f.key, run_mod._MEASURED)


class AgainstTheCommand(TempDir):
    @need_cli
    def test_the_config_line_of_train_is_the_resolved_description(self):
        for flags, kw in ((["--preset", "2", "--opt", "sgd", "--depth", "4",
                            "--schedule", "cosine"],
                           dict(preset="2", opt="sgd", depth=4, schedule="cosine")),
                          (["--preset", "1", "--setting", "3"], dict(preset="1", setting="3")),
                          (["--setting", "sphere"], dict(setting="sphere")),
                          (["--clip", "0", "--beta1", "0"], dict(clip=0, beta1=0))):
            out = self.path("r.jsonl")
            cli("train", *flags, "--steps", "1", "--out", out)
            line = jsonl(out)[0]
            kw = dict(kw)
            preset = kw.pop("preset", None)
            cfg = linattn.RunConfig(preset, steps=1, precision="float", **kw).resolve()
            for k, v in cfg.items():
                self.assertEqual(int(v) if isinstance(v, bool) else v, line[k], (flags, k))

    @need_cli
    def test_a_refusal_in_the_same_words(self):
        for flags, kw in ((["--opt", "sgd", "--beta1", "0.9"], dict(opt="sgd", beta1=0.9)),
                          (["--setting", "3", "--covariates", "gaussian"],
                           dict(setting="3", covariates="gaussian"))):
            err = cli_fails("train", *flags, "--steps", "1", "--out", self.path("x"))
            with self.assertRaises(linattn.LinattnError) as e:
                linattn.Run("1", precision="float", **kw)
            # the command says --flag where Python says the key
            key, rest = e.exception.detail.split(" ", 1)
            self.assertIn("--%s %s" % (key.replace("_", "-"), rest), err)


if __name__ == "__main__":
    unittest.main()
