"""The checkpoint reader in Python alone, held to the library's reader:
the same values from the same files, the same status for a bad one."""
import ctypes
import struct
import unittest

import numpy as np

from helpers import TempDir, linattn, tiny_run
from linattn import checkpoint as ckpt


def c_status(lib, data):
    """The library's verdict on bytes: la_checkpoint_run's status name."""
    buf = lib.opaque(lib_types()["run_config"])
    st = lib.la_checkpoint_run(data, len(data), buf, None)
    return lib.la_status_name(st).decode()


def lib_types():
    from linattn import _header
    return _header.type_codes()


def py_status(data, fields):
    try:
        ckpt.parse(data, fields)
        return "LA_OK"
    except linattn.LinattnError as e:
        return e.name


def reseal(b):
    """b with its checksum made right again."""
    b = bytearray(b)
    struct.pack_into("<Q", b, len(b) - 8, ckpt.fnv1a64(b[:-8]))
    return bytes(b)


def field_at(data, key):
    """The offset of a description field's key length byte."""
    at, end = 104, 104 + struct.unpack_from("<I", data, 64)[0]
    while at < end:
        k = data[at]
        name = data[at + 1:at + 1 + k].decode()
        if name == key:
            return at
        kind = data[at + 1 + k] & 127  # version 3: bit 128 says given
        at += 2 + k + (1 + data[at + 2 + k] if kind == 6 else 8)
    raise KeyError(key)


def _raised(read, path):
    """(name, status, is an OSError) of what read(path) raises."""
    try:
        read(path)
    except linattn.LinattnError as e:
        return (e.name, e.status, isinstance(e, OSError))
    return None


