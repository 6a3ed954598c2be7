"""The fourth hardening round's items of the package (issue 41), one test
each, named test_harden4_<item>_...: a batch changed behind torch's back,
a run in use by two threads or by its own callback, theta0 of other kinds,
a query label holding the target, more steps than given batches, a
library cache that is not this user's own, and the errors of the torch
bridge and of the checkpoint reader."""
import os
import stat
import threading
import unittest

import numpy as np

from helpers import TempDir, linattn, tiny_run
from linattn import _build, checkpoint

try:
    import torch
    import linattn.torch as lt
except ImportError:  # pragma: no cover - the skip says so
    torch = None

need_torch = unittest.skipIf(torch is None, "torch does not import")


def _fresh_loss(run, theta, Z, y):
    """The model's loss on (Z, y) in paper A's layout, packed here anew:
    what linattn.torch must answer for the data as it is now."""
    return run.model.loss(theta, (np.swapaxes(np.array(Z), 1, 2), np.array(y)))


@need_torch
class Harden4Torch(unittest.TestCase):
    def setUp(self):
        self.run = tiny_run()  # double
        self.theta = torch.tensor(self.run.model.init_params(5) * 3)

    def test_harden4_6_a_batch_changed_behind_torchs_back_is_not_answered_from_a_cache(self):
        run, th = self.run, self.theta
        Z, y = lt.sample(run, 16, stream=4)
        first = lt.loss(th, (Z, y), run).item()
        self.assertEqual(first, _fresh_loss(run, th.numpy(), Z, y))
        v = (Z._version, y._version)
        writes = (lambda: Z.numpy().__imul__(2),           # the query's label stays 0
                  lambda: y.numpy().__iadd__(1),
                  lambda: Z.data.__setitem__((0, 0, 0), 7.5))
        for write in writes:
            before = lt.loss(th, (Z, y), run).item()
            write()
            want = _fresh_loss(run, th.numpy(), Z, y)
            self.assertNotEqual(want, before)  # the write changed the loss
            self.assertEqual(lt.loss(th, (Z, y), run).item(), want)
        self.assertEqual((Z._version, y._version), v)  # torch never saw the writes
        # the gradient too
        t = th.clone().requires_grad_(True)
        Z.numpy()[1] *= 0.5
        lt.loss(t, (Z, y), run).backward()
        _, g = run.model.grad(th.numpy(), (np.swapaxes(Z.numpy(), 1, 2), y.numpy()))
        np.testing.assert_array_equal(t.grad.numpy(), g)

    def test_harden4_11_a_query_label_holding_the_target_is_refused(self):
        run, th = self.run, self.theta
        Z, y = lt.sample(run, 8, stream=1)
        leak = Z.clone()
        leak[:, -1, -1] = y  # the target in the query's label slot
        with self.assertRaises(linattn.LinattnError) as e:
            lt.loss(th, (leak, y), run)
        self.assertIsInstance(e.exception, ValueError)
        self.assertEqual(e.exception.name, "LA_ERANGE")
        self.assertIn("Z[0, n, d]", str(e.exception))
        # Batch.from_tokens refuses the same tensor, and Batch the same prompts
        with self.assertRaises(linattn.LinattnError):
            linattn.Batch.from_tokens(leak.numpy(), y.numpy(), "double")
        with self.assertRaises(linattn.LinattnError) as e:
            linattn.Batch(np.swapaxes(leak.numpy(), 1, 2), y.numpy(), "double")
        self.assertIn("8 prompts of 8", str(e.exception))
        # one prompt of the eight is enough, and named
        one = Z.clone()
        one[5, -1, -1] = 1e-30
        with self.assertRaises(linattn.LinattnError) as e:
            lt.loss(th, (one, y), run)
        self.assertIn("Z[5, n, d]", str(e.exception))
        # the label 0 passes, numpy pairs included
        self.assertEqual(lt.loss(th, (Z.numpy(), y.numpy()), run).item(),
                         _fresh_loss(run, th.numpy(), Z, y))

    def test_harden4_24_torch_bad_inputs_are_value_errors(self):
        run, th = self.run, self.theta
        Z, y = lt.sample(run, 4)
        for bad in (Z[0], Z.reshape(-1)):  # 2-D and 1-D
            with self.assertRaises(ValueError):
                lt.loss(th, (bad, y), run)
        for model in (None, "1", 3):
            with self.assertRaises(ValueError):
                lt.loss(th, (Z, y), model)
        with self.assertRaises(ValueError):
            lt.loss(th, Z, run)  # not a pair
        with self.assertRaises(ValueError):
            lt.loss(th, (Z, y[:3]), run)  # a target short
        # the model given as the run's Model works as the run does
        self.assertEqual(lt.loss(th, (Z, y), run.model).item(),
                         lt.loss(th, (Z, y), run).item())


