#!/usr/bin/python3
"""The linear-transformer testbed written a second time, in PyTorch.

An implementation independent of linattn.h, in the ordinary PyTorch way
(batched matmul over the whole batch, autograd for the gradient, double
backward for Hessian-vector products, torch.optim.Adam with global-norm
clipping), used to check the library's numbers and to time it against.

    Z_{l+1} = Z_l + (1/n) P_l Z_l M Z_l^T Q_l Z_l,   M = diag(1,..,1,0)
    loss    = mean over prompts of (Z_L[d, n] + y_q)^2

Parametrizations (theta is per layer [P part, Q part], row-major):
    sparse (0): P = [[B,0],[0,1]], Q = [[A,0],[0,0]]; parts B, A (d x d each)
    dense  (1): parts P, Q ((d+1) x (d+1) each)
    pgd    (2): P = [[0,0],[0,1]], Q = [[A,0],[0,0]]; part A only

Usage:
    torch_ref.py versions       what imports: torch, JAX, their devices
    torch_ref.py check IN       loss, gradient and HVP on IN's data, one
                                `check NAME LOSS GRAD.. HVP..` line for each
                                implementation and device that imports
    torch_ref.py table REAL D N L PARAM BATCH THREADS MIN_S REPS
                                bench_torch's table rows for torch (1 and
                                THREADS CPU threads, the GPU) and JAX (its
                                own CPU thread pool, shown as 0 threads, and
                                the GPU)
    torch_ref.py run IN OUT     values (and timings if IN asks) for IN's data
    torch_ref.py selftest       check itself against finite differences
    torch_ref.py scaling        time per step over bench_scaling's sweep

IN is what bench_torch writes: 16 little-endian int32
    magic 0x3154414c, real bytes (4 or 8), d, n, L, param, count, nparams,
    timing (0/1), max threads, min seconds per repetition (ms), repetitions,
    then 4 zeros,
followed by la_real arrays: z (count x (d+1) x (n+1), row-major), y_q
(count), theta (nparams), v (nparams). OUT is text: `loss x`, `grad ...`,
`hvp ...`, `info TEXT` and `time THREADS STEP GRAD HVP SAMPLE` lines (seconds
per call; SAMPLE is drawing a fresh batch alone, a part of STEP).
Exit status 3 means neither PyTorch nor JAX (with numpy) is installed.
"""
import sys
import time

MAGIC = 0x3154414C
SPARSE, DENSE, PGD = 0, 1, 2


def need_torch():
    try:
        import numpy  # noqa: F401
        import torch  # noqa: F401
    except ImportError as e:
        sys.stderr.write(
            "torch_ref: %s; install python3-torch and python3-numpy for "
            "%s to run the PyTorch comparison\n" % (e, sys.executable))
        sys.exit(3)


def part_sizes(d, param):
    if param == SPARSE:
        return d * d, d * d
    if param == DENSE:
        return (d + 1) ** 2, (d + 1) ** 2
    if param == PGD:
        return 0, d * d
    raise ValueError("unknown parametrization %d" % param)


