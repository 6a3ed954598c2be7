"""A run described once: la_run_config, reached only through the header's
run-field table (la_run_field_at, la_run_field_get/set by value), so that a
field added to the header appears here with no change."""
import ctypes
from ctypes import byref, c_char_p, c_double, memmove, sizeof

from . import _lib

KINDS = ("int", "long", "u64", "real", "enum", "bool", "optimizer")
_IDENTITY, _SEED, _SHAPE = 1, 2, 4
_REAL, _ENUM, _BOOL, _OPT = 3, 4, 5, 6


class Field:
    """A row of the run-field table.

    key       the JSON key (with '-' for '_', the `linattn` flag)
    kind      'int', 'long', 'u64', 'real', 'enum', 'bool' or 'optimizer'
    lo, hi    the values allowed (enum: the indices of its names)
    names     the names of an enum's or the optimizer's values (index: value)
    identity  part of what the run is (everything but its length and what
              is measured along it)
    seed      the seed: runs differing only here are seeds of one setting
    shape     decides theta's layout
    optim     an optimizer's setting
    help      one line, the default included
    """

    def __init__(self, lib, row):
        f = row.contents
        self._row = row
        self.key = f.key.decode()
        self.kind = KINDS[f.kind]
        self.lo, self.hi = f.lo, f.hi
        self.identity = bool(f.flags & _IDENTITY)
        self.seed = bool(f.flags & _SEED)
        self.shape = bool(f.flags & _SHAPE)
        self.optim = bool(f.optim)
        self.help = f.help.decode() if f.help else ""
        self.names = None
        if f.kind in (_ENUM, _OPT):
            names, i = [], 0
            while True:
                nm = lib.la_run_field_name(row, i)
                if nm is None:
                    break
                names.append(nm.decode())
                i += 1
            self.names = tuple(names)

    def __repr__(self):
        return "Field(%r, %s, %s)" % (self.key, self.kind, self.help)


class _Table:
    """The table of one library, read once."""

    def __init__(self, lib):
        self.fields = [Field(lib, lib.la_run_field_at(i))
                       for i in range(lib.la_run_field_count())]
        self.by_key = {f.key: f for f in self.fields}


_tables = {}


def _table(lib):
    t = _tables.get(lib.precision)
    if t is None:
        t = _tables[lib.precision] = _Table(lib)
    return t


def fields(precision=None):
    """Every run field, in the table's order."""
    return list(_table(_lib.lib_of(precision)).fields)


def presets(precision=None):
    """The papers' experiments: {name: what it is}."""
    lib = _lib.lib_of(precision)
    out, i = {}, 0
    about = c_char_p()
    while True:
        nm = lib.la_run_preset_name(i, byref(about))
        if nm is None:
            return out
        out[nm.decode()] = about.value.decode()
        i += 1


def optimizers(precision=None):
    """The registry's optimizers, by name."""
    return list(_table(_lib.lib_of(precision)).by_key["opt"].names)


