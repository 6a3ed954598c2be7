"""Where the shared library comes from: a path the user gives, or the header
compiled once for this host and kept in a cache.

The library is linattn.h compiled with LINATTN_IMPLEMENTATION as a shared
object, in one of two precisions (la_real float or double). It is found,
in this order:

1. LINATTN_LIB, when set: a library file (its precision is read from it), or
   a folder holding liblinattn.so (float) and liblinattn-d.so (double), as
   `make lib` writes them into build/. Nothing else is tried.
2. The cache: LINATTN_CACHE, else $XDG_CACHE_HOME/linattn, else
   ~/.cache/linattn. A library there is named by a hash of the header's
   bytes and of the compiler command, so a changed header or compiler flags
   build a new one and a stale one is never loaded. The cache must be this
   user's own: the folder and a library in it owned by this user and
   writable by no one else, the library a regular file (not a link);
   anything else is refused (PermissionError), never loaded, since
   whoever can write there chooses the code this process runs. A new
   cache folder is made readable by its owner only.
3. Otherwise it is built into the cache from the header this package ships
   (linattn/linattn.h, copied in when the package is built; in a checkout of
   the repository, the repository's own linattn.h) with the system C
   compiler: $CC, else cc, gcc or clang; the SIMD flags of this host
   (AVX2 and FMA on an x86-64 that has them; NEON is the default on
   AArch64), or LINATTN_CFLAGS in their place. It takes a few seconds, once.

This module needs neither numpy nor the library: it only finds files and
runs the compiler.
"""
import hashlib
import os
import platform
import shutil
import stat
import subprocess
import sys

PRECISIONS = ("float", "double")
_SUFFIX = ".dylib" if sys.platform == "darwin" else ".so"


def library_name(precision):
    """The file name `make lib` gives the library of a precision."""
    _check_precision(precision)
    return "liblinattn" + ("-d" if precision == "double" else "") + _SUFFIX


def _check_precision(precision):
    if precision not in PRECISIONS:
        raise ValueError("precision must be 'float' or 'double', not %r" % (precision,))


def header_path():
    """The linattn.h the package builds from: its own copy, else (a
    checkout of the repository) the repository's."""
    here = os.path.dirname(os.path.abspath(__file__))
    for p in (os.path.join(here, "linattn.h"),
              os.path.join(here, os.pardir, os.pardir, "linattn.h")):
        if os.path.isfile(p):
            return os.path.normpath(p)
    raise FileNotFoundError(
        "linattn: no linattn.h beside the package (%s) nor in the repository "
        "above it; set LINATTN_LIB to a library built with `make lib`" % here)


def cache_dir():
    d = os.environ.get("LINATTN_CACHE")
    if not d:
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(
            os.path.expanduser("~"), ".cache")
        d = os.path.join(base, "linattn")
    return d


def _own(path, st, what):
    """Refuses path (st: its lstat) unless this user owns it and no one else
    may write to it (hosts without user ids are not checked)."""
    if not hasattr(os, "geteuid"):
        return
    why = None
    if st.st_uid != os.geteuid():
        why = "owned by user %d, not by this user (%d)" % (st.st_uid, os.geteuid())
    elif st.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        why = "writable by others (mode %04o)" % stat.S_IMODE(st.st_mode)
    if why:
        raise PermissionError(
            "linattn: the library cache's %s %s is %s: whoever writes there chooses the "
            "code this process loads; make it your own (chown, chmod go-w), set "
            "LINATTN_CACHE to a folder of your own, or LINATTN_LIB to a library "
            "built with `make lib`" % (what, path, why))


def _private_dir(directory):
    """The cache folder, made (readable by its owner only) when missing, and
    held to _own."""
    os.makedirs(directory, mode=0o700, exist_ok=True)
    st = os.stat(directory)
    if not stat.S_ISDIR(st.st_mode):
        raise NotADirectoryError("linattn: the library cache %s is not a folder" % directory)
    _own(directory, st, "folder")