class Model:
    """The parameters as one leaf tensor per layer part, as a torch user
    would hold them."""

    def __init__(self, theta, d, n, layers, param, dtype):
        import torch
        self.d, self.n, self.layers, self.param = d, n, layers, param
        sp, sq = part_sizes(d, param)
        theta = torch.as_tensor(theta, dtype=dtype)
        if theta.numel() != layers * (sp + sq):
            raise ValueError("theta has %d entries, expected %d"
                             % (theta.numel(), layers * (sp + sq)))
        self.params = []
        off = 0
        for _ in range(layers):
            for size in (sp, sq):
                if size:
                    k = int(round(size ** 0.5))
                    t = theta[off:off + size].reshape(k, k).clone()
                    self.params.append(t.requires_grad_(True))
                off += size
        # the fixed 1 in P's corner (sparse and pgd)
        self.corner = torch.zeros(d + 1, d + 1, dtype=dtype)
        self.corner[d, d] = 1

    def matrices(self):
        """P_l, Q_l built from the leaves (differentiably)."""
        import torch.nn.functional as F
        it = iter(self.params)
        out = []
        for _ in range(self.layers):
            if self.param == DENSE:
                P, Q = next(it), next(it)
            elif self.param == SPARSE:
                B, A = next(it), next(it)
                P = F.pad(B, (0, 1, 0, 1)) + self.corner
                Q = F.pad(A, (0, 1, 0, 1))
            else:
                A = next(it)
                P = self.corner
                Q = F.pad(A, (0, 1, 0, 1))
            out.append((P, Q))
        return out

    def loss(self, z, yq):
        n, d = self.n, self.d
        for P, Q in self.matrices():
            keys = z[:, :, :n]                     # M masks the query column
            s = keys @ keys.transpose(1, 2)        # Z M Z^T: (b, d+1, d+1)
            z = z + (P @ s @ Q @ z) / n
        return ((z[:, d, n] + yq) ** 2).mean()

    def flat(self, tensors):
        import torch
        return torch.cat([t.reshape(-1) for t in tensors])

    def split(self, vec):
        out, off = [], 0
        for p in self.params:
            out.append(vec[off:off + p.numel()].reshape(p.shape))
            off += p.numel()
        return out

    def grad(self, z, yq):
        import torch
        loss = self.loss(z, yq)
        g = torch.autograd.grad(loss, self.params)
        return loss, g

    def hvp(self, z, yq, v):
        """H v by double backward: grad of <grad loss, v>."""
        import torch
        loss = self.loss(z, yq)
        g = torch.autograd.grad(loss, self.params, create_graph=True)
        gv = sum((gi * vi).sum() for gi, vi in zip(g, v))
        return torch.autograd.grad(gv, self.params)


def sample(d, n, count, dtype, gen):
    """Paper A, setting 1: x ~ N(0, I_d), w* ~ N(0, I_d), y = <w*, x>."""
    import torch
    x = torch.randn(count, n + 1, d, dtype=dtype, generator=gen)
    w = torch.randn(count, d, 1, dtype=dtype, generator=gen)
    y = (x @ w).squeeze(2)
    yq = y[:, n].clone()
    y[:, n] = 0
    z = torch.cat([x.transpose(1, 2), y.unsqueeze(1)], dim=1)
    return z, yq


def best_time(fn, min_seconds, reps):
    """Seconds per call: the best of `reps` repetitions of enough calls to
    fill min_seconds. With one thread the clock is the process's CPU time,
    which other programs holding the core do not inflate; with more, wall
    time (as bench_torch does on its side)."""
    import torch
    now = time.process_time if torch.get_num_threads() == 1 else time.perf_counter
    fn()
    t0 = now()
    fn()
    once = max(now() - t0, 1e-7)
    calls = max(1, int(min_seconds / once))
    best = float("inf")
    for _ in range(reps):
        t0 = now()
        for _ in range(calls):
            fn()
        best = min(best, (now() - t0) / calls)
    return best


def timings(model, z, yq, v, min_seconds, reps, dtype, count=None,
            only_step=False):
    import torch
    d, n, count = model.d, model.n, count or z.shape[0]
    gen = torch.Generator().manual_seed(7)
    opt = torch.optim.Adam(model.params, lr=1e-3, betas=(0.9, 0.9), eps=1e-8)

    def step():
        zs, ys = sample(d, n, count, dtype, gen)
        opt.zero_grad(set_to_none=True)
        loss = model.loss(zs, ys)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.params, 1.0)
        opt.step()

    saved = [p.detach().clone() for p in model.params]
    t_grad = t_hvp = t_sample = 0.0
    if not only_step:
        t_sample = best_time(lambda: sample(d, n, count, dtype, gen),
                             min_seconds, reps)
        t_grad = best_time(lambda: model.grad(z, yq), min_seconds, reps)
        t_hvp = best_time(lambda: model.hvp(z, yq, v), min_seconds, reps)
    t_step = best_time(step, min_seconds, reps)
    with torch.no_grad():
        for p, s in zip(model.params, saved):
            p.copy_(s)
    return t_step, t_grad, t_hvp, t_sample


