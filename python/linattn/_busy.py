"""One thread at a time on a run: a second thread's call, or a run's train
called again from its own callback, is refused (LinattnError BUSY) at once,
never run beside the first (the run's trainer, workspaces and theta are
one each)."""
import contextlib
import functools
import threading

from ._errors import busy_error


class Busy:
    """Who is using a run: the thread that holds it (its calls nest: a
    train's callback may measure, sample and save), and whether it is
    training."""

    def __init__(self):
        self._lock = threading.Lock()
        self._owner = None
        self._training = False

    @contextlib.contextmanager
    def hold(self, what, train=False):
        me = threading.get_ident()
        nested = self._owner == me  # only this thread writes its own id
        if nested and train and self._training:
            raise busy_error(what, "%s: the run is training (called from its own "
                             "callback; return True from the callback to stop it)" % what)
        if not nested:
            if not self._lock.acquire(blocking=False):
                raise busy_error(what, "%s: another thread is using this run (a run is "
                                 "used by one thread at a time; runs in several "
                                 "threads train at once)" % what)
            self._owner = me
        was = self._training
        self._training = was or train
        try:
            yield
        finally:
            self._training = was
            if not nested:
                self._owner = None
                self._lock.release()


def exclusive(train=False):
    """A method that holds its object's run (self._busy) while it runs."""
    def wrap(fn):
        what = fn.__qualname__

        @functools.wraps(fn)
        def held(self, *args, **kw):
            with self._busy.hold(what, train):
                return fn(self, *args, **kw)
        return held
    return wrap
