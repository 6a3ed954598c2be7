/* Threads: the built-in pool runs every task once on distinct workers, and
   every function that splits a batch gives the same bits with any number
   of workers (the pool's, and a host parallel-for that runs the tasks in
   another order on other worker numbers) as with none. A host that breaks
   the contract (skips a task, names a worker out of range) gets a status,
   never a write outside the outputs. */

/* A host parallel-for without threads: tasks in reverse order, each on
   worker (7 i) % workers; or (mode 1) the last task skipped, or (mode 2)
   one task given worker number `workers`. */
typedef struct th_host {
  la_parallel par;
  int mode, calls;
} th_host;

static void th_host_run(void *ctx, int n, la_task_fn task, void *arg) {
  th_host *h = (th_host *)ctx;
  int i;
  h->calls++;
  for (i = n - 1; i >= 0; --i) {
    if (h->mode == 1 && i == n - 1) continue;
    task(arg, i, h->mode == 2 && i == n / 2 ? h->par.workers
                                            : (7 * i) % h->par.workers);
  }
}

static void th_host_init(th_host *h, int workers, int mode) {
  memset(h, 0, sizeof *h);
  h->par.workers = workers;
  h->par.run = th_host_run;
  h->par.ctx = h;
  h->mode = mode;
}

/* The pool's contract: every task once, workers in range, never two at
   once on one worker. */
typedef struct th_count {
  int n, workers;
  int *hits;
  int *busy;
  int bad;
} th_count;

static void th_count_task(void *arg, int i, int worker) {
  th_count *c = (th_count *)arg;
  volatile int spin;
  if (i < 0 || i >= c->n || worker < 0 || worker >= c->workers) {
    __atomic_store_n(&c->bad, 1, __ATOMIC_SEQ_CST);
    return;
  }
  if (__atomic_exchange_n(&c->busy[worker], 1, __ATOMIC_SEQ_CST))
    __atomic_store_n(&c->bad, 1, __ATOMIC_SEQ_CST);
  for (spin = 0; spin < (i % 5) * 200; ++spin) {
  }
  __atomic_add_fetch(&c->hits[i], 1, __ATOMIC_SEQ_CST);
  __atomic_store_n(&c->busy[worker], 0, __ATOMIC_SEQ_CST);
}

static void th_test_pool(la_t *t) {
  LA_TEST(t, "threads/pool arguments") {
    la_pool *p = NULL;
    LA_CHECK(t, la_pool_create(NULL, 2) == LA_ENULL, "null");
    LA_CHECK(t, la_pool_create(&p, -1) == LA_ERANGE && !p, "negative");
    LA_CHECK(t, la_pool_create(&p, LA_MAX_WORKERS + 1) == LA_ERANGE && !p,
             "too many");
    LA_CHECK(t, la_pool_create(&p, 0) == LA_OK && p, "zero is one thread");
    LA_CHECK(t, la_pool_parallel(p)->workers == 1, "workers %d",
             la_pool_parallel(p)->workers);
    la_pool_destroy(p);
    la_pool_destroy(NULL);
    LA_CHECK(t, la_pool_parallel(NULL) == NULL, "null pool");
    LA_CHECK(t, la_cpu_count() >= 1, "cpus %d", la_cpu_count());
  }
  LA_TEST(t, "threads/pool runs every task once on distinct workers") {
    static const int sizes[] = {0, 1, 2, 3, 7, 64, 129, 1000};
    static const int threads[] = {1, 2, 3, 8};
    int hits[1000], busy[8], ti, si, rep, i;
    for (ti = 0; ti < 4; ++ti) {
      la_pool *p = NULL;
      int st = la_pool_create(&p, threads[ti]);
      /* a build without threads refuses more than one; one with them
         (POSIX or Win32) must start them */
      if (st == LA_EUNSUPPORTED && !LA__THREADS && threads[ti] > 1) continue;
      LA_CHECK(t, st == LA_OK, "create %d: %d", threads[ti], st);
      if (st) continue;
      for (rep = 0; rep < 20; ++rep)
        for (si = 0; si < 8; ++si) {
          const la_parallel *par = la_pool_parallel(p);
          th_count c;
          int ok = 1;
          c.n = sizes[si];
          c.workers = par->workers;
          c.hits = hits;
          c.busy = busy;
          c.bad = 0;
          memset(hits, 0, sizeof hits);
          memset(busy, 0, sizeof busy);
          par->run(par->ctx, c.n, th_count_task, &c);
          for (i = 0; i < c.n; ++i) ok &= hits[i] == 1;
          for (; i < 1000; ++i) ok &= hits[i] == 0;
          LA_CHECK(t, ok && !c.bad, "threads %d tasks %d rep %d",
                   threads[ti], c.n, rep);
        }
      la_pool_destroy(p);
    }
  }
}