def read_input(path):
    import numpy as np
    with open(path, "rb") as f:
        head = np.frombuffer(f.read(64), dtype="<i4")
        if head.size != 16 or head[0] != MAGIC:
            raise ValueError("%s: not a bench_torch exchange file" % path)
        rb, d, n, L, param, count, npar = (int(x) for x in head[1:8])
        h = dict(real=rb, d=d, n=n, L=L, param=param, count=count,
                 nparams=npar, timing=int(head[8]), threads=int(head[9]),
                 min_seconds=int(head[10]) / 1000.0, reps=int(head[11]))
        dt = np.dtype("<f4" if rb == 4 else "<f8")

        def take(k):
            a = np.frombuffer(f.read(k * dt.itemsize), dtype=dt)
            if a.size != k:
                raise ValueError("%s: truncated" % path)
            return a

        z = take(count * (d + 1) * (n + 1)).reshape(count, d + 1, n + 1)
        yq = take(count)
        theta = take(npar)
        v = take(npar)
    return h, z, yq, theta, v


def describe():
    """torch's version, threads and the BLAS library it has loaded."""
    import torch
    blas = set()
    try:
        with open("/proc/self/maps") as f:
            for line in f:
                name = line.rsplit("/", 1)[-1].strip()
                if "blas" in name or "mkl" in name:
                    blas.add("/".join(line.split()[-1].split("/")[-2:]))
    except OSError:
        pass
    return " torch %s, python %d.%d, BLAS %s" % (
        torch.__version__, sys.version_info[0], sys.version_info[1],
        ", ".join(sorted(blas)) or "none loaded")


def run(inp, out):
    import torch
    h, z, yq, theta, v = read_input(inp)
    dtype = torch.float32 if h["real"] == 4 else torch.float64
    torch.set_num_threads(1)
    model = Model(theta.copy(), h["d"], h["n"], h["L"], h["param"], dtype)
    z = torch.as_tensor(z.copy(), dtype=dtype)
    yq = torch.as_tensor(yq.copy(), dtype=dtype)
    vs = model.split(torch.as_tensor(v.copy(), dtype=dtype))
    loss, g = model.grad(z, yq)
    hv = model.hvp(z, yq, vs)
    lines = ["loss %.17g" % loss.item(),
             "grad " + " ".join("%.17g" % x for x in model.flat(g).tolist()),
             "hvp " + " ".join("%.17g" % x for x in model.flat(hv).tolist())]
    lines.append("info" + describe())
    if h["timing"]:
        counts = [1] if h["threads"] <= 1 else [1, h["threads"]]
        for th in counts:
            torch.set_num_threads(th)
            t = timings(model, z, yq, vs, h["min_seconds"], h["reps"], dtype)
            lines.append("time %d %.9g %.9g %.9g %.9g" % ((th,) + t))
    with open(out, "w") as f:
        f.write("\n".join(lines) + "\n")


# ------------------------------------------------------------------ JAX
# The same model in JAX, jit-compiled: jax.grad for the gradient, forward
# over reverse (jvp of grad) for the HVP, a hand-written Adam (no optax
# needed). Written for bench_torch's rows; float64 needs x64 switched on
# before the first array.

def have(mod):
    try:
        __import__(mod)
        return True
    except Exception:  # ImportError, or a broken install
        return False


def jax_devices():
    """(name, device) for JAX's CPU and, when there is one, its GPU."""
    import jax
    out = [("cpu", jax.devices("cpu")[0])]
    try:
        g = jax.devices("gpu")
        if g:
            out.append(("gpu", g[0]))
    except RuntimeError:
        pass
    return out