def _cached(path):
    """Whether the cache holds the library at path: a regular file of this
    user's (a link or another's file is refused, not loaded)."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return False
    if not stat.S_ISREG(st.st_mode):
        raise PermissionError("linattn: the library cache's %s is not a regular file "
                              "(a link, a folder, a device): not loaded; remove it" % path)
    _own(path, st, "library")
    return True


def _compiler():
    cc = os.environ.get("CC")
    if cc:
        return cc.split()
    for name in ("cc", "gcc", "clang"):
        if shutil.which(name):
            return [name]
    raise RuntimeError(
        "linattn: no C compiler (cc, gcc or clang) to build the library "
        "from linattn.h; install one, or set LINATTN_LIB to a library "
        "built elsewhere (make lib)")


def _cpu_has(*features):
    """Whether this x86-64 CPU reports every one of the features."""
    try:
        if sys.platform.startswith("linux"):
            with open("/proc/cpuinfo") as f:
                for line in f:
                    if line.startswith("flags"):
                        have = set(line.split(":", 1)[1].split())
                        return all(x in have for x in features)
        elif sys.platform == "darwin":
            out = subprocess.run(["sysctl", "-n", "machdep.cpu.leaf7_features",
                                  "machdep.cpu.features"],
                                 capture_output=True, text=True).stdout.lower()
            return all(x in out.split() for x in features)
    except OSError:
        pass
    return False


def simd_flags():
    """The host's SIMD flags: those the `linattn` command is built with
    (AVX2 and FMA) when this CPU has them; none elsewhere (AArch64 has
    NEON by default; other hosts use the scalar backend)."""
    if "LINATTN_CFLAGS" in os.environ:
        return os.environ["LINATTN_CFLAGS"].split()
    if platform.machine().lower() in ("x86_64", "amd64") and _cpu_has("avx2", "fma"):
        return ["-mavx2", "-mfma"]
    return []


def compile_command(precision, header, output):
    """The command that builds the library: the same as `make lib`'s, less
    its warning flags."""
    _check_precision(precision)
    cmd = _compiler() + ["-std=c99", "-O2", "-fPIC", "-shared"] + simd_flags()
    cmd += ["-D_POSIX_C_SOURCE=200809L", "-DLINATTN_IMPLEMENTATION"]
    if precision == "double":
        cmd.append("-DLINATTN_DOUBLE")
    if sys.platform == "darwin":
        cmd += ["-undefined", "dynamic_lookup"]
    return cmd + ["-x", "c", header, "-o", output, "-lm"]


def build(precision, header=None, directory=None, quiet=False):
    """The library of `precision` built from `header` into `directory` (the
    cache), or the one already there; its path."""
    header = header or header_path()
    directory = directory or cache_dir()
    with open(header, "rb") as f:
        text = f.read()
    key_cmd = compile_command(precision, "linattn.h", "out")
    key = hashlib.sha256(text + b"\0" + "\0".join(key_cmd).encode()).hexdigest()[:16]
    path = os.path.join(directory, "liblinattn-%s-%s%s" % (precision, key, _SUFFIX))
    _private_dir(directory)
    if _cached(path):
        return path
    tmp = "%s.%d.tmp" % (path, os.getpid())
    cmd = compile_command(precision, header, tmp)
    if not quiet:
        sys.stderr.write("linattn: building the %s library for this host from %s "
                         "(once; kept in %s)\n" % (precision, header, directory))
        sys.stderr.flush()
    try:
        done = subprocess.run(cmd, capture_output=True, text=True)
    except OSError as e:
        raise RuntimeError("linattn: cannot run the C compiler %r: %s" % (cmd[0], e))
    if done.returncode != 0:
        try:
            os.remove(tmp)
        except OSError:
            pass
        raise RuntimeError("linattn: building the library failed:\n  %s\n%s"
                           % (" ".join(cmd), done.stderr[-4000:]))
    os.chmod(tmp, 0o755)  # writable by its owner only, whatever the umask
    os.replace(tmp, path)  # atomic: a concurrent build writes the same bytes
    return path


def find(precision):
    """The path of the library of `precision` (see the module's text)."""
    _check_precision(precision)
    given = os.environ.get("LINATTN_LIB")
    if given:
        path = os.path.join(given, library_name(precision)) if os.path.isdir(given) else given
        if not os.path.isfile(path):
            raise FileNotFoundError(
                "linattn: LINATTN_LIB=%s: no library %s (make lib builds both "
                "precisions into build/)" % (given, path))
        return path
    return build(precision)
