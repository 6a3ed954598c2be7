"""Checkpoint files read in Python alone, without the library, as
docs/checkpoint.md lays them out (versions 1 to 3).

    ck = read("run.ckpt")
    ck.step, ck.optimizer, ck.theta      # theta: float64, the header's packing
    ck.run["lr"], ck.run["opt"]          # the description, as stored

A file is checked as the library checks it before it trusts any part:
magic, version, length, the FNV-1a 64 checksum, the sizes of its parts, and
the description's framing. The ranges of the values and the keys a build
knows are the header's table: give it (fields=linattn.fields()) to check
them too, as la_checkpoint_run does. A bad file raises LinattnError with the
status the library gives it (LA_EFORMAT, LA_EVERSION, LA_ECHECKSUM; LA_EIO
for a file that cannot be read, or that is not a regular file); the
statuses, kinds and limits are the header's (linattn._header)."""
import math
import os
import struct

import numpy as np

from . import _files, _header
from ._errors import LinattnError, make_error, status_error

MAGIC = b"LACKPT\r\n"
GIVEN = 0x80  # version 3: a kind byte's bit for a field given
LONG_MAX = 2 ** 63 - 1  # the step becomes a C long (64-bit hosts)


def _fail(name, detail):
    return status_error(name, "checkpoint", detail)