class JaxModel:
    def __init__(self, d, n, layers, param, real_bytes):
        import jax
        if real_bytes == 8:
            jax.config.update("jax_enable_x64", True)
        import jax.numpy as jnp
        self.jax, self.jnp = jax, jnp
        self.d, self.n, self.layers, self.param = d, n, layers, param
        self.dtype = jnp.float64 if real_bytes == 8 else jnp.float32
        sp, sq = part_sizes(d, param)
        self.sp, self.sq = sp, sq
        self.nparams = layers * (sp + sq)
        self.loss = jax.jit(self._loss)
        self.grad = jax.jit(jax.value_and_grad(self._loss))
        self.hvp = jax.jit(self._hvp)
        self.step = jax.jit(self._step, static_argnums=(5,))

    def _mats(self, theta):
        jnp, d = self.jnp, self.d
        D = d + 1
        corner = jnp.zeros((D, D), self.dtype).at[d, d].set(1)
        out, off = [], 0
        for _ in range(self.layers):
            if self.param == DENSE:
                P = theta[off:off + D * D].reshape(D, D)
                Q = theta[off + D * D:off + 2 * D * D].reshape(D, D)
            else:
                if self.param == SPARSE:
                    B = theta[off:off + d * d].reshape(d, d)
                    P = jnp.zeros((D, D), self.dtype).at[:d, :d].set(B) + corner
                else:
                    P = corner
                A = theta[off + self.sp:off + self.sp + d * d].reshape(d, d)
                Q = jnp.zeros((D, D), self.dtype).at[:d, :d].set(A)
            out.append((P, Q))
            off += self.sp + self.sq
        return out

    def _loss(self, theta, z, yq):
        jnp, n, d = self.jnp, self.n, self.d
        for P, Q in self._mats(theta):
            keys = z[:, :, :n]
            s = keys @ jnp.swapaxes(keys, 1, 2)
            z = z + (P @ s @ Q @ z) / n
        return jnp.mean((z[:, d, n] + yq) ** 2)

    def _hvp(self, theta, z, yq, v):
        g = self.jax.grad(self._loss)
        return self.jax.jvp(lambda t: g(t, z, yq), (theta,), (v,))[1]

    def sample(self, key, count):
        jax, jnp, d, n = self.jax, self.jnp, self.d, self.n
        k1, k2 = jax.random.split(key)
        x = jax.random.normal(k1, (count, n + 1, d), self.dtype)
        w = jax.random.normal(k2, (count, d, 1), self.dtype)
        y = (x @ w)[:, :, 0]
        yq = y[:, n]
        y = y.at[:, n].set(0)
        return jnp.concatenate([jnp.swapaxes(x, 1, 2), y[:, None, :]], axis=1), yq

    def _step(self, theta, m, v, t, key, count):
        """Fresh prompts, gradient, global-norm clipping at 1, Adam (lr
        1e-3, betas 0.9, 0.9, eps 1e-8)."""
        jnp = self.jnp
        key, sub = self.jax.random.split(key)
        z, yq = self.sample(sub, count)
        _, g = self.jax.value_and_grad(self._loss)(theta, z, yq)
        g = g * jnp.minimum(1.0, 1.0 / (jnp.linalg.norm(g) + 1e-6))
        m = 0.9 * m + 0.1 * g
        v = 0.9 * v + 0.1 * g * g
        mh = m / (1 - 0.9 ** t)
        vh = v / (1 - 0.9 ** t)
        return theta - 1e-3 * mh / (jnp.sqrt(vh) + 1e-8), m, v, key


def torch_devices():
    import torch
    out = ["cpu"]
    if torch.cuda.is_available():
        out.append("cuda")
    return out


def versions():
    """One line per library that imports, exit 3 when none does."""
    found = False
    print("python %d.%d.%d (%s)" % (sys.version_info[0], sys.version_info[1],
                                    sys.version_info[2], sys.executable))
    if have("numpy"):
        import numpy
        print("numpy %s" % numpy.__version__)
    if have("torch") and have("numpy"):
        import torch
        found = True
        line = "torch:" + describe() + ", %d CPU threads" % torch.get_num_threads()
        if torch.cuda.is_available():
            line += ", GPU %s (CUDA %s)" % (torch.cuda.get_device_name(0),
                                            torch.version.cuda)
        else:
            line += ", no GPU"
        print(line)
    else:
        print("torch: not importable")
    if have("jax") and have("numpy"):
        try:
            import jax
            import jaxlib
            found = True
            print("jax %s, jaxlib %s, devices %s" % (
                jax.__version__, getattr(jaxlib, "__version__", "?"),
                ", ".join(str(dv) for _, dv in jax_devices())))
        except Exception as e:  # a broken install: say so, go on
            print("jax: import failed (%s)" % e)
    else:
        print("jax: not importable")
    return 0 if found else 3


