#!/usr/bin/python3
"""What Python costs over the C library, and what seeds in parallel gain.

    bench/py/bench_python.py [--reps 5] [--steps 400]    (LINATTN_LIB=build)

Prints one row per measurement, machine-readable (name=value), then the
ratios the package promises:
  torch_over_c    linattn.torch's loss + gradient (forward and backward of
                  loss(theta, (Z, y)), the pair's bits compared at each call
                  with those its batch was packed from) over the C
                  library's own call
                  (la_model_grad through ctypes, its workspace allocated
                  once), at the base setting, batch 1000, one thread:
                  at most 1.5
  check_share     what that comparison takes of the call, and
  pack_over_check what packing a pair not seen before costs over it (the
                  price of answering from no cache at all)
  ref_over_torch  bench/py/torch_ref.py's autograd loss + gradient (the model
                  written in PyTorch, one thread) over linattn.torch's: at
                  least 10
  threads, processes
                  two seeds trained one after the other over the same two
                  in two threads (ThreadPoolExecutor) and in two processes
                  (ProcessPoolExecutor, the runs pickled): at least 1.8 on
                  two free cores
Each time is the best of --reps groups (the machine may be shared: the
best group is the one least disturbed); the ratios are taken within one
run of this program."""
import argparse
import concurrent.futures as cf
import ctypes
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, os.pardir, os.pardir, "python"))
sys.path.insert(0, HERE)

import numpy as np  # noqa: E402

import linattn  # noqa: E402


def best(fn, reps, min_seconds=0.3):
    """Seconds per call of fn: torch_ref's clock, the best of reps groups."""
    from torch_ref import best_time_sync
    return best_time_sync(fn, min_seconds, reps)


def c_call(run, batch):
    """la_model_grad through ctypes with everything made beforehand: the
    C library's own call, as close as Python gets to it."""
    lib = run._lib
    m = lib.la_run_model(run._r)
    nbytes = lib.la_model_work_bytes(m)
    work = ctypes.create_string_buffer(nbytes)
    theta = np.array(run.theta)
    grad = np.empty_like(theta)
    loss = ctypes.c_double()
    args = (m, lib.ptr(theta), ctypes.byref(batch._b), ctypes.byref(loss), lib.ptr(grad),
            work, nbytes)
    fn = lib.la_model_grad
    return lambda: fn(*args)


def torch_rows(reps):
    import torch
    import linattn.torch as lt
    import torch_ref
    torch.set_num_threads(1)
    run = linattn.Run("1", threads=1)
    batch = run.sample(1000)
    Z, y = lt.tensors(batch)
    theta = torch.tensor(run.theta, requires_grad=True)

    def ours():
        theta.grad = None
        lt.loss(theta, (Z, y), run).backward()

    def check():  # what a call on the same pair adds: its bits compared
        lt._batch(run.model, (Z, y))

    def pack():  # what a call on a pair not seen before adds: it is packed
        lt._batch(run.model, (Z.clone(), y))

    model = torch_ref.Model(run.theta.astype(np.float32), 5, 20, 3, torch_ref.SPARSE,
                            torch.float32)
    z_ref = torch.from_numpy(batch.z)
    y_ref = torch.from_numpy(batch.y)
    t_c = best(c_call(run, batch), reps)
    t_ours = best(ours, reps)
    t_check = best(check, reps)
    t_pack = best(pack, reps)
    t_ref = best(lambda: model.grad(z_ref, y_ref), reps)
    print("loss_grad batch=1000 c_us=%.1f torch_us=%.1f check_us=%.1f pack_us=%.1f "
          "ref_us=%.1f torch=%s blas=%s" % (1e6 * t_c, 1e6 * t_ours, 1e6 * t_check,
                                            1e6 * t_pack, 1e6 * t_ref, torch.__version__,
                                            _blas(torch)))
    print("ratio check_share=%.3f (the pair's bits compared, of a call) pack_over_check=%.1f "
          "(packing a pair, over comparing it)" % (t_check / t_ours, t_pack / t_check))
    return t_ours / t_c, t_ref / t_ours


def _blas(torch):
    import re
    m = re.search(r"BLAS_INFO=(\w+)", torch.__config__.show())
    return m.group(1) if m else "unknown"


def spin(n):
    """A control: work that shares nothing, in pure Python."""
    s = 0
    for i in range(n):
        s += i
    return s


def train_seed(seed, steps):
    run = linattn.Run("1", seed=seed, steps=steps, threads=1)
    run.train()
    return run


def seeds_rows(steps, reps):
    """Two seeds one after the other, then in a pool of two threads and of
    two processes, interleaved group by group; the pools are started (and
    the processes have loaded the library) before the clock runs."""
    seeds = (1, 2)

    def serial():
        for s in seeds:
            train_seed(s, steps)

    times = {"serial": [], "threads": [], "processes": [], "spin1": [], "spin2": []}
    n = 10 ** 7
    with cf.ThreadPoolExecutor(2) as tpool, cf.ProcessPoolExecutor(2) as ppool:
        for pool in (tpool, ppool):
            list(pool.map(train_seed, seeds, [1, 1]))
        for _ in range(reps):
            for name, fn in (("spin1", lambda: [spin(n), spin(n)]),
                             ("spin2", lambda: list(ppool.map(spin, [n, n]))),
                             ("serial", serial),
                             ("threads", lambda: list(tpool.map(train_seed, seeds,
                                                                [steps] * 2))),
                             ("processes", lambda: list(ppool.map(train_seed, seeds,
                                                                  [steps] * 2)))):
                t0 = time.perf_counter()
                fn()
                times[name].append(time.perf_counter() - t0)
    t1, tt, tp = (min(times[k]) for k in ("serial", "threads", "processes"))
    print("seeds=2 steps=%d serial_s=%.3f threads_s=%.3f processes_s=%.3f cpus=%d"
          % (steps, t1, tt, tp, linattn.cpu_count()))
    control = min(times["spin1"]) / min(times["spin2"])
    print("control: two pure-Python loops in two processes %.2fx one after the other "
          "(what the machine gives two processes now)" % control)
    return t1 / tt, t1 / tp


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--steps", type=int, default=400)
    a = ap.parse_args()
    print("linattn %s, backend %s, %s, python %s" % (
        linattn.library().version, linattn.library().backend, linattn.library().precision,
        sys.version.split()[0]))
    try:
        torch_over_c, ref_over_torch = torch_rows(a.reps)
        print("ratio torch_over_c=%.2f (at most 1.5) ref_over_torch=%.1f (at least 10)"
              % (torch_over_c, ref_over_torch))
    except ImportError as e:
        print("torch rows skipped: %s" % e)
    threads, processes = seeds_rows(a.steps, a.reps)
    print("ratio threads=%.2f processes=%.2f (at least 1.8 on two free cores)"
          % (threads, processes))
    return 0


if __name__ == "__main__":
    sys.exit(main())