class SameAsTheLibrary(TempDir):
    def saved(self, precision, **kw):
        run = tiny_run(precision=precision, opt="sgd", **kw)
        run.train(6)
        path = self.path("r-%s.ckpt" % precision)
        run.save(path)
        return run, path

    def test_values_equal_the_librarys(self):
        for p in ("float", "double"):
            run, path = self.saved(p, data="resample", resample_every=4)
            ck = linattn.read_checkpoint(path, fields=linattn.fields(p))
            self.assertEqual((ck.version, ck.real_size), (3, 4 if p == "float" else 8))
            self.assertEqual((ck.nparams, ck.step, ck.optimizer), (run.nparams, 6, "sgd"))
            self.assertEqual(ck.seed, 3)
            self.assertTrue(ck.batch_drawn)
            np.testing.assert_array_equal(ck.theta, run.theta.astype(np.float64))
            self.assertEqual(ck.state.size, run.nparams)  # SGD's momentum
            # the description: field by field, the C reader's values
            lib = linattn.library(p)
            mine = ck.run_config(p)
            theirs = linattn.RunConfig(None, precision=p)
            data = open(path, "rb").read()
            lib.check(lib.la_checkpoint_run(data, len(data), theirs._buf, None))
            for k in theirs.keys():
                self.assertEqual(mine.raw(k), theirs.raw(k), k)
                if ck.kinds[k] in ("real",):
                    self.assertEqual(ck.run[k], theirs.raw(k))
            self.assertEqual(ck.run["opt"], "sgd")
            self.assertEqual(ck.run["setting"], 1)  # an enum: its index
            # the given bits: the fields tiny_run gives, and no other
            self.assertEqual({k for k, g in ck.given.items() if g},
                             {k for k in theirs.keys() if theirs.given(k)})
            self.assertTrue(ck.given["depth"] and ck.given["opt"])
            self.assertFalse(ck.given["front"])  # a zero not given
            resumed = linattn.Run.resume(path, precision=p)
            self.assertEqual(resumed.config, mine)

    def test_the_status_table_is_the_headers(self):
        # the reader's statuses come from the header's text where no
        # library is loaded: the same table as la_status_name lists
        from linattn import _header
        lib = linattn.library("double")
        self.assertEqual(_header.statuses(), lib.statuses)
        self.assertEqual(lib.statuses[-11], ("LA_EFORMAT",
                                             lib.la_status_str(-11).decode()))
        self.assertEqual(len(lib.statuses), 1 - min(lib.statuses))  # no gap

    def test_bad_files_get_the_librarys_status(self):
        lib = linattn.library("double")
        fields = linattn.fields("double")
        _, path = self.saved("double")
        good = open(path, "rb").read()

        def put(fmt, at, value, seal=True):
            b = bytearray(good)
            struct.pack_into(fmt, b, at, value)
            return reseal(b) if seal else bytes(b)

        lr, beta1 = field_at(good, "lr"), field_at(good, "beta2")
        depth = field_at(good, "depth")
        cases = {
            "magic": (put("<B", 0, ord("X"), False), "LA_EFORMAT"),
            "version": (put("<I", 8, 4), "LA_EVERSION"),
            "version 2 reads the given bit as a kind": (put("<I", 8, 2), "LA_EFORMAT"),
            "truncated": (good[:-16], "LA_EFORMAT"),
            "one bit of theta": (put("<B", len(good) - 12, good[-12] ^ 1, False),
                                 "LA_ECHECKSUM"),
            "a key of a later version": (put("<2s", lr + 1, b"lq"), "LA_EVERSION"),
            "a kind that is not the key's": (put("<B", lr + 3, 0), "LA_EFORMAT"),
            "a whole number out of range": (put("<q", depth + 7, 10 ** 6), "LA_EFORMAT"),
            "a real not finite": (put("<d", lr + 4, float("nan")), "LA_EFORMAT"),
            "a real beyond the flag's range loads": (put("<d", lr + 4, 1e10), "LA_OK"),
            "a key twice": (put("<5s", beta1 + 1, b"beta1"), "LA_EFORMAT"),
            "padding not zero": (put("<I", 68, 1), "LA_EFORMAT"),
            "a step beyond a long": (put("<Q", 32, 2 ** 63), "LA_EFORMAT"),
            "no parameters": (put("<Q", 24, 0), "LA_EFORMAT"),
            "a name without its NUL": (put("<32s", 72, b"x" * 32), "LA_EFORMAT"),
        }
        for what, (data, want) in cases.items():
            self.assertEqual(c_status(lib, data), want, what)
            self.assertEqual(py_status(data, fields), want, what)
        # without the table, only the framing: a later key is read, not refused
        ck = ckpt.parse(cases["a key of a later version"][0])
        self.assertIn("lq", ck.run)
        # random damage, the checksum made right: the same verdict every time
        # (half of them in the header and the description)
        g = np.random.default_rng(11)
        desc_end = 104 + struct.unpack_from("<I", good, 64)[0]
        verdicts = set()
        for t in range(1000):
            b = bytearray(good)
            for _ in range(int(g.integers(1, 4))):
                i = int(g.integers(0, desc_end if t % 2 else len(b) - 8))
                b[i] = int(g.integers(0, 256))
            data = reseal(b)
            want = c_status(lib, data)
            self.assertEqual(py_status(data, fields), want)
            verdicts.add(want)
        self.assertTrue({"LA_OK", "LA_EFORMAT", "LA_EVERSION"} <= verdicts, verdicts)

    def test_unreadable_is_la_eio_at_once(self):
        import os
        import threading
        _, path = self.saved("double")
        fifo = self.path("fifo")
        os.mkfifo(fifo)
        for what in (self.path("missing.ckpt"), self.tmp, "/dev/zero", fifo):
            for read in (linattn.read_checkpoint,
                         lambda p: linattn.Run.resume(p, precision="double")):
                done = []
                t = threading.Thread(target=lambda: done.append(_raised(read, what)),
                                     daemon=True)
                t.start()
                t.join(10)  # a FIFO or /dev/zero read to its end never returns
                self.assertEqual(done, [("LA_EIO", -10, True)], what)
        self.assertEqual(linattn.read_checkpoint(path).step, 6)  # a regular file reads

    def test_version_1_files(self):
        run, path = self.saved("double")
        v2 = ckpt.read(path)
        # the same state in version 1's layout (docs/checkpoint.md)
        head = bytearray(128)
        head[:8] = ckpt.MAGIC
        struct.pack_into("<II", head, 8, 1, 8)
        struct.pack_into("<6i", head, 24, 2, 3, 2, 0, 0, 0)
        struct.pack_into("<d", head, 48, 0.05)
        struct.pack_into("<QQQII", head, 56, v2.nparams, v2.step, v2.seed, 0, 3)
        head[88:88 + 3] = b"sgd"
        struct.pack_into("<Q", head, 120, v2.state.size)
        body = struct.pack("<3Q", *v2.rng) + struct.pack("<3Q", *v2.batch_rng) + \
            v2.state.astype("<f8").tobytes() + v2.theta.astype("<f8").tobytes()
        data = bytearray(head + body + bytes(8))
        struct.pack_into("<Q", data, 16, len(data))
        data = reseal(data)
        lib = linattn.library("double")
        info = lib.dll.la_checkpoint_info
        info.argtypes = [ctypes.c_char_p, ctypes.c_size_t, ctypes.c_void_p,
                         ctypes.POINTER(ctypes.c_long)]
        step = ctypes.c_long()
        self.assertEqual(info(data, len(data), None, ctypes.byref(step)), 0)
        self.assertEqual(step.value, 6)
        v1 = ckpt.parse(data)
        self.assertEqual((v1.version, v1.run), (1, None))
        self.assertEqual(v1.model["layers"], 2)
        np.testing.assert_array_equal(v1.theta, v2.theta)
        np.testing.assert_array_equal(v1.state, v2.state)
        self.assertEqual(c_status(lib, data), "LA_EFORMAT")  # it holds no description
        with self.assertRaises(linattn.LinattnError):
            v1.run_config("double")


if __name__ == "__main__":
    unittest.main()