def check(inp):
    """Loss, gradient and HVP of every implementation and device that
    imports, on IN's data, one `check` line each."""
    found = False
    h, z, yq, theta, v = read_input(inp)
    lines = []
    if have("torch") and have("numpy"):
        import torch
        found = True
        dtype = torch.float32 if h["real"] == 4 else torch.float64
        torch.set_num_threads(1)
        for dev in torch_devices():
            m = Model(theta.copy(), h["d"], h["n"], h["L"], h["param"], dtype)
            m.params = [p.detach().to(dev).requires_grad_(True) for p in m.params]
            m.corner = m.corner.to(dev)
            zt = torch.as_tensor(z.copy(), dtype=dtype).to(dev)
            yt = torch.as_tensor(yq.copy(), dtype=dtype).to(dev)
            vs = [t.to(dev) for t in m.split(torch.as_tensor(v.copy(), dtype=dtype))]
            loss, g = m.grad(zt, yt)
            hv = m.hvp(zt, yt, vs)
            lines.append("check torch-%s %.17g %s %s" % (
                dev, loss.item(),
                " ".join("%.17g" % x for x in m.flat(g).cpu().tolist()),
                " ".join("%.17g" % x for x in m.flat(hv).cpu().tolist())))
    if have("jax") and have("numpy"):
        try:
            jm = JaxModel(h["d"], h["n"], h["L"], h["param"], h["real"])
            found = True
            for name, dev in jax_devices():
                put = lambda a: jm.jax.device_put(jm.jnp.asarray(a, jm.dtype), dev)
                th, zz, yy, vv = put(theta), put(z), put(yq), put(v)
                loss, g = jm.grad(th, zz, yy)
                hv = jm.hvp(th, zz, yy, vv)
                lines.append("check jax-%s %.17g %s %s" % (
                    name, float(loss), " ".join("%.17g" % float(x) for x in g),
                    " ".join("%.17g" % float(x) for x in hv)))
        except Exception as e:
            lines.append("# JAX failed: %s" % e)
    print("\n".join(lines))
    return 0 if found else 3


def best_time_sync(fn, min_seconds, reps, sync=None):
    """Seconds per call by the wall clock, the best of `reps` groups of
    calls filling min_seconds, `sync` waited on after each group (a GPU's
    queue); at most about 20 s in all for the slowest calls."""
    def once():
        r = fn()
        if sync:
            sync(r)
    once()
    t0 = time.perf_counter()
    once()
    one = max(time.perf_counter() - t0, 1e-7)
    calls = max(1, int(min_seconds / one))
    reps = max(2, min(reps, int(20.0 / (one * calls * 4)) or 2))
    best = float("inf")
    for _ in range(reps):
        t0 = time.perf_counter()
        for _ in range(calls):
            once()
        best = min(best, (time.perf_counter() - t0) / calls)
    return best


def row(op, batch, impl, dev, threads, sec):
    print("%-6s %7d %-8s %-6s %7d %12.4f %8s %6s" % (op, batch, impl, dev,
                                                     threads, 1e3 * sec, "-", "-"))
    sys.stdout.flush()


