"""Run descriptions through the header's field table: every field by key,
presets, resolution, errors with the status's name."""
import unittest

from helpers import TempDir, cli, jsonl, linattn, need_cli


class Table(unittest.TestCase):
    def test_every_field_reads_and_writes_by_value(self):
        cfg = linattn.RunConfig("1", precision="double")
        self.assertEqual(cfg.keys(), [f.key for f in linattn.fields("double")])
        self.assertGreater(len(cfg), 40)
        for f in linattn.fields("double"):
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

    def test_zero_given_is_zero_none_the_default(self):
        cfg = linattn.RunConfig("1", beta1=0, precision="double")
        self.assertEqual(str(cfg["beta1"]), "-0.0")  # LA_ZERO: zero itself
        self.assertEqual(cfg.resolve()["beta1"], 0)
        cfg["beta1"] = None
        self.assertEqual(cfg.resolve()["beta1"], 0.9)  # Adam's default

    def test_attributes_flags_and_update(self):
        cfg = linattn.RunConfig("2", opt="sgd", precision="double")
        self.assertEqual((cfg.setting, cfg.n, cfg.opt, cfg.lr), ("2", 5, "sgd", 0.01))
        cfg.depth = 4
        cfg.update({"eval-every": 7}, schedule="cosine")
        self.assertEqual((cfg["depth"], cfg.eval_every, cfg.schedule), (4, 7, "cosine"))
        self.assertEqual(cfg.field("clip-block").key, "clip_block")
        self.assertTrue(cfg.field("depth").shape and cfg.field("seed").seed)
        self.assertFalse(cfg.field("steps").identity)

    def test_presets_and_optimizers_from_the_header(self):
        p = linattn.presets("double")
        self.assertIn("1", p)
        self.assertIn("b-depth", p)
        for name in p:
            linattn.RunConfig(name, precision="double").resolve()
        self.assertIn("adam", linattn.optimizers("double"))
        self.assertEqual(linattn.RunConfig("b-depth", precision="double").opt, "adam")

    def test_resolve_and_diff(self):
        a = linattn.RunConfig("1", precision="double")
        r = a.resolve()
        self.assertEqual(r["log_every"], 10)  # the default written out
        self.assertEqual(a, r)                # they mean the same run
        b = a.copy()
        b["lr"] = 0.5
        self.assertEqual(a.diff(b), "lr")
        self.assertIsNone(a.diff(a.copy()))
        b = a.copy()
        b["steps"] = 5
        self.assertIsNone(a.diff(b, identity_only=True))

    def test_errors_carry_the_status(self):
        with self.assertRaises(linattn.LinattnError) as e:
            linattn.RunConfig("1", lr=-1, precision="double")
        x = e.exception
        self.assertEqual((x.name, x.status), ("LA_ERANGE", -6))
        self.assertEqual(x.message, "a configuration value is out of range")
        self.assertIn("lr", str(x))
        with self.assertRaises(linattn.LinattnError) as e:
            linattn.RunConfig("no-such-experiment", precision="double")
        self.assertEqual(e.exception.name, "LA_ERANGE")
        self.assertIn("b-depth", str(e.exception))  # the presets named
        with self.assertRaises(linattn.LinattnError):
            linattn.RunConfig("1", schedule="wavy", precision="double")
        with self.assertRaises(linattn.LinattnError):
            linattn.RunConfig("1", depth=2.5, precision="double")
        with self.assertRaises(KeyError):
            linattn.RunConfig("1", lrr=0.1, precision="double")
        # a description that holds values in range but cannot be a run names
        # the field that breaks it
        with self.assertRaises(linattn.LinattnError) as e:
            linattn.RunConfig("1", opt="sgd", beta1=0.5, precision="double").resolve()
        self.assertIn("beta1", str(e.exception))
        with self.assertRaises(linattn.LinattnError) as e:
            linattn.Run("1", opt="sgd", beta1=0.5, precision="double")
        self.assertIn("beta1", e.exception.detail)


class AgainstTheCommand(TempDir):
    @need_cli
    def test_the_config_line_of_train_is_the_resolved_description(self):
        out = self.path("r.jsonl")
        cli("train", "--preset", "2", "--opt", "sgd", "--depth", "4", "--steps", "1",
            "--schedule", "cosine", "--out", out)
        line = jsonl(out)[0]
        cfg = linattn.RunConfig("2", opt="sgd", depth=4, steps=1, schedule="cosine",
                                precision="float").resolve()
        for k, v in cfg.items():
            want = line[k]
            if isinstance(v, bool):
                v = int(v)
            self.assertEqual(v, want, k)


if __name__ == "__main__":
    unittest.main()