/* Loss, predictions, gradient, HVP and the Hessian times two directions
   (v and theta) of m on b, in out (5 np + count), and the Hessian's
   diagonal in diag. */
static int th_eval(const la_model *m, const la_real *th, const la_real *v,
                   const la_batch *b, double *loss, la_real *out,
                   double *diag) {
  int np = m->nparams, st;
  la_real *V = (la_real *)malloc(sizeof(la_real) * 2 * (size_t)np);
  memcpy(V, v, sizeof(la_real) * np);
  memcpy(V + np, th, sizeof(la_real) * np);
  st = la_model_loss(m, th, b, &loss[0], out + 5 * np, NULL, 0);
  if (!st) st = la_model_grad(m, th, b, &loss[1], out, NULL, 0);
  if (!st) st = la_model_hvp(m, th, b, v, &loss[2], out + np, out + 2 * np,
                             NULL, 0);
  if (!st) st = la_model_hmp(m, th, b, 2, V, NULL, NULL, out + 3 * np, NULL, 0);
  if (!st) st = la_hessian_diag(m, th, b, diag, NULL, 0);
  free(V);
  return st;
}

/* m's results with each la_parallel in pars against those without one,
   bit for bit. */
static void th_same_bits(la_t *t, const tm_cfg *cfg, int count,
                         const la_parallel *const *pars, int npars,
                         const char *what) {
  la_model m;
  la_model_config mc;
  tm_data td;
  la_t_rng r;
  double l0[3], l1[3], *d0, *d1;
  la_real *th, *v, *o0, *o1;
  int np, i, k, st;
  r.s = 1234567u + (unsigned)count;
  tm_make(&td, cfg->d, cfg->n, count, &r);
  if (tm_model(&m, cfg, NULL)) {
    LA_CHECK(t, 0, "model");
    tm_free(&td);
    return;
  }
  np = m.nparams;
  th = (la_real *)malloc(sizeof(la_real) * (size_t)np * 2);
  v = th + np;
  o0 = (la_real *)malloc(sizeof(la_real) * ((size_t)np * 5 + (size_t)count));
  o1 = (la_real *)malloc(sizeof(la_real) * ((size_t)np * 5 + (size_t)count));
  d0 = (double *)malloc(sizeof(double) * 2 * (size_t)np);
  d1 = d0 + np;
  for (i = 0; i < np; ++i) {
    th[i] = (la_real)(0.3 * tm_normal(&r));
    v[i] = (la_real)tm_normal(&r);
  }
  st = th_eval(&m, th, v, &td.b, l0, o0, d0);
  LA_CHECK(t, st == LA_OK, "%s: one thread: %d", what, st);
  for (k = 0; k < npars && !st; ++k) {
    la_model mp;
    mc = m.cfg;
    mc.parallel = pars[k];
    st = la_model_init(&mp, &mc);
    LA_CHECK(t, st == LA_OK, "%s: init %d", what, st);
    if (st) break;
    LA_CHECK(t, la_model_work_bytes(&mp) >= la_model_work_bytes(&m),
             "%s: workspace", what);
    memset(o1, 0, sizeof(la_real) * ((size_t)np * 5 + (size_t)count));
    st = th_eval(&mp, th, v, &td.b, l1, o1, d1);
    LA_CHECK(t, st == LA_OK, "%s: %d workers: %d", what, pars[k]->workers, st);
    LA_CHECK(t, !st && !memcmp(l0, l1, sizeof l0) &&
                    !memcmp(o0, o1, sizeof(la_real) *
                                        ((size_t)np * 5 + (size_t)count)) &&
                    !memcmp(d0, d1, sizeof(double) * np),
             "%s, count %d: %d workers differ (loss %.17g vs %.17g)", what,
             count, pars[k]->workers, l0[1], l1[1]);
  }
  free(th);
  free(o0);
  free(o1);
  free(d0);
  tm_free(&td);
}