def table(a):
    """bench_torch's table rows for one batch size."""
    real, d, n, L, param, batch, threads, min_s, reps = a
    found = False
    sp, sq = part_sizes(d, param)
    npar = L * (sp + sq)
    if have("torch") and have("numpy"):
        import torch
        found = True
        dtype = torch.float32 if real == 4 else torch.float64
        gen = torch.Generator().manual_seed(3)
        theta = 0.05 * torch.randn(npar, dtype=dtype, generator=gen)
        vflat = torch.randn(npar, dtype=dtype, generator=gen)
        for dev in torch_devices():
            sync = (lambda r: torch.cuda.synchronize()) if dev == "cuda" else None
            for th in ([1, threads] if dev == "cpu" and threads > 1 else [1] if dev == "cpu" else [0]):
                if th:
                    torch.set_num_threads(th)
                m = Model(theta, d, n, L, param, dtype)
                m.params = [p.detach().to(dev).requires_grad_(True) for p in m.params]
                m.corner = m.corner.to(dev)
                z, yq = sample(d, n, batch, dtype, gen)
                z, yq = z.to(dev), yq.to(dev)
                v = [t.to(dev) for t in m.split(vflat)]
                opt = torch.optim.Adam(m.params, lr=1e-3, betas=(0.9, 0.9), eps=1e-8)
                dgen = torch.Generator(device=dev).manual_seed(7) if dev == "cuda" else gen

                def fresh():
                    x = torch.randn(batch, n + 1, d, dtype=dtype, generator=dgen, device=dev)
                    w = torch.randn(batch, d, 1, dtype=dtype, generator=dgen, device=dev)
                    y = (x @ w).squeeze(2)
                    q = y[:, n].clone()
                    y[:, n] = 0
                    return torch.cat([x.transpose(1, 2), y.unsqueeze(1)], dim=1), q

                def step():
                    zs, ys = fresh()
                    opt.zero_grad(set_to_none=True)
                    loss = m.loss(zs, ys)
                    loss.backward()
                    torch.nn.utils.clip_grad_norm_(m.params, 1.0)
                    opt.step()

                tag = "gpu" if dev == "cuda" else "cpu"
                row("step", batch, "torch", tag, th, best_time_sync(step, min_s, reps, sync))
                row("grad", batch, "torch", tag, th, best_time_sync(lambda: m.grad(z, yq), min_s, reps, sync))
                row("hvp", batch, "torch", tag, th, best_time_sync(lambda: m.hvp(z, yq, v), min_s, reps, sync))
                row("sample", batch, "torch", tag, th, best_time_sync(fresh, min_s, reps, sync))
    if have("jax") and have("numpy"):
        try:
            import numpy as np
            jm = JaxModel(d, n, L, param, real)
            found = True
            rs = np.random.RandomState(3)
            for name, dev in jax_devices():
                put = lambda x: jm.jax.device_put(jm.jnp.asarray(x, jm.dtype), dev)
                theta = put(0.05 * rs.randn(npar))
                v = put(rs.randn(npar))
                key = jm.jax.device_put(jm.jax.random.PRNGKey(7), dev)
                z, yq = jm.sample(key, batch)
                z, yq = jm.jax.device_put(z, dev), jm.jax.device_put(yq, dev)
                state = [theta, put(np.zeros(npar)), put(np.zeros(npar)), 1, key]

                def step():
                    th_, m_, v_, t_, k_ = state
                    state[0], state[1], state[2], state[4] = jm.step(th_, m_, v_, float(t_), k_, batch)
                    state[3] = t_ + 1
                    return state[0]

                def fresh():
                    state[4], sub = jm.jax.random.split(state[4])
                    return jm.sample(sub, batch)[0]

                sync = lambda r: jm.jax.block_until_ready(r)
                row("step", batch, "jax", name, 0, best_time_sync(step, min_s, reps, sync))
                row("grad", batch, "jax", name, 0, best_time_sync(lambda: jm.grad(theta, z, yq), min_s, reps, sync))
                row("hvp", batch, "jax", name, 0, best_time_sync(lambda: jm.hvp(theta, z, yq, v), min_s, reps, sync))
                row("sample", batch, "jax", name, 0, best_time_sync(fresh, min_s, reps, sync))
        except Exception as e:
            print("# JAX failed: %s" % e)
    return 0 if found else 3


SWEEP = [("batch", [1, 3, 10, 30, 100, 300, 1000, 3000, 10000, 30000, 100000]),
         ("L", [1, 2, 3, 4, 6, 8, 12, 16]),
         ("N", [5, 10, 20, 40, 70, 120, 200]),
         ("d", [2, 3, 5, 8, 12, 16, 24, 32])]


def scaling(min_seconds=0.05, reps=2):
    """Time per training step over bench_scaling's sweep (one thread,
    float32, sparse, its own setting-1 prompts), in bench_scaling's row
    format with `scaling-torch` first, for the plot to draw beside it."""
    import torch
    torch.set_num_threads(1)
    dt = torch.float32
    print("# torch %s, one thread, float32" % torch.__version__)
    for axis, values in SWEEP:
        for val in values:
            c = dict(batch=1000, L=3, d=5, N=20)
            c[axis] = val
            gen = torch.Generator().manual_seed(5)
            theta = 0.05 * torch.randn(2 * c["L"] * c["d"] ** 2, dtype=dt,
                                       generator=gen)
            m = Model(theta, c["d"], c["N"], c["L"], SPARSE, dt)
            z, yq = sample(c["d"], c["N"], 1, dt, gen)
            v = m.split(torch.zeros(theta.numel(), dtype=dt))
            t = timings(m, z, yq, v, min_seconds, reps, dt, c["batch"],
                        only_step=True)[0]
            print("scaling-torch %-5s %6d %6d %2d %2d %3d %11.4f %9.4f" % (
                axis, val, c["batch"], c["L"], c["d"], c["N"], 1e3 * t,
                1e6 * t / c["batch"]))
            sys.stdout.flush()


