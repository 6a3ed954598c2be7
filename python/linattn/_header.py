"""The header's own constants, read from its text: what a compiled program
depends on and no function of the library lists (the kinds and flags of the
run-field table, the LA_TYPE_* codes of la_sizeof) and, for the checkpoint
reader that runs without the library, the status table. Nothing here is
written twice: each value is the header's, parsed from the header the
package builds its library from (tests hold the two to each other)."""
import re

from . import _build

_text = None


def text():
    """The header's text (read once)."""
    global _text
    if _text is None:
        with open(_build.header_path(), encoding="utf-8") as f:
            _text = f.read()
    return _text


def _enum(prefix):
    """{NAME: value} of the enumerators `PREFIX... = value` of the header."""
    return {m.group(1): int(m.group(2)) for m in
            re.finditer(r"\b(%s\w+)\s*=\s*(-?\d+)\s*[,}/\n]" % prefix, text())}


def _names(prefix):
    """The enumerators of prefix in value order, named in lower case without
    the prefix ('LA_FIELD_REAL' -> 'real')."""
    e = _enum(prefix)
    out = [None] * (max(e.values()) + 1)
    for name, v in e.items():
        out[v] = name[len(prefix):].lower()
    return tuple(out)


def field_kinds():
    """The run-field kinds, by value: ('int', 'long', ..., 'optimizer')."""
    return _names("LA_FIELD_")


def field_flags():
    """{'identity': 1, 'seed': 2, ...}: the LA_FIELD_* flag bits."""
    return {m.group(1).lower(): int(m.group(2)) for m in
            re.finditer(r"#define LA_FIELD_(\w+) (\d+)u", text())}


def type_codes():
    """{'run_config': 1, ...}: la_sizeof's LA_TYPE_* codes."""
    return {k[len("LA_TYPE_"):].lower(): v for k, v in _enum("LA_TYPE_").items()}


def define(name):
    """The integer value of `#define NAME value` (hexadecimal, u suffixes)."""
    m = re.search(r"#define %s\s+(\(?-?[0-9a-fA-Fx]+)(u|ull|ul)?\b" % name, text())
    if m is None:
        raise KeyError(name)
    return int(m.group(1).lstrip("("), 0)


def statuses():
    """{code: (name, message)} of the header's LA_STATUS_LIST."""
    return {int(m.group(2)): (m.group(1), m.group(3)) for m in
            re.finditer(r'X\((LA_\w+), (-?\d+), "([^"]*)"\)', text())}
