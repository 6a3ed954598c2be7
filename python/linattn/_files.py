"""Files read with the C readers' guarantees: only a regular file (a FIFO,
a device or a folder is refused at once, never read until it ends), read
to the size it has, never beyond a bound; every failure a LinattnError."""
import os
import stat

from ._errors import LinattnError, status_error

# The C reader's bound (linattn.h's LA__CK_MAX_BYTES on 64-bit hosts): a
# file beyond it is not a checkpoint.
MAX_BYTES = 10 ** 12


def read_regular(path, what="checkpoint"):
    """The bytes of a regular file; LA_EIO for anything else or a failed
    read, as la_checkpoint_load gives."""
    name = os.fspath(path)
    try:
        # O_NONBLOCK: opening a FIFO with no writer returns at once
        fd = os.open(name, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as e:
        raise status_error("LA_EIO", what, "%s: %s" % (name, e.strerror or e))
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise status_error("LA_EIO", what, "%s: not a regular file" % name)
        if st.st_size > MAX_BYTES:
            raise status_error("LA_EIO", what, "%s: %d bytes, more than a %s holds"
                               % (name, st.st_size, what))
        chunks, left = [], st.st_size
        while left > 0:
            b = os.read(fd, min(left, 1 << 24))
            if not b:
                break
            chunks.append(b)
            left -= len(b)
        return b"".join(chunks)
    except LinattnError:  # said once, as raised above (it is an OSError too)
        raise
    except OSError as e:
        raise status_error("LA_EIO", what, "%s: %s" % (name, e.strerror or e))
    finally:
        os.close(fd)
