"""Runs the package's tests (unittest; pytest runs them as well) and ends
with the line `make test` counts: "N passed, N failed"."""
import os
import sys
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)


class Result(unittest.TextTestResult):
    def addSuccess(self, test):
        super().addSuccess(test)
        self.stream.write("ok   %s\n" % test.id())

    def addFailure(self, test, err):
        super().addFailure(test, err)
        self.stream.write("FAIL %s\n" % test.id())

    def addError(self, test, err):
        super().addError(test, err)
        self.stream.write("FAIL %s (error)\n" % test.id())

    def addSkip(self, test, reason):
        super().addSkip(test, reason)
        self.stream.write("skip %s: %s\n" % (test.id(), reason))


def main():
    pattern = sys.argv[1] if len(sys.argv) > 1 else "test_*.py"
    suite = unittest.defaultTestLoader.discover(HERE, pattern=pattern, top_level_dir=HERE)
    t0 = time.time()
    runner = unittest.TextTestRunner(stream=sys.stdout, verbosity=0, resultclass=Result)
    r = runner.run(suite)
    failed = len(r.failures) + len(r.errors)
    passed = r.testsRun - failed - len(r.skipped)
    print("%.1f s, %d skipped" % (time.time() - t0, len(r.skipped)))
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