static void th_test_model(la_t *t) {
  LA_TEST(t, "threads/model: loss, gradient, HVP, HMP, diagonal bit-identical for any workers") {
    static const tm_cfg cfgs[] = {
        {5, 20, 3, LA_PARAM_SPARSE, LA_ACT_LINEAR, 0},
        {3, 6, 2, LA_PARAM_DENSE, LA_ACT_RELU, 4},
    };
    /* light: 200 prompts, still several chunks of 8 panels */
    const int counts[] = {1, 9, 33, t->light ? 200 : 1000};
    th_host h5, h1;
    la_pool *p2 = NULL, *p3 = NULL;
    const la_parallel *pars[4];
    int n = 0, ci, k;
    th_host_init(&h5, 5, 0);
    th_host_init(&h1, 1, 0);
    pars[n++] = &h5.par;
    pars[n++] = &h1.par;
    if (la_pool_create(&p2, 2) == LA_OK) pars[n++] = la_pool_parallel(p2);
    if (la_pool_create(&p3, 3) == LA_OK) pars[n++] = la_pool_parallel(p3);
    for (ci = 0; ci < 2; ++ci)
      for (k = 0; k < 4; ++k)
        if (ci == 0 || k < 3)
          th_same_bits(t, &cfgs[ci], counts[k], pars, n,
                       ci ? "relu, dense, front" : "sparse, linear");
    LA_CHECK(t, h5.calls > 0 && h1.calls == 0,
             "host calls %d (5 workers), %d (1 worker)", h5.calls, h1.calls);
    la_pool_destroy(p2);
    la_pool_destroy(p3);
  }
  LA_TEST(t, "threads/model: a host that skips a task or misnames a worker") {
    static const tm_cfg cfg = {4, 7, 2, LA_PARAM_SPARSE, LA_ACT_LINEAR, 0};
    la_model m, mp;
    la_model_config mc;
    tm_data td;
    la_t_rng r;
    th_host h;
    la_real th[64], g[64];
    double loss = 7;
    int mode, i, st;
    size_t b1;
    r.s = 99;
    tm_make(&td, cfg.d, cfg.n, 200, &r);
    st = tm_model(&m, &cfg, NULL);
    LA_CHECK(t, st == LA_OK && m.nparams <= 64, "model");
    for (i = 0; i < m.nparams; ++i) th[i] = (la_real)(0.2 * tm_normal(&r));
    for (mode = 1; mode <= 2; ++mode) {
      th_host_init(&h, 3, mode);
      mc = m.cfg;
      mc.parallel = &h.par;
      st = la_model_init(&mp, &mc);
      LA_CHECK(t, st == LA_OK, "init");
      for (i = 0; i < 64; ++i) g[i] = (la_real)-5;
      st = la_model_grad(&mp, th, &td.b, &loss, g, NULL, 0);
      LA_CHECK(t, st == LA_ERANGE && h.calls == 1, "mode %d: %d", mode, st);
      for (i = 0; i < 64; ++i) LA_CHECK(t, g[i] == (la_real)-5, "written");
      LA_CHECK(t, loss == 7, "loss written");
    }
    /* the workspace grows with the workers: a 1-worker block is short */
    th_host_init(&h, 4, 0);
    mc = m.cfg;
    mc.parallel = &h.par;
    la_model_init(&mp, &mc);
    b1 = la_model_work_bytes(&m);
    LA_CHECK(t, la_model_work_bytes(&mp) > b1, "workspace");
    {
      void *w = malloc(b1);
      st = la_model_grad(&mp, th, &td.b, &loss, g, w, b1);
      LA_CHECK(t, st == LA_EWORKSPACE, "short workspace: %d", st);
      free(w);
    }
    /* bad la_parallel: no run function, workers out of range */
    h.par.run = NULL;
    LA_CHECK(t, la_model_init(&mp, &mc) == LA_ERANGE, "no run");
    h.par.run = th_host_run;
    h.par.workers = LA_MAX_WORKERS + 1;
    LA_CHECK(t, la_model_init(&mp, &mc) == LA_ERANGE, "too many");
    h.par.workers = -1;
    LA_CHECK(t, la_model_init(&mp, &mc) == LA_ERANGE, "negative");
    tm_free(&td);
  }
}