class Harden4Run(unittest.TestCase):
    def test_harden4_8_a_second_thread_on_a_training_run_is_refused(self):
        run = tiny_run(steps=6)
        batch = run.sample(8)
        seen = []

        def other():  # a second thread while the first is in train's callback
            for name, call in (("train", lambda: run.train(2)),
                               ("loss", lambda: run.model.loss(run.theta.copy(), batch)),
                               ("sample", lambda: run.sample(4)),
                               ("to_bytes", run.to_bytes)):
                try:
                    call()
                    seen.append((name, "ran"))
                except linattn.LinattnError as e:
                    seen.append((name, e.name, e.status, str(e)))

        def callback(rec):
            if rec.step == 2:
                t = threading.Thread(target=other)
                t.start()
                t.join(60)
                seen.append(("joined", not t.is_alive()))
        run.train(every=1, callback=callback)
        self.assertEqual(run.step, 6)
        self.assertEqual(seen[-1], ("joined", True))
        self.assertEqual([s[0] for s in seen[:-1]], ["train", "loss", "sample", "to_bytes"])
        for s in seen[:-1]:
            self.assertEqual(s[1:3], ("busy", None), s)
            self.assertIn("another thread", s[3])
        # free again once train returns: the other thread's calls run
        seen.clear()
        t = threading.Thread(target=other)
        t.start()
        t.join(60)
        self.assertEqual(seen, [("train", "ran"), ("loss", "ran"), ("sample", "ran"),
                                ("to_bytes", "ran")])
        self.assertEqual(run.step, 8)

    def test_harden4_8_train_from_its_own_callback_is_refused(self):
        run = tiny_run(steps=5)
        calls = []

        def callback(rec):
            calls.append(rec.step)
            if rec.step == 1:
                run.model.loss(rec.theta.copy(), run.eval_batch)  # measuring nests
                run.train(3)  # refused: raised out of train
        with self.assertRaises(linattn.LinattnError) as e:
            run.train(every=1, callback=callback)
        self.assertEqual(e.exception.name, "busy")
        self.assertIn("own callback", str(e.exception))
        self.assertEqual((calls, run.step), ([1], 1))  # stopped, not run past its steps
        run.train()  # the run is free again, and ends at its steps
        self.assertEqual(run.step, 5)

    def test_harden4_10_theta0_of_complex_bool_or_text_is_refused(self):
        good = tiny_run(steps=1)
        n = good.nparams
        b = good.sample(8)
        for bad in (np.ones(n, dtype=complex), np.ones(n, dtype=bool), ["0.1"] * n,
                    np.array(["0.1"] * n), [object()] * n):
            with self.assertRaises(linattn.LinattnError) as e:
                linattn.Run("1", precision="double", d=2, n=3, depth=2, batches=[b],
                            theta0=bad)
            self.assertIsInstance(e.exception, ValueError)
            self.assertEqual(e.exception.name, "LA_ERANGE")
            self.assertIn("theta0", str(e.exception))
        # whole and real numbers are taken, as model.loss takes them
        th = np.arange(n) % 3 - 1
        run = linattn.Run("1", precision="double", d=2, n=3, depth=2, batches=[b], theta0=th)
        np.testing.assert_array_equal(run.theta, th)

    def test_harden4_16_more_steps_than_given_batches_are_refused_up_front(self):
        b = tiny_run().sample(8)
        with self.assertRaises(linattn.LinattnError) as e:
            linattn.Run("1", precision="double", d=2, n=3, depth=2, batches=[b], steps=5)
        self.assertEqual(e.exception.name, "LA_ERANGE")
        self.assertIn("steps 5: 1 batch given", str(e.exception))
        run = linattn.Run("1", precision="double", d=2, n=3, depth=2, batches=[b, b])
        self.assertEqual(run.config["steps"], 2)
        with self.assertRaises(linattn.LinattnError) as e:
            run.train(3)  # refused before a step is taken
        self.assertIn("steps 3: 2 batches given", str(e.exception))
        self.assertEqual(run.step, 0)
        run.train(1)
        with self.assertRaises(linattn.LinattnError) as e:
            run.train(2)
        self.assertIn("steps 3: 2 batches given", str(e.exception))
        run.train()
        self.assertEqual(run.step, 2)


