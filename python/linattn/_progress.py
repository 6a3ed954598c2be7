"""Progress of a training call: a tqdm bar where tqdm imports, else one
line of text on stderr redrawn in place. Shown by default only where a
person watches: stderr a terminal, or a notebook's kernel."""
import sys
import time


def wanted(progress):
    """Whether to show progress: as asked (True, False), else (None) only
    on a terminal or in a notebook."""
    if progress is not None:
        return bool(progress)
    if "ipykernel" in sys.modules:
        return True
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):
        return False


class Progress:
    """step(t) after each step, close() at the end."""

    def __init__(self, start, total):
        self.start, self.total = start, total
        self.bar = None
        try:
            from tqdm.auto import tqdm
        except ImportError:
            tqdm = None
        if tqdm is not None:
            self.bar = tqdm(total=total, initial=start, unit="step", dynamic_ncols=True)
        self.t0 = self.shown = time.monotonic()
        self.at = start

    def step(self, t):
        if self.bar is not None:
            self.bar.update(t - self.at)
        else:
            now = time.monotonic()
            if now - self.shown >= 0.2 or t == self.total:
                self.shown = now
                self._line(t, now)
        self.at = t

    def _line(self, t, now):
        rate = (t - self.start) / max(now - self.t0, 1e-9)
        left = (self.total - t) / rate if rate > 0 else float("inf")
        sys.stderr.write("\rstep %d/%d (%3.0f%%), %.0f steps/s, %.1f s left   "
                         % (t, self.total, 100.0 * t / max(self.total, 1), rate, left))
        sys.stderr.flush()

    def close(self):
        if self.bar is not None:
            self.bar.close()
        else:
            self._line(self.at, time.monotonic())
            sys.stderr.write("\n")
            sys.stderr.flush()