/* A short training run on fresh prompts, with evaluation: theta after it. */
static int th_train(const la_parallel *model_par, const la_parallel *tr_par,
                    int batch, la_real *theta, double *eval) {
  la_model_config mc;
  la_model m;
  la_data_config dc;
  la_data g;
  la_train_config tc;
  la_trainer tr;
  int st;
  memset(&mc, 0, sizeof mc);
  mc.d = 4;
  mc.n = 10;
  mc.parallel = model_par;
  if ((st = la_model_init(&m, &mc))) return st;
  la_data_preset(&dc, LA_SETTING_1);
  dc.d = 4;
  dc.n = 10;
  if ((st = la_data_create(&g, &dc, 3))) return st;
  memset(&tc, 0, sizeof tc);
  tc.model = &m;
  tc.data = &g;
  tc.batch = batch;
  tc.eval_every = 3;
  tc.clip_norm = 1;
  tc.seed = 11;
  tc.parallel = tr_par;
  st = la_trainer_create(&tr, &tc);
  if (!st) st = la_trainer_run(&tr, 7);
  if (!st) memcpy(theta, tr.theta, sizeof(la_real) * (size_t)tr.n);
  if (!st) *eval = tr.last_eval;
  la_trainer_destroy(&tr);
  la_data_destroy(&g);
  return st;
}

static void th_test_train(la_t *t) {
  LA_TEST(t, "threads/trainer: the same run with the model's or the trainer's workers") {
    la_real a[96], b[96];
    double ea = 0, eb = 0;
    th_host h;
    la_pool *p = NULL;
    int k, st;
    th_host_init(&h, 4, 0);
    st = th_train(NULL, NULL, 300, a, &ea);
    LA_CHECK(t, st == LA_OK, "one thread: %d", st);
    for (k = 0; k < 3 && !st; ++k) {
      const la_parallel *par = &h.par;
      int s2;
      if (k == 2) {
        if (la_pool_create(&p, 2) != LA_OK) break;
        par = la_pool_parallel(p);
      }
      memset(b, 0, sizeof b);
      s2 = k == 0 ? th_train(par, NULL, 300, b, &eb)
                  : th_train(NULL, par, 300, b, &eb);
      LA_CHECK(t, s2 == LA_OK && !memcmp(a, b, sizeof a) &&
                      ea == eb,
               "case %d: %d, eval %.17g vs %.17g", k, s2, ea, eb);
    }
    la_pool_destroy(p);
    h.par.run = NULL;
    {
      la_train_config tc;
      size_t bytes;
      memset(&tc, 0, sizeof tc);
      tc.objective = quad_fn;
      tc.nparams = 3;
      tc.parallel = &h.par;
      LA_CHECK(t, la_trainer_bytes(&tc, &bytes) == LA_ERANGE, "bad parallel");
    }
  }
}