FAKE_CC = """#!/bin/sh
# writes its -o file, as a compiler would
while [ $# -gt 0 ]; do
  if [ "$1" = -o ]; then printf 'not a library' > "$2"; fi
  shift
done
"""


@unittest.skipUnless(hasattr(os, "geteuid"), "no user ids on this host")
class Harden4Cache(TempDir):
    def build(self, cache):
        """_build.build into cache with a compiler that writes its output."""
        cc = self.path("fakecc")
        if not os.path.exists(cc):
            with open(cc, "w") as f:
                f.write(FAKE_CC)
            os.chmod(cc, 0o755)
            with open(self.path("h.h"), "w") as f:
                f.write("/* a header */\n")
        old = os.environ.get("CC")
        os.environ["CC"] = cc
        try:
            return _build.build("float", header=self.path("h.h"), directory=cache,
                                quiet=True)
        finally:
            if old is None:
                os.environ.pop("CC")
            else:
                os.environ["CC"] = old

    def refused(self, cache, why):
        with self.assertRaises(PermissionError) as e:
            self.build(cache)
        self.assertIn(why, str(e.exception))

    def test_harden4_23_a_cache_that_is_not_this_users_own_is_never_loaded(self):
        cache = self.path("cache")
        path = self.build(cache)  # made here: the folder is the owner's only
        self.assertEqual(stat.S_IMODE(os.stat(cache).st_mode) & 0o077, 0)
        self.assertEqual(stat.S_IMODE(os.stat(path).st_mode) & 0o022, 0)
        self.assertEqual(self.build(cache), path)  # found again
        os.chmod(path, 0o666)  # a library others may have rewritten
        self.refused(cache, "writable by others (mode 0666)")
        os.chmod(path, 0o755)
        os.chmod(cache, 0o777)  # a shared folder: anyone plants a library
        self.refused(cache, "writable by others (mode 0777)")
        os.chmod(cache, 0o1777)  # sticky, as /tmp: still anyone's to plant in
        self.refused(cache, "writable by others")
        os.chmod(cache, 0o700)
        self.assertEqual(self.build(cache), path)
        os.remove(path)
        os.symlink(self.path("h.h"), path)  # a link planted at the name
        self.refused(cache, "not a regular file")
        os.remove(path)
        if os.geteuid() == 0:  # another user's file, and another user's folder
            self.assertEqual(self.build(cache), path)
            os.chown(path, 65534, -1)
            self.refused(cache, "owned by user 65534")
            os.remove(path)
            os.chown(cache, 65534, -1)
            self.refused(cache, "owned by user 65534")


class Harden4Reader(TempDir):
    def test_harden4_24_reader_errors_say_the_path_and_the_status_once(self):
        bad = self.path("bad.ckpt")
        with open(bad, "wb") as f:
            f.write(b"not a checkpoint at all")
        for path, status in ((self.tmp, "LA_EIO"), (self.path("missing"), "LA_EIO"),
                             (bad, "LA_EFORMAT")):
            with self.assertRaises(linattn.LinattnError) as e:
                checkpoint.read(path)
            text = str(e.exception)
            self.assertEqual(e.exception.name, status)
            self.assertEqual(text.count(path), 1, text)
            self.assertEqual(text.count(status), 1, text)
            with self.assertRaises(linattn.LinattnError) as e:
                linattn.Run.resume(path, precision="double")
            text = str(e.exception)
            self.assertEqual(text.count(path), 1, text)
            self.assertEqual(text.count(status), 1, text)


if __name__ == "__main__":
    unittest.main()
