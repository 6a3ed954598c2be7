"""Arguments checked as C will take them: whole numbers that are whole
numbers (not bool, float, str or complex) and fit the C type they go to,
reals that are real numbers. A refusal is a LinattnError with the header's
LA_ERANGE (also a ValueError) that names the argument's type or range,
never a wrapped or truncated value."""
import numbers
import operator

from ._errors import status_error

# The ranges of the C types an argument may go to (LP64 and ILP32 alike
# for int; long is 64 bits on the hosts the package builds for, and a
# 32-bit long is checked by the library itself).
C_INT = (-2 ** 31, 2 ** 31 - 1)
C_LONG = (-2 ** 63, 2 ** 63 - 1)
C_U64 = (0, 2 ** 64 - 1)


def integer(value, what, lo=C_INT[0], hi=C_INT[1]):
    """value as a Python int in [lo, hi]: an int or numpy integer (operator.
    index takes it), not bool, float, str or complex."""
    if isinstance(value, bool) or not _is_index(value):
        raise _refused(what, value, "is not a whole number (%s)" % type(value).__name__)
    v = operator.index(value)
    if not lo <= v <= hi:
        raise _refused(what, value, "is outside its range (%d to %d)" % (lo, hi))
    return v


def real(value, what):
    """value as a float: a real number (int, float, numpy's), not bool, str
    or complex."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise _refused(what, value, "is not a real number (%s)" % type(value).__name__)
    return float(value)


def _is_index(value):
    try:
        operator.index(value)
        return True
    except TypeError:
        return False


def _refused(what, value, why):
    return status_error("LA_ERANGE", None, "%s %r: %s" % (what, value, why))
