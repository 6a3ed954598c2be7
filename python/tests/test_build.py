"""Where the library comes from: LINATTN_LIB, or the header compiled into a
cache; and the package installed with pip, offline, building its own."""
import os
import shutil
import subprocess
import sys
import unittest

from helpers import HERE, TempDir, linattn
from linattn import _build, _lib

REPO = os.path.dirname(os.path.dirname(HERE))


class Env:
    """Environment variables set for a block, then restored."""

    def __init__(self, **kw):
        self.kw = kw

    def __enter__(self):
        self.old = {k: os.environ.get(k) for k in self.kw}
        for k, v in self.kw.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v

    def __exit__(self, *a):
        for k, v in self.old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


class Finding(TempDir):
    def test_linattn_lib_a_folder_or_a_file(self):
        lib = linattn.library("double")
        folder = os.path.dirname(lib.path)
        with Env(LINATTN_LIB=folder):
            self.assertEqual(_build.find("double"),
                             os.path.join(folder, _build.library_name("double")))
        with Env(LINATTN_LIB=lib.path):
            self.assertEqual(_build.find("float"), lib.path)  # a file: as given
            self.assertEqual(_lib.Library(lib.path).precision, "double")
        with Env(LINATTN_LIB=self.path("nothing.so")):
            with self.assertRaises(FileNotFoundError):
                _build.find("float")
        with Env(LINATTN_LIB=self.tmp):
            with self.assertRaises(FileNotFoundError):  # a folder without them
                _build.find("float")
        with self.assertRaises(ValueError):
            _build.find("half")

    def test_the_compiler_command(self):
        with Env(LINATTN_CFLAGS=None, CC="cc"):
            f = _build.compile_command("float", "linattn.h", "out.so")
            d = _build.compile_command("double", "linattn.h", "out.so")
        for flag in ("-fPIC", "-shared", "-std=c99", "-DLINATTN_IMPLEMENTATION", "-lm"):
            self.assertIn(flag, f)
        self.assertNotIn("-DLINATTN_DOUBLE", f)
        self.assertIn("-DLINATTN_DOUBLE", d)
        with Env(LINATTN_CFLAGS="-march=native", CC="cc"):
            self.assertIn("-march=native", _build.compile_command("float", "h", "o"))

    def test_precision_the_library_says(self):
        for p in ("float", "double"):
            lib = linattn.library(p)
            self.assertEqual(lib.precision, p)
            self.assertEqual(lib.dtype.itemsize, 4 if p == "float" else 8)
            self.assertEqual(lib.version, linattn.__version__)


@unittest.skipIf(os.environ.get("LINATTN_SKIP_INSTALL"), "LINATTN_SKIP_INSTALL is set")
class Installing(TempDir):
    def test_pip_install_offline_then_the_library_built_on_first_use(self):
        try:
            import ensurepip  # noqa: F401
            import venv  # noqa: F401
        except ImportError:
            self.skipTest("no venv or ensurepip for %s" % sys.executable)
        # the repository's two parts the package needs, copied: the build
        # leaves nothing in the checkout
        src = self.path("repo")
        shutil.copytree(os.path.join(REPO, "python"), os.path.join(src, "python"),
                        ignore=shutil.ignore_patterns("build", "*.egg-info",
                                                      "__pycache__", "tests"))
        shutil.copy(os.path.join(REPO, "linattn.h"), src)
        env = dict(os.environ, PIP_NO_INDEX="1", PIP_DISABLE_PIP_VERSION_CHECK="1",
                   LINATTN_CACHE=self.path("cache"))
        env.pop("LINATTN_LIB", None)
        env.pop("PYTHONPATH", None)
        venv_dir = self.path("venv")
        subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", venv_dir],
                       check=True, env=env, capture_output=True)
        py = os.path.join(venv_dir, "bin", "python")
        done = subprocess.run([py, "-m", "pip", "install", "--no-index", "--no-deps",
                               os.path.join(src, "python")], env=env,
                              capture_output=True, text=True)
        self.assertEqual(done.returncode, 0, done.stdout + done.stderr)
        script = ("import linattn, sys\n"
                  "r = linattn.Run('1', steps=3, batch=50)\n"
                  "r.train()\n"
                  "assert r.step == 3 and 'site-packages' in linattn.__file__\n"
                  "print(linattn.library().path)\n")
        first = subprocess.run([py, "-c", script], env=env, cwd=self.tmp,
                               capture_output=True, text=True)
        self.assertEqual(first.returncode, 0, first.stderr)
        self.assertIn("building the float library", first.stderr)
        self.assertTrue(first.stdout.strip().startswith(self.path("cache")))
        again = subprocess.run([py, "-c", script], env=env, cwd=self.tmp,
                               capture_output=True, text=True)
        self.assertEqual(again.returncode, 0, again.stderr)
        self.assertEqual(again.stderr, "")  # the cached library, not built again
        self.assertEqual(again.stdout, first.stdout)

    def test_the_wheel_builds_without_setuptools(self):
        # the backend under -I -S: no site-packages, so no setuptools, no
        # wheel, no numpy; what pip's isolated build runs
        code = ("import sys; sys.path.insert(0, %r)\n"
                "import linattn_backend as b\n"
                "assert b.get_requires_for_build_wheel() == []\n"
                "print(b.build_wheel(%r))\n"
                "assert 'setuptools' not in sys.modules and 'wheel' not in sys.modules\n"
                % (os.path.join(REPO, "python", "_backend"), self.tmp))
        done = subprocess.run([sys.executable, "-I", "-S", "-c", code],
                              capture_output=True, text=True)
        self.assertEqual(done.returncode, 0, done.stderr)
        import zipfile
        with zipfile.ZipFile(os.path.join(self.tmp, done.stdout.strip())) as z:
            names = z.namelist()
            self.assertIn("linattn/linattn.h", names)
            self.assertIn("linattn/torch.py", names)
            meta = z.read("linattn-%s.dist-info/METADATA" % linattn.__version__).decode()
        self.assertIn("Version: %s" % linattn.__version__, meta)


class Make(unittest.TestCase):
    def test_make_python_is_a_target(self):
        # `python` is also the folder's name: a phony target, not "up to date"
        done = subprocess.run(["make", "--no-print-directory", "-C", REPO, "python"],
                              capture_output=True, text=True)
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertNotIn("Nothing to be done", done.stdout + done.stderr)
        self.assertIn("LINATTN_LIB=", done.stdout)


if __name__ == "__main__":
    unittest.main()