class RunConfig:
    """The description of a run (la_run_config) as a mapping of the table's
    keys to values: names for enums and the optimizer, bool, int or float
    otherwise.

        cfg = RunConfig("1", opt="sgd", lr=0.01, steps=2000)
        cfg["depth"] = 4          # or cfg.depth = 4
        cfg.update(batch=500, schedule="cosine")

    A preset (la_run_preset: every experiment of both papers, see presets())
    gives every field; the keyword arguments are then set in the table's
    order. Zero means a field's default; for real fields, as on the `linattn`
    command line, a 0 given is zero itself (LA_ZERO) and None the default."""

    def __init__(self, preset="1", opt=None, precision=None, **values):
        lib = _lib.lib_of(precision)
        object.__setattr__(self, "_lib", lib)
        object.__setattr__(self, "_buf", lib.opaque(_lib.T_RUN_CONFIG))
        object.__setattr__(self, "_table", _table(lib))
        if preset is not None:
            st = lib.la_run_preset(self._buf, preset.encode(),
                                   opt.encode() if opt else None)
            if st:
                known = ", ".join(presets(lib))
                raise lib.error(st, "la_run_preset", "preset %r with optimizer %r "
                                "(presets: %s; optimizers: %s)"
                                % (preset, opt, known, ", ".join(optimizers(lib))))
        elif opt is not None:
            self["opt"] = opt
        order = [f.key for f in self._table.fields if f.key in values]
        unknown = set(values) - set(order)
        if unknown:
            raise KeyError(self._unknown(sorted(unknown)[0]))
        for k in order:
            self[k] = values[k]

    # ------------------------------------------------------------ fields
    def _unknown(self, key):
        return "unknown run field %r (fields: %s)" % (
            key, ", ".join(f.key for f in self._table.fields))

    def field(self, key):
        """The table's row of key (or its flag spelling, '-' for '_')."""
        f = self._table.by_key.get(key) or self._table.by_key.get(key.replace("-", "_"))
        if f is None:
            raise KeyError(self._unknown(key))
        return f

    def raw(self, key):
        """The field's value as the library's double (an enum's index, the
        optimizer's registry index)."""
        f = self.field(key)
        v = c_double()
        self._lib.check(self._lib.la_run_field_get(self._buf, f._row, byref(v)),
                        "la_run_field_get", key)
        return v.value

    def _set_raw(self, key, value):
        """Sets a field to the library's double (an enum's index; the
        optimizer by name), bits and all: a stored LA_ZERO stays one."""
        f = self.field(key)
        if f.kind == "optimizer":
            if value not in f.names:
                raise self._lib.error(-6, "la_run_field_set", "opt = %r is not in the "
                                      "registry" % (value,))
            value = f.names.index(value)
        self._lib.check(self._lib.la_run_field_set(self._buf, f._row, float(value)),
                        "la_run_field_set", "%s = %r" % (key, value))

    def __getitem__(self, key):
        f = self.field(key)
        v = self.raw(key)
        if f.kind in ("enum", "optimizer"):
            return f.names[int(v)]
        if f.kind == "bool":
            return bool(v)
        if f.kind == "real":
            return v
        return int(v)

    def __setitem__(self, key, value):
        f = self.field(key)
        if f.kind in ("enum", "optimizer") and isinstance(value, str):
            if value not in f.names or not value:
                raise self._lib.error(-6, "la_run_field_set", "%s = %r is not one of: %s"
                                      % (f.key, value, ", ".join(n for n in f.names if n)))
            v = float(f.names.index(value))
        elif f.kind == "real":
            if value is None:
                v = 0.0  # the default
            else:
                v = float(value)
                if v == 0:
                    v = -0.0  # LA_ZERO: zero itself, as the command line says it
        else:
            if isinstance(value, float) and value != int(value):
                raise self._lib.error(-6, "la_run_field_set",
                                      "%s = %r: a whole number expected" % (f.key, value))
            v = float(int(value))
        st = self._lib.la_run_field_set(self._buf, f._row, v)
        if st:
            raise self._lib.error(st, "la_run_field_set", "%s = %r (allowed: %g to %g)"
                                  % (f.key, value, f.lo, f.hi))

    def __getattr__(self, key):
        if key.startswith("_"):
            raise AttributeError(key)
        try:
            return self[key]
        except KeyError as e:
            raise AttributeError(str(e))

    def __setattr__(self, key, value):
        if key.startswith("_") or key in type(self).__dict__:
            object.__setattr__(self, key, value)
        else:
            self[key] = value

    def __contains__(self, key):
        return key in self._table.by_key

    def __iter__(self):
        return iter(self.keys())

    def __len__(self):
        return len(self._table.fields)

    def keys(self):
        return [f.key for f in self._table.fields]

    def items(self):
        return [(k, self[k]) for k in self.keys()]

    def update(self, values=None, **kw):
        """Sets several fields; returns self."""
        for k, v in dict(values or {}, **kw).items():
            self[k] = v
        return self

    def to_dict(self):
        """{key: value} in the table's order (a pandas row: the config line
        of `linattn train`)."""
        return dict(self.items())

    # ------------------------------------------------------------ whole
    def copy(self):
        c = RunConfig(None, precision=self._lib)
        memmove(c._buf, self._buf, sizeof(self._buf))
        return c

    def resolve(self):
        """A copy with every default written out (la_run_resolve), checking
        every field: LinattnError for one out of range or a run that cannot
        be built."""
        c = RunConfig(None, precision=self._lib)
        st = self._lib.la_run_resolve(self._buf, c._buf)
        if st:
            raise self._lib.error(st, "la_run_resolve", self._first_bad())
        return c

    def _first_bad(self):
        """The first field that, laid on the defaults with the fields before
        it, keeps the description from resolving (as `linattn` names it)."""
        base = RunConfig(None, precision=self._lib)
        out = RunConfig(None, precision=self._lib)
        for f in self._table.fields:
            _copy_field(self, base, f)
            if self._lib.la_run_resolve(base._buf, out._buf):
                return "%s = %r" % (f.key, self[f.key])
        return None

    def diff(self, other, identity_only=False):
        """The first key in which the two resolved descriptions differ, or
        None (la_run_diff; identity_only: only fields that make the run what
        it is)."""
        flags = _IDENTITY if identity_only else 0xFFFFFFFF
        f = self._lib.la_run_diff(self._buf, other._buf, flags)
        return f.contents.key.decode() if f else None

    def __eq__(self, other):
        """Whether the two mean the same run (equal once resolved)."""
        return isinstance(other, RunConfig) and self.diff(other) is None

    __hash__ = None

    def __repr__(self):
        d = self.to_dict()
        return "RunConfig(%s)" % ", ".join("%s=%r" % kv for kv in d.items())


def _copy_field(src, dst, f):
    v = c_double()
    src._lib.la_run_field_get(src._buf, f._row, byref(v))
    if f.kind == "real":  # the bits: LA_ZERO stays
        off = f._row.contents.offset
        memmove(ctypes.addressof(dst._buf) + off, ctypes.addressof(src._buf) + off, 8)
    else:
        dst._lib.la_run_field_set(dst._buf, f._row, v.value)


def config_in(lib, cfg):
    """A copy of cfg for library lib: its bytes when cfg is lib's, else
    field by field through the table (the two builds' layouts need not
    agree)."""
    c = RunConfig(None, precision=lib)
    if cfg._lib is lib:
        memmove(c._buf, cfg._buf, sizeof(c._buf))
    else:
        for k in cfg.keys():
            c._set_raw(k, cfg["opt"] if k == "opt" else cfg.raw(k))
    return c
