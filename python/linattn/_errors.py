"""The exception every failed call raises."""


class LinattnError(Exception):
    """A call into linattn.h returned a status other than LA_OK.

    status   the library's code (negative), e.g. -6
    name     its name in the header, e.g. "LA_ERANGE"
    message  la_status_str's words, e.g. "a configuration value is out of range"
    where    the library function, or the package's operation, that failed
    detail   what the package knows beyond the status (a field, a value, a file)
    """

    def __init__(self, status, name, message, where=None, detail=None):
        self.status = status
        self.name = name
        self.message = message
        self.where = where
        self.detail = detail
        text = "%s: %s" % (name, message)
        extra = ", ".join(x for x in (where, detail) if x)
        if extra:
            text += " (%s)" % extra
        super().__init__(text)