def fnv1a64(data):
    """FNV-1a 64 of bytes (the checksum of the last 8 bytes of a file)."""
    h = 0xCBF29CE484222325
    for b in data:
        h = ((h ^ b) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return h


def _u32(p, at):
    return struct.unpack_from("<I", p, at)[0]


def _u64(p, at):
    return struct.unpack_from("<Q", p, at)[0]


class Checkpoint:
    """A checkpoint's contents.

    version      1, 2 or 3
    real_size    sizeof(la_real) of the writer: 4 (float) or 8 (double)
    nparams      the length of theta
    step         steps taken
    seed         the seed of the training data
    batch_drawn  whether the current batch was drawn (resample, fixed data)
    rng          the data generator (key, stream, counter)
    batch_rng    the generator where the current batch began
    optimizer    the optimizer's name
    state        its state (float64; Adam: t, m, v)
    theta        the parameters (float64)
    run          versions 2, 3: the description, {key: value} as stored
                 (ints for integer, enum and bool kinds, an enum as the
                 index of its name; floats for reals; the optimizer's name)
    kinds        versions 2, 3: {key: kind name}
    given        version 3: {key: whether the field was given}; version 2
                 holds no such bit (la_checkpoint_run says what it means)
    model        version 1: the model's shape (d, n, layers, param,
                 activation, front_hidden, init_std)
    """

    def run_config(self, precision=None):
        """The description as a linattn.RunConfig, as the library reads it
        (la_checkpoint_run: the given bits, a version 2 file's meaning)."""
        from . import _lib
        from .config import RunConfig
        lib = _lib.lib_of(precision)
        cfg = RunConfig(None, precision=lib)
        lib.check(lib.la_checkpoint_run(self.data, len(self.data), cfg._buf, None),
                  "la_checkpoint_run")
        return cfg

    def __repr__(self):
        return "Checkpoint(version %d, %d parameters, step %d, %s)" % (
            self.version, self.nparams, self.step, self.optimizer)


def _desc(p, at, end, fields, version):
    """The description's fields between at and end."""
    KINDS = _header.field_kinds()
    NAME_MAX = _header.define("LA_NAME_MAX")
    run, kinds, given = {}, {}, {}
    table = None if fields is None else {f.key: f for f in fields}
    while at < end:
        k = p[at]
        if k == 0 or at + 2 + k > end:
            raise _fail("LA_EFORMAT", "a field of the description runs past its end")
        key = p[at + 1:at + 1 + k].decode("latin-1")
        kind = p[at + 1 + k] & ~(GIVEN if version >= 3 else 0)
        given[key] = bool(p[at + 1 + k] & GIVEN)
        if table is not None and key not in table:
            raise _fail("LA_EVERSION", "field %r, unknown to this build (a later "
                                       "version's)" % key)
        if key in run:
            raise _fail("LA_EFORMAT", "field %r is there twice" % key)
        if kind >= len(KINDS) or (table is not None and table[key].kind != KINDS[kind]):
            raise _fail("LA_EFORMAT", "field %r has kind %d%s" % (
                key, kind, "" if table is None else ", not %s's" % table[key].kind))
        at += 2 + k
        if KINDS[kind] == "optimizer":
            nl = p[at] if at < end else 0
            name = p[at + 1:at + 1 + nl]
            if at >= end or nl == 0 or nl > NAME_MAX - 1 or at + 1 + nl > end or \
                    b"\0" in name:
                raise _fail("LA_EFORMAT", "the optimizer's name in field %r" % key)
            value = name.decode("latin-1")
            at += 1 + nl
        else:
            if at + 8 > end:
                raise _fail("LA_EFORMAT", "field %r is cut short" % key)
            if KINDS[kind] == "real":
                value = struct.unpack_from("<d", p, at)[0]
            elif KINDS[kind] == "u64":
                value = _u64(p, at)
            else:
                value = struct.unpack_from("<q", p, at)[0]
            at += 8
            if table is not None:
                # as the library: a real need only be finite (a trainer's
                # checkpoint may hold a rate no flag allows), a 64-bit field
                # is any, whole numbers are held to their ranges in double
                # (0 too: a field that does not apply, or its default)
                f, v = table[key], float(value)
                if KINDS[kind] == "real":
                    bad = not math.isfinite(value)
                elif KINDS[kind] == "u64":
                    bad = False
                else:
                    bad = not (v == 0 or f.lo <= v <= f.hi) or \
                        (KINDS[kind] == "long" and v > LONG_MAX)
                if bad:
                    raise _fail("LA_EFORMAT", "field %r = %r is out of its range"
                                % (key, value))
        run[key] = value
        kinds[key] = KINDS[kind]
    return run, kinds, given


def parse(data, fields=None):
    """A Checkpoint from a file's bytes."""
    p = bytes(data)
    n = len(p)
    if n < 12 or p[:8] != MAGIC:
        raise _fail("LA_EFORMAT", "not a checkpoint (no LACKPT magic)")
    version = _u32(p, 8)
    if not 1 <= version <= _header.define("LA_CHECKPOINT_VERSION"):
        raise _fail("LA_EVERSION", "format version %d" % version)
    head = 128 if version == 1 else 104
    if n < head + 8 or _u64(p, 16) != n:
        raise _fail("LA_EFORMAT", "%d bytes where the file says %d"
                    % (n, _u64(p, 16) if n >= 24 else -1))
    if _u64(p, n - 8) != fnv1a64(p[:n - 8]):
        raise _fail("LA_ECHECKSUM", "the FNV-1a 64 of the file's bytes")
    ck = Checkpoint()
    ck.version = version
    ck.real_size = _u32(p, 12)
    ck.run = ck.kinds = ck.model = ck.given = None
    ck.data = p
    if version == 1:
        ck.nparams, ck.step, ck.seed = _u64(p, 56), _u64(p, 64), _u64(p, 72)
        ck.batch_drawn, words = _u32(p, 80) != 0, _u32(p, 84)
        name_at, state_len = 88, _u64(p, 120)
        d, nn, layers, param, act, front = struct.unpack_from("<6i", p, 24)
        ck.model = dict(d=d, n=nn, layers=layers, param=param, activation=act,
                        front_hidden=front, init_std=struct.unpack_from("<d", p, 48)[0])
    else:
        ck.nparams, ck.step, ck.seed = _u64(p, 24), _u64(p, 32), _u64(p, 40)
        ck.batch_drawn, words = _u32(p, 48) != 0, _u32(p, 52)
        name_at, state_len = 72, _u64(p, 56)
        desc_len = _u32(p, 64)
        if desc_len > n or _u32(p, 68) != 0:
            raise _fail("LA_EFORMAT", "the description's length")
        desc_at = head
        head += (desc_len + 7) // 8 * 8
    if state_len > n // 8 or ck.nparams > n // 8 or words > 8 or ck.nparams == 0 or \
            head > n or 8 * (2 * words + state_len + ck.nparams) + 8 != n - head:
        raise _fail("LA_EFORMAT", "the sizes of its parts do not add up to the file")
    if ck.step > LONG_MAX:
        raise _fail("LA_EFORMAT", "step %d" % ck.step)
    name = p[name_at:name_at + _header.define("LA_NAME_MAX")]
    if name[-1] != 0:
        raise _fail("LA_EFORMAT", "the optimizer's name is not NUL-terminated")
    ck.optimizer, rest = name.split(b"\0", 1)
    if any(rest):
        raise _fail("LA_EFORMAT", "bytes after the optimizer's name")
    ck.optimizer = ck.optimizer.decode("latin-1")
    if version >= 2:
        ck.run, ck.kinds, given = _desc(p, desc_at, desc_at + desc_len, fields, version)
        ck.given = given if version >= 3 else None
    at = head
    ck.rng = struct.unpack_from("<%dQ" % words, p, at)
    ck.batch_rng = struct.unpack_from("<%dQ" % words, p, at + 8 * words)
    at += 16 * words
    ck.state = np.frombuffer(p, dtype="<f8", count=state_len, offset=at).astype(np.float64)
    at += 8 * state_len
    ck.theta = np.frombuffer(p, dtype="<f8", count=ck.nparams, offset=at).astype(np.float64)
    return ck


def read(path, fields=None):
    """The checkpoint in a file (see parse), read as the C reader reads
    one: a regular file only, to its size (a FIFO, a device or a folder is
    LA_EIO at once). An error names the file once."""
    data = _files.read_regular(path)
    try:
        return parse(data, fields)
    except LinattnError as e:
        raise make_error(e.status, e.name, e.message, e.where,
                         "%s: %s" % (os.fspath(path), e.detail)) from None