static void th_test_diag(la_t *t) {
  LA_TEST(t, "threads/diagnostics: dense Hessian and Lanczos bit-identical") {
    static const tm_cfg cfg = {3, 6, 2, LA_PARAM_SPARSE, LA_ACT_LINEAR, 0};
    la_model m, mp;
    la_model_config mc;
    tm_data td;
    la_t_rng r;
    th_host h;
    la_real th[64];
    double h0[36 * 36], h1[36 * 36], e0[3], e1[3];
    la_eig_out o0, o1;
    int i, st, calls;
    r.s = 5;
    tm_make(&td, cfg.d, cfg.n, 300, &r);
    st = tm_model(&m, &cfg, NULL);
    LA_CHECK(t, st == LA_OK && m.nparams == 36, "model %d", m.nparams);
    for (i = 0; i < m.nparams; ++i) th[i] = (la_real)(0.3 * tm_normal(&r));
    th_host_init(&h, 3, 0);
    mc = m.cfg;
    mc.parallel = &h.par;
    la_model_init(&mp, &mc);
    st = la_hessian_dense(&m, th, &td.b, h0, NULL, 0);
    LA_CHECK(t, st == LA_OK, "dense %d", st);
    st = la_hessian_dense(&mp, th, &td.b, h1, NULL, 0);
    LA_CHECK(t, st == LA_OK && !memcmp(h0, h1, sizeof h0), "dense differs");
    /* a pass over the batch per block of directions, each on the host */
    LA_CHECK(t, h.calls >= 1, "dense: host calls %d", h.calls);
    calls = h.calls;
    memset(&o0, 0, sizeof o0);
    memset(&o1, 0, sizeof o1);
    o0.values = e0;
    o1.values = e1;
    st = la_hessian_eigs(&m, th, &td.b, 3, 1e-6, NULL, &o0, NULL, 0);
    LA_CHECK(t, st == LA_OK, "eigs %d", st);
    st = la_hessian_eigs(&mp, th, &td.b, 3, 1e-6, NULL, &o1, NULL, 0);
    LA_CHECK(t, st == LA_OK && !memcmp(e0, e1, sizeof e0) &&
                    o0.matvecs == o1.matvecs,
             "eigs differ");
    LA_CHECK(t, h.calls - calls >= o1.matvecs, "eigs: host calls %d",
             h.calls - calls);
    tm_free(&td);
  }
}

