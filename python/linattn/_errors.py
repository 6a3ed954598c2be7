"""The exception every failed call raises, and the Python exception each
status also is, so that `except ValueError` catches bad input."""


class LinattnError(Exception):
    """A call into linattn.h returned a status other than LA_OK, or the
    package refused an argument for the same reason.

    status   the library's code (negative), e.g. -6
    name     its name in the header, e.g. "LA_ERANGE"
    message  la_status_str's words, e.g. "a configuration value is out of range"
    where    the library function, or the package's operation, that failed
    detail   what is known beyond the status, in the `linattn` command's
             words where it has them ("beta1 0.9: sgd does not read it")

    An error of bad input (LA_ERANGE, LA_EDIM, LA_ESHAPE, LA_ENONFINITE, a
    bad file's LA_EFORMAT, ...) is also a ValueError, LA_EIO an OSError and
    LA_ENOMEM a MemoryError. The package's one refusal without a status of
    the header's is BUSY (status None): a run in use by another thread, or
    its train called again from its own callback (busy_error)."""

    def __init__(self, status, name, message, where=None, detail=None):
        self.status = status
        self.name = name
        self.message = message
        self.where = where
        self.detail = detail
        if detail:
            text = "%s (%s: %s)" % (detail, name, message)
        else:
            text = "%s: %s" % (name, message) + (" (%s)" % where if where else "")
        super().__init__(text)

    def __reduce__(self):  # a process pool carries it back whole
        return (error_class(self.name), (self.status, self.name, self.message,
                                         self.where, self.detail))


class LinattnValueError(LinattnError, ValueError):
    """A LinattnError of bad input."""


class LinattnOSError(LinattnError, OSError):
    """LA_EIO: a file could not be read or written."""


class LinattnMemoryError(LinattnError, MemoryError):
    """LA_ENOMEM."""


# Which Python exception each status is beside LinattnError: a fact of
# Python's, not of the header's (whose table gives codes, names and words).
_PYTHON_KIND = {"LA_ENULL": LinattnValueError, "LA_EDIM": LinattnValueError,
                "LA_EOVERFLOW": LinattnValueError, "LA_ERANGE": LinattnValueError,
                "LA_ENONFINITE": LinattnValueError, "LA_ENOTSPD": LinattnValueError,
                "LA_ESHAPE": LinattnValueError, "LA_EFORMAT": LinattnValueError,
                "LA_EVERSION": LinattnValueError, "LA_ECHECKSUM": LinattnValueError,
                "LA_EIO": LinattnOSError, "LA_ENOMEM": LinattnMemoryError}


def error_class(name):
    """The class of a status's error, by the status's name."""
    return _PYTHON_KIND.get(name, LinattnError)


def make_error(status, name, message, where=None, detail=None):
    return error_class(name)(status, name, message, where, detail)


def status_error(name, where=None, detail=None):
    """The error of a status by its name, its code and words from the
    header's table: the loaded library's (la_status_name, la_status_str),
    else the header's text (the checkpoint reader runs without a library)."""
    from . import _header, _lib
    table = _lib.loaded_statuses() or _header.statuses()
    for code, (nm, message) in table.items():
        if nm == name:
            return make_error(code, name, message, where, detail)
    raise KeyError(name)


# The name of the package's own refusal of a run in use (no status of the
# header's: the library itself has no notion of who calls it).
BUSY = "busy"


def busy_error(where, detail):
    """The refusal of a run in use: LinattnError with status None and the
    name BUSY."""
    return LinattnError(None, BUSY, "the run is in use", where, detail)
