"""The package's build backend (PEP 517, PEP 660), in the standard library
alone: a pure-Python wheel is a zip of the package, the header it compiles
on first use, and three files of metadata. So `pip install ./python` needs
no setuptools, no wheel and no network; `pip install -e ./python` installs
a path to this folder instead of a copy.

The metadata is written once, here; the version is the header's."""
import base64
import hashlib
import io
import os
import re
import tarfile
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)  # python/
NAME = "linattn"
SUMMARY = ("The linear-transformer optimization testbed of linattn.h from Python: "
           "runs, training with callbacks, Hessians, noise, checkpoints, PyTorch")


def _header():
    """The header the package ships: the repository's (python/..), else
    the copy an sdist holds."""
    for p in (os.path.join(ROOT, os.pardir, "linattn.h"),
              os.path.join(ROOT, NAME, "linattn.h")):
        if os.path.isfile(p):
            return os.path.normpath(p)
    raise RuntimeError("linattn.h not found beside %s: install from the repository "
                       "(pip install ./python)" % ROOT)


def version():
    with open(_header(), encoding="utf-8") as f:
        text = f.read(20000)
    return ".".join(re.search(r"#define LINATTN_VERSION_%s (\d+)" % k, text).group(1)
                    for k in ("MAJOR", "MINOR", "PATCH"))


def _metadata():
    return ("Metadata-Version: 2.1\nName: %s\nVersion: %s\nSummary: %s\nLicense: MIT\n"
            "Requires-Python: >=3.7\nRequires-Dist: numpy\n" % (NAME, version(), SUMMARY))


def _package_files():
    """(path in the wheel, bytes) of the package: its modules and the
    header."""
    pkg = os.path.join(ROOT, NAME)
    out = []
    for name in sorted(os.listdir(pkg)):
        if name.endswith(".py"):
            with open(os.path.join(pkg, name), "rb") as f:
                out.append(("%s/%s" % (NAME, name), f.read()))
    with open(_header(), "rb") as f:
        out.append(("%s/linattn.h" % NAME, f.read()))
    return out


def _hash(data):
    digest = hashlib.sha256(data).digest()
    return "sha256=" + base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


def _wheel(directory, files):
    """A py3-none-any wheel of files in directory; its file name."""
    dist = "%s-%s.dist-info" % (NAME, version())
    files = files + [(dist + "/METADATA", _metadata().encode()),
                     (dist + "/WHEEL", b"Wheel-Version: 1.0\nGenerator: linattn_backend\n"
                                       b"Root-Is-Purelib: true\nTag: py3-none-any\n"),
                     (dist + "/top_level.txt", (NAME + "\n").encode())]
    record = "".join("%s,%s,%d\n" % (p, _hash(b), len(b)) for p, b in files)
    record += dist + "/RECORD,,\n"
    name = "%s-%s-py3-none-any.whl" % (NAME, version())
    with zipfile.ZipFile(os.path.join(directory, name), "w", zipfile.ZIP_DEFLATED) as z:
        for p, b in files + [(dist + "/RECORD", record.encode())]:
            info = zipfile.ZipInfo(p, date_time=(2020, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, b)
    return name


# ------------------------------------------------------------ PEP 517 / 660
def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def get_requires_for_build_editable(config_settings=None):
    return []


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    return _wheel(wheel_directory, _package_files())


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    """A wheel that puts this folder on sys.path (the package then builds
    from the repository's linattn.h, as in a checkout)."""
    return _wheel(wheel_directory, [("%s_editable.pth" % NAME, (ROOT + "\n").encode())])


def build_sdist(sdist_directory, config_settings=None):
    """The folder, with the header inside the package and PKG-INFO."""
    base = "%s-%s" % (NAME, version())
    name = base + ".tar.gz"
    with tarfile.open(os.path.join(sdist_directory, name), "w:gz") as t:
        extra = [("PKG-INFO", _metadata().encode())]
        for p, b in _package_files() + extra:
            info = tarfile.TarInfo("%s/%s" % (base, p))
            info.size = len(b)
            t.addfile(info, io.BytesIO(b))
        for p in ("pyproject.toml", "_backend/linattn_backend.py"):
            t.add(os.path.join(ROOT, p), "%s/%s" % (base, p))
    return name