/* The fused draw: the same bits as la_data_sample and then the model. */
static void th_test_fresh(la_t *t) {
  LA_TEST(t, "threads/fresh: la_model_grad_fresh equals la_data_sample then la_model_grad") {
    static const int settings[] = {LA_SETTING_1, LA_SETTING_3, LA_SETTING_NONLINEAR};
    static const int counts[] = {1, 13, 200};
    th_host h;
    la_pool *pool = NULL;
    int si, ci, k, st, bad = 0;
    th_host_init(&h, 3, 0);
    la_pool_create(&pool, 2);
    for (si = 0; si < 3; ++si)
      for (ci = 0; ci < 3; ++ci)
        for (k = 0; k < 3; ++k) {
          la_data_config dc;
          la_data g;
          la_model_config mc;
          la_model m;
          la_batch b;
          la_rng r, r2;
          la_real th[64], g1[64], g2[64];
          double l1 = 0, l2 = 0, l3 = 0, l4 = 0;
          int i;
          la_data_preset(&dc, settings[si]);
          dc.d = 3;
          dc.n = 9;
          if (settings[si] == LA_SETTING_1) dc.noise_std = 0.1;
          memset(&mc, 0, sizeof mc);
          mc.d = 3;
          mc.n = 9;
          mc.layers = 2;
          mc.parallel = k == 0 ? NULL : k == 1 ? &h.par
                        : pool ? la_pool_parallel(pool) : NULL;
          if (la_data_create(&g, &dc, 4) || la_model_init(&m, &mc) ||
              m.nparams > 64 || la_batch_create(&b, 3, 9, counts[ci])) {
            bad++;
            continue;
          }
          la_rng_seed(&r, 8, 2);
          r.counter = 3;
          la_model_init_params(&m, &r, th);
          r2 = r;
          st = la_model_grad_fresh(&m, th, &g, &r, counts[ci], &l1, g1, NULL, 0);
          bad += st != LA_OK;
          la_data_sample(&g, &r2, &b);
          la_model_grad(&m, th, &b, &l2, g2, NULL, 0);
          bad += l1 != l2 ||
                 memcmp(g1, g2, sizeof(la_real) * (size_t)m.nparams) != 0 ||
                 r.counter != r2.counter;
          /* the loss alone */
          r = r2;
          st = la_model_grad_fresh(&m, th, &g, &r, counts[ci], &l3, NULL, NULL, 0);
          la_data_sample(&g, &r2, &b);
          la_model_loss(&m, th, &b, &l4, NULL, NULL, 0);
          bad += st != LA_OK || l3 != l4 || r.counter != r2.counter;
          for (i = 0; i < m.nparams; ++i) g1[i] = (la_real)-3;
          r2 = r;
          bad += la_model_grad_fresh(&m, th, &g, &r, 0, &l1, g1, NULL, 0) != LA_EDIM;
          bad += la_model_grad_fresh(&m, th, NULL, &r, 5, &l1, g1, NULL, 0) != LA_ENULL;
          bad += g1[0] != (la_real)-3 || r.counter != r2.counter;
          la_batch_destroy(&b);
          la_data_destroy(&g);
          {
            la_data_config d2 = dc;
            d2.n = 8;
            if (la_data_create(&g, &d2, 4) == LA_OK) {
              bad += la_model_grad_fresh(&m, th, &g, &r, 5, &l1, g1, NULL, 0) !=
                     LA_ESHAPE;
              la_data_destroy(&g);
            }
          }
        }
    LA_CHECK(t, bad == 0, "%d cases differ", bad);
    la_pool_destroy(pool);
  }
  LA_TEST(t, "threads/gradient noise bit-identical for any workers") {
    la_data_config dc;
    la_data g;
    la_model_config mc;
    la_model m, mp;
    la_grad_noise_config c;
    la_rng r, r1, r2;
    th_host h;
    la_real th[64];
    double n0[40], n1[40], tg0 = 0, tg1 = 1;
    int st;
    la_data_preset(&dc, LA_SETTING_1);
    dc.d = 3;
    dc.n = 9;
    memset(&mc, 0, sizeof mc);
    mc.d = 3;
    mc.n = 9;
    mc.layers = 2;
    st = la_data_create(&g, &dc, 4) || la_model_init(&m, &mc);
    LA_CHECK(t, st == 0 && m.nparams <= 64, "setup");
    th_host_init(&h, 4, 0);
    mc.parallel = &h.par;
    la_model_init(&mp, &mc);
    la_rng_seed(&r, 1, 1);
    la_model_init_params(&m, &r, th);
    memset(&c, 0, sizeof c);
    c.minibatch = 11;
    c.true_batch = 300;
    c.samples = 40;
    la_rng_seed(&r1, 6, 6);
    r2 = r1;
    st = la_grad_noise(&m, th, &g, &r1, &c, n0, &tg0, NULL, 0);
    LA_CHECK(t, st == LA_OK, "one worker %d", st);
    st = la_grad_noise(&mp, th, &g, &r2, &c, n1, &tg1, NULL, 0);
    LA_CHECK(t, st == LA_OK && h.calls >= 2, "four workers %d", st);
    LA_CHECK(t, !memcmp(n0, n1, sizeof n0) && tg0 == tg1 &&
                    r1.counter == r2.counter,
             "norms differ");
    /* a host that skips a sample */
    h.mode = 1;
    st = la_grad_noise(&mp, th, &g, &r2, &c, n1, &tg1, NULL, 0);
    LA_CHECK(t, st == LA_ERANGE, "skipped task: %d", st);
    la_data_destroy(&g);
  }
}

#if LA__THREADS == 1
/* A file of `text` at path (the test's cgroup files). */
static void th_write(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  if (f) {
    (void)fputs(text, f);
    (void)fclose(f);
  }
}
#endif

#if LA__THREADS
/* The environment variable `name` set to `value` (NULL: unset); 0 on
   success. Windows's C library has _putenv_s, where "" unsets. */
static int th_setenv(const char *name, const char *value) {
#ifdef _WIN32
  return _putenv_s(name, value ? value : "");
#else
  return value ? setenv(name, value, 1) : unsetenv(name);
#endif
}

/* la_cpu_count with the environment variable `name` set to `value`. */
static int th_cpus_with(const char *name, const char *value) {
  int n;
  char *old = getenv(name), keep[64] = "";
  if (old) (void)snprintf(keep, sizeof keep, "%s", old);
  if (th_setenv(name, value) != 0) return -1;
  n = la_cpu_count();
  if (th_setenv(name, old ? keep : NULL)) return -1;
  return n;
}

/* The processors of the machine, online. */
static long th_online(void) {
#ifdef _WIN32
  SYSTEM_INFO si;
  GetSystemInfo(&si);
  return (long)si.dwNumberOfProcessors;
#else
  return sysconf(_SC_NPROCESSORS_ONLN);
#endif
}
#endif

