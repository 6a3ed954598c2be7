"""A run described once: la_run_config, reached only through the header's
run-field table (la_run_field_at; values by la_run_field_get, set, unset and
copy), so that a field added to the header appears here with no change. The
rule of presets, selectors, defaults and zero is the header's
(docs/library.md): a keyword given is given, zero included; None is not
given; la_run_resolve chooses every value not given; la_run_explain says
why a description is refused, in the `linattn` command's words."""
import ctypes
import math
from ctypes import POINTER, byref, c_char_p, c_double, memmove, sizeof

from . import _args, _header, _lib
from ._errors import status_error

_WHY_CAP = 400
# the C type of each whole kind's member, by the kind's name
_C_TYPE = {"int": (ctypes.c_int, _args.C_INT), "enum": (ctypes.c_int, _args.C_INT),
           "bool": (ctypes.c_int, _args.C_INT), "long": (ctypes.c_long, _args.C_LONG),
           "u64": (ctypes.c_uint64, _args.C_U64)}


class Field:
    """A row of the run-field table.

    key       the JSON key (with '-' for '_', the `linattn` flag)
    kind      'int', 'long', 'u64', 'real', 'enum', 'bool' or 'optimizer'
    lo, hi    the values allowed (enum: the indices of its names)
    names     the names of an enum's or the optimizer's values (index: value)
    default   the table's default (None: the optimizer's, or `follows`')
    follows   the key of the field whose value it takes when not given
    identity, seed, shape, selector, setting
              its flags (LA_FIELD_*): part of what the run is; the seed;
              decides theta's layout; chooses the values of fields not
              given (preset, setting, opt); fixed by a data setting
    optim     an optimizer's setting
    help      la_run_field_help: one line, its default in words
    """

    def __init__(self, lib, row):
        f = row.contents
        self._row = row
        self.key = f.key.decode()
        self.kind = _header.field_kinds()[f.kind]
        self.lo, self.hi = f.lo, f.hi
        for flag, bit in _header.field_flags().items():
            setattr(self, flag, bool(f.flags & bit))
        self.optim = bool(f.optim)
        self.offset = f.offset
        self.default = None if math.isnan(getattr(f, "def")) else getattr(f, "def")
        self.follows = f.follows.decode() if f.follows else None
        buf = ctypes.create_string_buffer(_WHY_CAP)
        lib.la_run_field_help(row, buf, _WHY_CAP)
        self.help = buf.value.decode()
        self.names = None
        if self.kind in ("enum", "optimizer"):
            names = []
            while True:
                nm = lib.la_run_field_name(row, len(names))
                if nm is None:
                    break
                names.append(nm.decode())
            self.names = tuple(names)

    def text(self, raw):
        """A value as the `linattn` command prints it: a name, the fewest
        digits that read back to the same double, or a whole number."""
        if self.names is not None:
            i = int(raw)
            return self.names[i] if 0 <= i < len(self.names) and self.names[i] else "?"
        if self.kind != "real":
            return "%d" % raw
        raw = raw + 0.0  # -0.0 prints as 0
        for digits in (15, 16):
            s = "%.*g" % (digits, raw)
            if float(s) == raw:
                return s
        return "%.17g" % raw

    def __repr__(self):
        return "Field(%r, %s: %s)" % (self.key, self.kind, self.help)


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
    out = {}
    about = c_char_p()
    while True:
        nm = lib.la_run_preset_name(len(out), byref(about))
        if nm is None:
            return out
        out[nm.decode()] = about.value.decode()


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
        cfg.resolve()             # every value written out

    The preset (an experiment of the papers, presets()), opt and every
    keyword are fields GIVEN (la_run_field_set, zero included: clip=0 is no
    clipping); None takes a field back (la_run_field_unset). The fields not
    given take their values when the description is resolved: the
    preset's for the optimizer, else the setting's, else the table's
    default (docs/library.md, "Presets, selectors, defaults and zero"). So
    RunConfig("1", setting="3") is Setting 3's data and training, and
    RunConfig("1", opt="sgd") paper A's SGD. A value refused is a
    LinattnError (a ValueError) in the `linattn` command's words, from
    la_run_explain: "beta1 0.9: sgd does not read it"."""

    def __init__(self, preset="1", opt=None, precision=None, **values):
        lib = _lib.lib_of(precision)
        object.__setattr__(self, "_lib", lib)
        object.__setattr__(self, "_buf", lib.opaque(_lib.TYPE["run_config"]))
        object.__setattr__(self, "_table", _table(lib))
        unknown = [k for k in values if self._find(k) is None]
        if unknown:
            raise KeyError(self._unknown(unknown[0]))
        if preset is not None:
            self["preset"] = preset
        if opt is not None:
            self["opt"] = opt
        for f in self._table.fields:  # the table's order, whatever the call's
            for k in (f.key, f.key.replace("_", "-")):
                if k in values:
                    self[f.key] = values[k]

    # ------------------------------------------------------------ fields
    def _find(self, key):
        t = self._table.by_key
        return t.get(key) or t.get(key.replace("-", "_")) if isinstance(key, str) else None

    def _unknown(self, key):
        import difflib
        keys = [f.key for f in self._table.fields]
        near = difflib.get_close_matches(str(key), keys, 3)
        return "unknown run field %r (%s; every field: linattn.fields())" % (
            key, "did you mean %s?" % " or ".join(near) if near else
            "fields: " + ", ".join(keys))

    def field(self, key):
        """The table's row of key (or its flag spelling, '-' for '_')."""
        f = self._find(key)
        if f is None:
            raise KeyError(self._unknown(key))
        return f

    def raw(self, key):
        """The field's value as the library's double (an enum's index, the
        optimizer's registry index)."""
        v = c_double()
        self._lib.check(self._lib.la_run_field_get(self._buf, self.field(key)._row,
                                                   byref(v)), "la_run_field_get", key)
        return v.value

    def given(self, key):
        """Whether the field is given (la_run_field_given): set, zero
        included, or not zero."""
        return bool(self._lib.la_run_field_given(self._buf, self.field(key)._row))

    def __getitem__(self, key):
        f = self.field(key)
        v = self.raw(key)
        if f.names is not None:
            return f.names[int(v)]
        if f.kind == "bool":
            return bool(v)
        return v if f.kind == "real" else int(v)

    def __setitem__(self, key, value):
        f = self.field(key)
        lib = self._lib
        if value is None:
            lib.check(lib.la_run_field_unset(self._buf, f._row), "la_run_field_unset", key)
            return
        raw = self._raw_of(f, value)
        if lib.la_run_field_set(self._buf, f._row, raw) != 0:
            raise self._refused(f, value, raw)

    def _raw_of(self, f, value):
        """The library's double for value, or a refusal of its type; a value
        of the right type but not allowed is the library's to refuse."""
        if f.names is not None:
            if not isinstance(value, str) and _args._is_index(value) and \
                    not isinstance(value, bool):
                value = str(int(value))  # setting=3: the name "3"
            if not isinstance(value, str):
                raise _args._refused(f.key, value, "is not a name: one of %s"
                                     % ", ".join(n for n in f.names if n))
            if value in f.names and value:
                return float(f.names.index(value))
            raise self._refused(f, value, value)
        if f.kind == "real":
            return _args.real(value, f.key)
        if f.kind == "bool" and isinstance(value, bool):
            return float(value)
        ctype, (lo, hi) = _C_TYPE[f.kind]
        v = _args.integer(value, f.key, lo, hi)
        if not f.lo <= v <= f.hi:  # exactly: beyond 2^53 a double would round
            raise self._refused(f, value, v if float(v) > f.hi or v < f.lo
                                else min(hi, 2 * int(f.hi) + 2))
        return float(v)

    def _refused(self, f, shown, raw):
        """The error of f given `shown` (raw: its double, or an unknown
        name), in la_run_explain's words: the value laid into a copy as it
        is, marked given, and explained."""
        t = self.copy()
        lib = self._lib
        lib.check(lib.la_run_field_set(t._buf, f._row, f.lo), "la_run_field_set", f.key)
        at = ctypes.addressof(t._buf) + f.offset
        if f.kind == "real":
            c_double.from_address(at).value = raw
        elif f.kind == "optimizer":
            name = str(raw).encode()[:_header.define("LA_NAME_MAX") - 1]
            ctypes.memset(at, 0, _header.define("LA_NAME_MAX"))
            ctypes.memmove(at, name, len(name))
        else:
            ctype, _ = _C_TYPE[f.kind]
            ctype.from_address(at).value = -1 if isinstance(raw, str) else int(raw)
        blame, why = t._explain()
        text = shown if isinstance(shown, str) else \
            str(shown) if f.kind != "real" else f.text(raw)
        detail = "%s %s: %s" % (f.key, text, why)
        if f.names:
            detail += " (%s)" % ", ".join(n for n in f.names if n)
        return status_error("LA_ERANGE", "la_run_field_set", detail)

    def _explain(self):
        """(the field to blame or None, why): la_run_explain."""
        blame = POINTER(_lib.RunField)()
        why = ctypes.create_string_buffer(_WHY_CAP)
        self._lib.la_run_explain(self._buf, byref(blame), why, _WHY_CAP)
        f = self._table.by_key[blame.contents.key.decode()] if blame else None
        return f, why.value.decode()

    def explain(self):
        """Why the description is refused, in the `linattn` command's words
        ("beta1 0.9: sgd does not read it"), or None when it resolves."""
        probe = RunConfig(None, precision=self._lib)
        if self._lib.la_run_resolve(self._buf, probe._buf) == 0:
            return None
        f, why = self._explain()
        if f is None:
            return "the run cannot be built: %s" % why
        return "%s %s: %s" % (f.key, f.text(self.raw(f.key)) if f.kind != "optimizer"
                              else self[f.key], why)

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
        return self._find(key) is not None

    def __dir__(self):  # a notebook completes the fields as attributes
        return sorted(set(object.__dir__(self)) | set(self.keys()))

    def __iter__(self):
        return iter(self.keys())

    def __len__(self):
        return len(self._table.fields)

    def keys(self):
        return [f.key for f in self._table.fields]

    def items(self):
        return [(k, self[k]) for k in self.keys()]

    def update(self, values=None, **kw):
        """Sets several fields (None: not given); returns self."""
        for k, v in dict(values or {}, **kw).items():
            self[k] = v
        return self

    def to_dict(self, given_only=False):
        """{key: value} in the table's order (resolved: the config line of
        `linattn train`); given_only: the fields given alone."""
        return {k: self[k] for k in self.keys() if not given_only or self.given(k)}

    # ------------------------------------------------------------ whole
    def copy(self):
        c = RunConfig(None, precision=self._lib)
        memmove(c._buf, self._buf, sizeof(self._buf))
        return c

    def resolve(self):
        """A copy with every value written out (la_run_resolve), checking
        every field: a LinattnError (ValueError) that names the field to
        blame and why, as the `linattn` command does."""
        c = RunConfig(None, precision=self._lib)
        st = self._lib.la_run_resolve(self._buf, c._buf)
        if st:
            raise self._lib.error(st, "la_run_resolve", self.explain())
        return c

    def diff(self, other, identity_only=False):
        """The first key in which the two resolved descriptions differ, or
        None (la_run_diff; identity_only: only fields that make the run what
        it is)."""
        flags = _header.field_flags()["identity"] if identity_only else 0xFFFFFFFF
        f = self._lib.la_run_diff(self._buf, other._buf, flags)
        return f.contents.key.decode() if f else None

    def __eq__(self, other):
        """Whether the two mean the same run (equal once resolved)."""
        return isinstance(other, RunConfig) and self.diff(other) is None

    __hash__ = None

    def __reduce__(self):
        """Pickled as the fields given (the library's layout is no part of
        it), by name for the names."""
        return (_restore, (self._lib.precision, self.to_dict(given_only=True)))

    def __repr__(self):
        d = self.to_dict()
        return "RunConfig(%s)" % ", ".join("%s=%r" % kv for kv in d.items())


def _restore(precision, given):
    return RunConfig(None, precision=precision).update(given)


def config_in(lib, cfg):
    """A copy of cfg for library lib: its bytes when cfg is lib's, else its
    fields given, field by field (the two builds' layouts need not agree)."""
    if cfg._lib is lib:
        return cfg.copy()
    return RunConfig(None, precision=lib).update(cfg.to_dict(given_only=True))