def selftest():
    """The reference must itself be right: its gradient against central
    differences of its loss, its HVP against central differences of its
    gradient, and one layer of the pgd form against the closed form of one
    preconditioned gradient step (paper B, Lemma 1), all in float64."""
    import torch
    torch.manual_seed(0)
    dt = torch.float64
    d, n, L, count = 3, 7, 2, 16
    gen = torch.Generator().manual_seed(1)
    z, yq = sample(d, n, count, dt, gen)
    worst = 0.0
    for param in (SPARSE, DENSE, PGD):
        sp, sq = part_sizes(d, param)
        theta = 0.3 * torch.randn(L * (sp + sq), dtype=dt)
        m = Model(theta, d, n, L, param, dt)
        v = m.split(torch.randn(theta.numel(), dtype=dt))
        _, g = m.grad(z, yq)
        g = m.flat(g)
        hv = m.flat(m.hvp(z, yq, v))
        eps = 1e-6
        fd_g = torch.zeros_like(theta)
        for i in range(theta.numel()):
            e = torch.zeros_like(theta)
            e[i] = eps
            fd_g[i] = (Model(theta + e, d, n, L, param, dt).loss(z, yq) -
                       Model(theta - e, d, n, L, param, dt).loss(z, yq)) / (2 * eps)
        vflat = m.flat(v)
        gp = m.flat(Model(theta + eps * vflat, d, n, L, param, dt).grad(z, yq)[1])
        gm = m.flat(Model(theta - eps * vflat, d, n, L, param, dt).grad(z, yq)[1])
        fd_hv = (gp - gm) / (2 * eps)
        eg = ((g - fd_g).norm() / fd_g.norm()).item()
        eh = ((hv - fd_hv).norm() / fd_hv.norm()).item()
        print("selftest param %d: grad vs FD %.2e, hvp vs FD %.2e" % (param, eg, eh))
        worst = max(worst, eg, eh)
    # Lemma 1: with B = 0, one layer gives Z_1[d, n] = <x_q, w_1>, where
    # w_1 = (1/n) A^T X^T y is one preconditioned gradient step from w = 0
    # on R(w) = (1/2n) sum_i (w^T x_i - y_i)^2 (the model's sign convention).
    A = torch.randn(d, d, dtype=dt)
    m = Model(A.reshape(-1), d, n, 1, PGD, dt)
    X = z[:, :d, :n].transpose(1, 2)
    y = z[:, d, :n].unsqueeze(2)
    w1 = (A.T @ X.transpose(1, 2) @ y) / n
    pred = (z[:, :d, n].unsqueeze(1) @ w1).reshape(-1)
    want = ((pred + yq) ** 2).mean()
    el = abs((m.loss(z, yq) - want) / want).item()
    print("selftest Lemma 1: relative difference %.2e" % el)
    worst = max(worst, el)
    ok = worst < 1e-6
    print("selftest %s (worst %.2e)" % ("passed" if ok else "FAILED", worst))
    return 0 if ok else 1


def main(argv):
    if len(argv) == 2 and argv[1] == "selftest":
        need_torch()
        return selftest()
    if len(argv) == 2 and argv[1] == "scaling":
        need_torch()
        scaling()
        return 0
    if len(argv) == 4 and argv[1] == "run":
        need_torch()
        run(argv[2], argv[3])
        return 0
    if len(argv) == 2 and argv[1] == "versions":
        return versions()
    if len(argv) == 3 and argv[1] == "check":
        return check(argv[2])
    if len(argv) == 11 and argv[1] == "table":
        return table([float(x) if "." in x or "e" in x else int(x)
                      for x in argv[2:]])
    sys.stderr.write(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
