"""The linattn Python package: pip install ./python (from the repository).

Pure Python over ctypes and numpy: no extension is compiled at install. The
package ships linattn.h, copied in from the repository when it is built,
and compiles it into a shared library for the host on first use (or loads
the one LINATTN_LIB names); see linattn/_build.py. Installs offline: no
build requirement beyond the setuptools and wheel already installed."""
import os
import re

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = os.path.dirname(os.path.abspath(__file__))


def header():
    for p in (os.path.join(HERE, os.pardir, "linattn.h"),
              os.path.join(HERE, "linattn", "linattn.h")):
        if os.path.isfile(p):
            return os.path.normpath(p)
    raise SystemExit("linattn.h not found: install from the repository "
                     "(pip install ./python)")


def version():
    with open(header()) as f:
        text = f.read(20000)
    return ".".join(re.search(r"#define LINATTN_VERSION_%s (\d+)" % k, text).group(1)
                    for k in ("MAJOR", "MINOR", "PATCH"))


class build_py_with_header(build_py):
    """The package with the header it builds its library from."""

    def run(self):
        super().run()
        self.copy_file(header(), os.path.join(self.build_lib, "linattn", "linattn.h"))


setup(
    name="linattn",
    version=version(),
    description="The linear-transformer optimization testbed of linattn.h from "
                "Python: runs, training with callbacks, Hessians, noise, checkpoints",
    license="MIT",
    packages=["linattn"],
    python_requires=">=3.7",
    install_requires=["numpy"],
    cmdclass={"build_py": build_py_with_header},
)