static void th_test_cpu_count(la_t *t) {
  LA_TEST(t, "threads/la_cpu_count: the affinity mask, cgroup quota, Slurm and OpenMP") {
#if LA__THREADS
    int all = la_cpu_count();
    long online = th_online();
    LA_CHECK(t, all >= 1 && all <= online, "cpus %d of %ld online", all, online);
    /* the variables bound it (never raise it), their first number */
    LA_CHECK(t, th_cpus_with("OMP_NUM_THREADS", "1") == 1, "OMP_NUM_THREADS=1");
    LA_CHECK(t, th_cpus_with("OMP_NUM_THREADS", "1,4") == 1, "a list: its first");
    LA_CHECK(t, th_cpus_with("SLURM_CPUS_PER_TASK", "1") == 1, "SLURM_CPUS_PER_TASK=1");
    LA_CHECK(t, th_cpus_with("OMP_NUM_THREADS", "100000") == all, "above: unchanged");
    LA_CHECK(t, th_cpus_with("OMP_NUM_THREADS", "0") == all &&
                    th_cpus_with("OMP_NUM_THREADS", "many") == all &&
                    th_cpus_with("SLURM_CPUS_PER_TASK", "") == all,
             "zero, words, empty: no limit");
    LA_CHECK(t, la__cpu_env("LA_NO_SUCH_VARIABLE_IN_TESTS") == 0, "unset");
#if LA__THREADS == 2
    { /* the process's affinity mask: one processor, then all again */
      DWORD_PTR mine = 0, sys = 0, low;
      HANDLE self = GetCurrentProcess();
      LA_CHECK(t, GetProcessAffinityMask(self, &mine, &sys) && mine, "mask");
      low = mine & (~mine + 1);
      if (mine != low && SetProcessAffinityMask(self, low)) {
        int one = la_cpu_count();
        LA_CHECK(t, SetProcessAffinityMask(self, mine), "restored");
        LA_CHECK(t, one == 1 && la_cpu_count() == all, "one CPU: %d, then %d",
                 one, la_cpu_count());
      }
    }
#else
  {
    char dir[] = "/tmp/la-cpus-XXXXXX", a[300], b[300], c[300];
    /* the cgroup quota files, v2 then v1, rounded up */
    if (!mkdtemp(dir)) {
      LA_CHECK(t, 0, "mkdtemp");
    } else {
      (void)snprintf(a, sizeof a, "%s/cpu.max", dir);
      (void)snprintf(b, sizeof b, "%s/quota", dir);
      (void)snprintf(c, sizeof c, "%s/period", dir);
      /* each case writes one file (0: cpu.max, 1: quota, 2: period; -1
         none), then reads v2 and v1 (v1 off: v2 alone) */
      static const struct {
        int file, v1;
        const char *text;
        long want;
      } cases[] = {{-1, 1, "", 0},            /* no files: no quota */
                   {1, 1, "250000\n", 0},     /* a quota, no period yet */
                   {2, 1, "100000\n", 3},     /* v1: 2.5 CPUs -> 3 */
                   {1, 1, "-1\n", 0},         /* v1: -1 is none */
                   {0, 1, "max 100000\n", 0}, /* v2: max is none */
                   {0, 1, "100000 100000\n", 1},
                   {0, 0, "50000 100000\n", 1}, /* half a CPU is one */
                   {0, 0, "garbage\n", 0}};
      const char *files[3];
      size_t k;
      files[0] = a;
      files[1] = b;
      files[2] = c;
      for (k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
        if (cases[k].file >= 0) th_write(files[cases[k].file], cases[k].text);
        LA_CHECK(t, la__cpu_quota(a, cases[k].v1 ? b : NULL, c) == cases[k].want,
                 "case %d: %s", (int)k, cases[k].text);
      }
      (void)remove(a);
      (void)remove(b);
      (void)remove(c);
      (void)rmdir(dir);
    }
  }
#endif
#else
    LA_CHECK(t, la_cpu_count() == 1, "no threads: one CPU");
#endif
  }
}

static void suite_threads(la_t *t) {
  th_test_cpu_count(t);
  th_test_pool(t);
  th_test_model(t);
  th_test_train(t);
  th_test_diag(t);
  th_test_fresh(t);
}
