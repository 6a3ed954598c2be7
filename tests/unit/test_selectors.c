/* Presets, settings and the optimizer as selectors; what a field not given
   takes; zero given; la_run_explain's words; the checkpoint's description
   as the inverse of the trainer's configuration. Each test is one trap a
   user met when a selector was a label or a default was written twice. */

static const la_run_field *sel_f(const char *key) {
  return la_run_field_find(key);
}

/* preset `exp`, then the fields key=value given through la_run_field_set
   (enumerations by name), resolved into *r; the status. */
static int sel_resolve(const char *exp, const char *const *kv, la_run_config *r) {
  la_run_config c;
  memset(&c, 0, sizeof c);
  if (exp && la_run_preset(&c, exp, NULL) != 0) return -100;
  for (; kv && kv[0]; kv += 2) {
    const la_run_field *f = sel_f(kv[0]);
    double v = 0;
    int i;
    const char *nm;
    if (!f) return -101;
    if (f->kind == LA_FIELD_ENUM || f->kind == LA_FIELD_OPTIMIZER) {
      for (i = 0; (nm = la_run_field_name(f, i)) != NULL; ++i)
        if (!strcmp(nm, kv[1])) break;
      if (!nm) return -102;
      v = i;
    } else {
      v = strtod(kv[1], NULL);
    }
    if (la_run_field_set(&c, f, v) != 0) return -103;
  }
  return la_run_resolve(&c, r);
}

static void test_sel_choices(la_t *t) {
  LA_TEST(t, "selectors: a setting chosen after a preset brings its data") {
    static const char *const s3[] = {"setting", "3", NULL};
    la_run_config r, c;
    LA_CHECK(t, sel_resolve("1", s3, &r) == 0 && r.setting == LA_SETTING_3 &&
                    r.data.covariates == LA_X_GAMMA_SPHERE &&
                    r.data.gamma_shape == 0.1 && r.data.gamma_scale == 10,
             "preset 1, setting 3 given: Setting 3's Gamma radii");
    /* the same written into the struct, as C callers do */
    la_run_preset(&c, "1", NULL);
    c.setting = LA_SETTING_3;
    LA_CHECK(t, la_run_resolve(&c, &r) == 0 && r.data.covariates == LA_X_GAMMA_SPHERE,
             "written into the struct");
    la_run_preset(&c, "1", NULL);
    c.setting = LA_SETTING_SPHERE;
    LA_CHECK(t, la_run_resolve(&c, &r) == 0 && r.data.covariates == LA_X_SPHERE &&
                    r.clip_norm == 0.1 && r.opt.lr == 0.1,
             "sphere: its data, its clipping and Adam's rate for it");
  }

  LA_TEST(t, "selectors: the larger model on Setting 3 keeps its sizes") {
    static const char *const s3[] = {"setting", "3", NULL};
    la_run_config r;
    LA_CHECK(t, sel_resolve("large", s3, &r) == 0 && r.setting == LA_SETTING_3 &&
                    r.data.d == 20 && r.data.n == 60 && r.model.layers == 8 &&
                    r.data.covariates == LA_X_GAMMA_SPHERE,
             "Setting 3's data at d = 20, n = 60, L = 8: d %d n %d L %d", r.data.d,
             r.data.n, r.model.layers);
  }

  LA_TEST(t, "selectors: an optimizer chosen as a field brings its experiment's values") {
    static const char *const sgd[] = {"opt", "sgd", NULL};
    la_run_config r, c;
    LA_CHECK(t, sel_resolve("1", sgd, &r) == 0 && !strcmp(r.optimizer, "sgd") &&
                    r.opt.lr == 0.02 && r.opt.momentum == 0.9 && r.opt.beta1 == 0 &&
                    r.opt.beta2 == 0,
             "preset 1, opt sgd: paper A's rate and momentum, no betas");
    LA_CHECK(t, sel_resolve("2", sgd, &r) == 0 && r.opt.lr == 0.01, "Setting 2's rate");
    la_run_preset(&c, "1", NULL);
    memcpy(c.optimizer, "sgd", 4);
    LA_CHECK(t, la_run_resolve(&c, &r) == 0 && r.opt.lr == 0.02 && r.opt.momentum == 0.9,
             "written into the struct");
    /* chosen after resolving, the optimizer meets Adam's betas: refused */
    la_run_preset(&c, "1", NULL);
    la_run_resolve(&c, &c);
    memcpy(c.optimizer, "sgd", 4);
    LA_CHECK(t, la_run_resolve(&c, &r) == LA_ERANGE, "a resolved description is final");
  }

  LA_TEST(t, "selectors: a follower follows its field after a preset") {
    static const char *const b500[] = {"batch", "500", NULL};
    la_run_config r;
    LA_CHECK(t, sel_resolve("1", b500, &r) == 0 && r.batch == 500 && r.eval_batch == 500,
             "eval_batch follows batch: %d", r.eval_batch);
    LA_CHECK(t, sel_resolve("nonlinear", b500, &r) == 0 && r.eval_batch == 1000,
             "an experiment's own eval_batch stays: %d", r.eval_batch);
  }

  LA_TEST(t, "selectors: zero given is zero; not given, the default") {
    static const char *const clip0[] = {"clip", "0", NULL};
    static const char *const es0[] = {"seed", "7", "eval_seed", "0", NULL};
    static const char *const s0[] = {"seed", "0", NULL};
    static const char *const front0[] = {"front", "0", "param", "sparse", NULL};
    static const char *const const_[] = {"schedule", "constant", NULL};
    static const char *const b10[] = {"beta1", "0", NULL};
    la_run_config r;
    LA_CHECK(t, sel_resolve("1", clip0, &r) == 0 && r.clip_norm == 0, "clip 0");
    LA_CHECK(t, sel_resolve("1", NULL, &r) == 0 && r.clip_norm == 1, "clip not given");
    LA_CHECK(t, sel_resolve("1", es0, &r) == 0 && r.eval_seed == 0 && r.seed == 7,
             "eval_seed 0 is seed 0, not the seed");
    LA_CHECK(t, sel_resolve("1", s0, &r) == 0 && r.seed == 0 && r.eval_seed == 0,
             "seed 0");
    LA_CHECK(t, sel_resolve("nonlinear", front0, &r) == 0 && r.model.front_hidden == 0 &&
                    r.model.param == LA_PARAM_SPARSE,
             "no front layer, sparse, under nonlinear");
    LA_CHECK(t, sel_resolve("b-depth", const_, &r) == 0 &&
                    r.schedule.kind == LA_SCHED_CONSTANT && r.schedule.period == 0,
             "constant under b-depth: no period");
    LA_CHECK(t, sel_resolve("1", b10, &r) == 0 && r.opt.beta1 == 0 &&
                    1 / r.opt.beta1 < 0,
             "beta1 0: Adam without first-moment averaging (LA_ZERO)");
  }

  LA_TEST(t, "selectors: data_seed fixes the setting's network and Sigma for every seed") {
    static const char *const s1[] = {"seed", "1", "data_seed", "9", "d", "3", NULL};
    static const char *const s2[] = {"seed", "2", "data_seed", "9", "d", "3", NULL};
    static const char *const s3[] = {"seed", "2", "d", "3", NULL};
    static const char *const *kv[3] = {s1, s2, s3};
    static const char *const exps[2] = {"nonlinear", "paper-b"};
    int e, k;
    for (e = 0; e < 2; ++e) {
      la_run r[3];
      size_t bytes[3];
      for (k = 0; k < 3; ++k) {
        la_run_config c;
        LA_CHECK(t, sel_resolve(exps[e], kv[k], &c) == 0 && la_run_create(&r[k], &c, NULL) == 0,
                 "%s %d", exps[e], k);
        bytes[k] = la_data_bytes(&r[k].cfg.data);
      }
      {
        const la_real *f0 = e ? r[0].data.chol : r[0].data.net,
                      *f1 = e ? r[1].data.chol : r[1].data.net,
                      *f2 = e ? r[2].data.chol : r[2].data.net;
        size_t nbyte = sizeof(la_real) * (e ? 9 : (size_t)(2 * 10 * 3 + 10 + 3));
        LA_CHECK(t, f0 && f1 && f2 && memcmp(f0, f1, nbyte) == 0 && memcmp(f1, f2, nbyte) != 0,
                 "%s: the same for seeds 1 and 2 with data_seed 9, another without",
                 exps[e]);
        LA_CHECK(t, r[2].cfg.data_seed == 2 && r[0].cfg.data_seed == 9 && bytes[0] == bytes[1],
                 "%s: data_seed follows the seed", exps[e]);
      }
      for (k = 0; k < 3; ++k) la_run_destroy(&r[k]);
    }
  }

  LA_TEST(t, "selectors: a data field the setting fixes is refused, naming both") {
    static const char *const s3g[] = {"setting", "3", "covariates", "gaussian", NULL};
    static const char *const none[] = {"setting", "none", "covariates", "sphere", NULL};
    static const char *const s1[] = {"covariates", "sphere", NULL};
    static const char *const gs[] = {"setting", "3", "gamma_shape", "0.5", NULL};
    la_run_config c, r;
    const la_run_field *f = NULL;
    char why[200];
    LA_CHECK(t, sel_resolve("1", s3g, &r) == LA_ERANGE, "setting 3, gaussian");
    LA_CHECK(t, sel_resolve("1", gs, &r) == LA_ERANGE, "setting 3, another shape");
    LA_CHECK(t, sel_resolve(NULL, s1, &r) == LA_ERANGE, "Setting 1 by default");
    LA_CHECK(t, sel_resolve(NULL, none, &r) == 0 && r.setting == 0 &&
                    r.data.covariates == LA_X_SPHERE,
             "setting none: the data fields alone");
    memset(&c, 0, sizeof c);
    la_run_field_set(&c, sel_f("setting"), LA_SETTING_3);
    la_run_field_set(&c, sel_f("covariates"), LA_X_GAUSSIAN);
    LA_CHECK(t, la_run_explain(&c, &f, why, sizeof why) == LA_ERANGE && f &&
                    !strcmp(f->key, "covariates") &&
                    strstr(why, "setting 3 has covariates gamma-sphere"),
             "explained: %s: %s", f ? f->key : "-", why);
    /* a resolved description whose setting is changed in place: its data
       are values now (Setting 1's zeros would follow the new setting) */
    la_run_preset(&c, "3", NULL);
    la_run_resolve(&c, &c);
    c.setting = LA_SETTING_1;
    LA_CHECK(t, la_run_explain(&c, &f, why, sizeof why) == LA_ERANGE && f &&
                    !strcmp(f->key, "covariates"),
             "the label and the data of a resolved description disagree: %s", why);
  }

  LA_TEST(t, "selectors: la_run_explain names the field and why") {
    static const struct {
      const char *opt, *key;
      double v;
      const char *field, *why;
    } cases[] = {
        {"sgd", "beta1", 0.5, "beta1", "sgd does not read it"},
        {"adam", "momentum", 0.9, "momentum", "adam does not read it"},
        {"adam", "warmup", 20000, "warmup", "the schedule is inconsistent"},
        {"adam", "qk_rank", 6, "qk_rank", "the data setting and the model"},
    };
    la_run_config c;
    const la_run_field *f;
    char why[200];
    int i;
    for (i = 0; i < (int)(sizeof cases / sizeof cases[0]); ++i) {
      la_run_preset(&c, "1", cases[i].opt);
      if (!strcmp(cases[i].key, "warmup"))
        la_run_field_set(&c, sel_f("schedule"), LA_SCHED_COSINE);
      la_run_field_set(&c, sel_f(cases[i].key), cases[i].v);
      f = NULL;
      LA_CHECK(t, la_run_explain(&c, &f, why, sizeof why) != 0 && f &&
                      !strcmp(f->key, cases[i].field) && strstr(why, cases[i].why),
               "%s %g: %s: %s", cases[i].key, cases[i].v, f ? f->key : "-", why);
    }
    la_run_preset(&c, "1", NULL);
    c.batch = -5;
    LA_CHECK(t, la_run_explain(&c, &f, why, sizeof why) == LA_ERANGE && f &&
                    !strcmp(f->key, "batch") && strstr(why, "outside its range"),
             "batch -5: %s", why);
    memcpy(c.optimizer, "nadam", 6);
    c.batch = 0;
    LA_CHECK(t, la_run_explain(&c, &f, why, sizeof why) == LA_ERANGE && f &&
                    !strcmp(f->key, "opt"),
             "nadam: %s", why);
    la_run_preset(&c, "1", NULL);
    LA_CHECK(t, la_run_explain(&c, &f, why, sizeof why) == 0 && !f && !why[0], "fine");
    LA_CHECK(t, la_run_explain(NULL, &f, why, sizeof why) == LA_ENULL, "null");
  }
}

/* A field made to mean something: the settings of the others it needs. */
static void sel_make_apply(la_run_config *c, const la_run_field *f) {
  if (!strcmp(f->key, "gamma_shape") || !strcmp(f->key, "gamma_scale"))
    la_run_field_set(c, sel_f("covariates"), LA_X_GAMMA_SPHERE);
  if (!strcmp(f->key, "net_hidden"))
    la_run_field_set(c, sel_f("target"), LA_TARGET_RELU_NET);
  if (!strcmp(f->key, "resample_every"))
    la_run_field_set(c, sel_f("data"), LA_DATA_RESAMPLE);
  if (!strcmp(f->key, "period") || !strcmp(f->key, "decay"))
    la_run_field_set(c, sel_f("schedule"), LA_SCHED_HALVING);
  if (!strcmp(f->key, "min_scale"))
    la_run_field_set(c, sel_f("schedule"), LA_SCHED_COSINE);
}

static void test_sel_defaults(la_t *t) {
  LA_TEST(t, "selectors: the table's default column is what a run takes and the help says") {
    int i, n = la_run_field_count();
    for (i = 0; i < n; ++i) {
      const la_run_field *f = la_run_field_at(i);
      la_run_config c, r;
      char help[300], want[64];
      double got = -1;
      if (f->def != f->def || (f->flags & LA_FIELD_SELECTOR)) continue;
      memset(&c, 0, sizeof c);
      la_run_field_set(&c, sel_f("setting"), 0); /* no experiment */
      sel_make_apply(&c, f);
      LA_CHECK(t, la_run_resolve(&c, &r) == 0 && la_run_field_get(&r, f, &got) == 0 &&
                      got == f->def,
               "%s: %g, the table says %g", f->key, got, f->def);
      (void)la_run_field_help(f, help, sizeof help);
      if (f->kind == LA_FIELD_ENUM)
        (void)snprintf(want, sizeof want, "%s", la_run_field_name(f, (int)f->def));
      else (void)snprintf(want, sizeof want, "%g", f->def);
      LA_CHECK(t, strstr(help, "default: ") && strstr(strstr(help, "default: "), want),
               "%s's help gives %s: %s", f->key, want, help);
    }
  }

  LA_TEST(t, "selectors: a zero trainer configuration takes the table's defaults") {
    la_data g;
    la_model m;
    la_train_config tc;
    la_trainer tr;
    LA_CHECK(t, la_t_small(&g, &m, 1) == 0, "make");
    memset(&tc, 0, sizeof tc);
    tc.model = &m;
    tc.data = &g;
    tc.seed = 9;
    LA_CHECK(t, la_trainer_create(&tr, &tc) == 0, "create");
    LA_CHECK(t, tr.cfg.batch == (int)sel_f("batch")->def &&
                    tr.cfg.resample_every == (int)sel_f("resample_every")->def &&
                    tr.cfg.eval_every == (int)sel_f("eval_every")->def &&
                    tr.cfg.eval_batch == tr.cfg.batch && tr.cfg.eval_seed == 9 &&
                    tr.cfg.optimizer == la_optimizer_adam(),
             "batch %d, eval every %d", tr.cfg.batch, tr.cfg.eval_every);
    la_trainer_destroy(&tr);
    la_data_destroy(&g);
  }

  LA_TEST(t, "selectors: a resolved description resolves to itself") {
    static const char *const opts[] = {NULL, "sgd", "lbfgs", "rmsprop"};
    const char *name;
    int i, k;
    for (i = 0; (name = la_run_preset_name(i, NULL)) != NULL; ++i)
      for (k = 0; k < 4; ++k) {
        la_run_config c, r, r2;
        la_run_preset(&c, name, opts[k]);
        LA_CHECK(t, la_run_resolve(&c, &r) == 0 && la_run_resolve(&r, &r2) == 0 &&
                        memcmp(&r, &r2, offsetof(la_run_config, given)) == 0,
                 "%s with %s", name, opts[k] ? opts[k] : "its own");
      }
  }
}

/* Rewrites a version 3 checkpoint as version 2 wrote it (no given bits),
   with field `key` set to the 8 bytes of `raw` (key NULL: unchanged);
   lengths and checksum made right. */
static void sel_as_v2(unsigned char *p, size_t len, const char *key, uint64_t raw) {
  size_t dl = (size_t)p[64] | (size_t)p[65] << 8, at = 104, i;
  uint64_t h = 14695981039346656037ull;
  p[8] = 2;
  while (at < 104 + dl) {
    size_t kl = p[at];
    int opt = (p[at + 1 + kl] & 0x7f) == LA_FIELD_OPTIMIZER;
    p[at + 1 + kl] &= 0x7f;
    if (key && kl == strlen(key) && !memcmp(p + at + 1, key, kl))
      for (i = 0; i < 8; ++i) p[at + 2 + kl + i] = (unsigned char)(raw >> (8 * i));
    at += 2 + kl + (opt ? 1 + p[at + 2 + kl] : 8);
  }
  for (i = 0; i + 8 < len; ++i) h = (h ^ p[i]) * 1099511628211ull;
  for (i = 0; i < 8; ++i) p[len - 8 + i] = (unsigned char)(h >> (8 * i));
}

static void test_sel_checkpoints(la_t *t) {
  static unsigned char buf[1 << 16];
  LA_TEST(t, "selectors: a checkpoint keeps what was given") {
    static const char *const kv[] = {"clip", "0", "eval_seed", "0", "seed", "5",
                                     "d", "2", "n", "3", "depth", "1", "batch", "16",
                                     NULL};
    la_run_config c, back;
    la_run r;
    size_t len = 0;
    int i, same = 1;
    LA_CHECK(t, sel_resolve("1", kv, &c) == 0 && la_run_create(&r, &c, NULL) == 0 &&
                    la_trainer_run(&r.trainer, 2) == 0 &&
                    la_checkpoint_save_mem(&r.trainer, buf, sizeof buf, &len) == 0,
             "a run saved");
    LA_CHECK(t, la_checkpoint_run(buf, len, &back, NULL) == 0 &&
                    la_run_diff(&back, &c, ~0u) == NULL,
             "read back");
    for (i = 0; i < la_run_field_count(); ++i)
      same &= la_run_field_given(&back, la_run_field_at(i)) ==
              la_run_field_given(&c, la_run_field_at(i));
    LA_CHECK(t, same && back.clip_norm == 0 && back.eval_seed == 0, "given bits kept");
    LA_CHECK(t, la_run_resolve(&back, &back) == 0 && back.clip_norm == 0 &&
                    back.eval_seed == 0,
             "and they still say zero when resolved again");
    la_run_destroy(&r);
  }

  LA_TEST(t, "selectors: version 2 descriptions read as they were meant") {
    static const char *const kv[] = {"d", "2", "n", "3", "depth", "1", "batch", "16",
                                     "seed", "5", NULL};
    static const char *const sph[] = {"setting", "none", "covariates", "sphere", "d", "2",
                                      "n", "3", "depth", "1", "batch", "16", NULL};
    la_run_config c, back, r2;
    la_run r;
    size_t len = 0;
    LA_CHECK(t, sel_resolve("1", kv, &c) == 0 && la_run_create(&r, &c, NULL) == 0 &&
                    la_checkpoint_save_mem(&r.trainer, buf, sizeof buf, &len) == 0,
             "saved");
    la_run_destroy(&r);
    /* version 2 wrote eval_seed 0 for "the seed" */
    sel_as_v2(buf, len, "eval_seed", 0);
    LA_CHECK(t, la_checkpoint_run(buf, len, &back, NULL) == 0 &&
                    !la_run_field_given(&back, sel_f("eval_seed")) &&
                    la_run_field_given(&back, sel_f("clip")) &&
                    la_run_resolve(&back, &r2) == 0 && r2.eval_seed == 5,
             "eval_seed 0 follows the seed: %lu", (unsigned long)r2.eval_seed);
    /* version 2's setting was a label: Setting 1 over spherical data */
    LA_CHECK(t, sel_resolve(NULL, sph, &c) == 0 && la_run_create(&r, &c, NULL) == 0 &&
                    la_checkpoint_save_mem(&r.trainer, buf, sizeof buf, &len) == 0,
             "saved");
    la_run_destroy(&r);
    sel_as_v2(buf, len, "setting", 1);
    LA_CHECK(t, la_checkpoint_run(buf, len, &back, NULL) == 0 && back.setting == 0 &&
                    la_run_resolve(&back, &r2) == 0 && r2.data.covariates == LA_X_SPHERE,
             "a label its data disagree with reads as none");
  }

  LA_TEST(t, "selectors: a trainer's checkpoint describes the trainer it came from") {
    /* trainers built by hand, saved, and rebuilt from the description
       read back: the inverse of the run's trainer configuration */
    la_data g;
    la_model m;
    la_optim_config sgd;
    int k;
    LA_CHECK(t, la_t_small(&g, &m, 3) == 0, "make");
    for (k = 0; k < 4; ++k) {
      la_train_config tc;
      la_trainer a;
      la_run_config back;
      la_run b;
      size_t len = 0;
      memset(&tc, 0, sizeof tc);
      memset(&sgd, 0, sizeof sgd);
      tc.model = &m;
      tc.data = &g;
      tc.batch = 16;
      tc.eval_every = 3;
      tc.seed = k == 0 ? 0 : 11; /* seed 0 is a seed */
      if (k == 1) { /* halving at the default period and decay */
        tc.schedule.kind = LA_SCHED_HALVING;
        tc.clip_norm = 0.5;
      }
      if (k == 2) { /* SGD without momentum, by its zero */
        sgd.lr = 0.05;
        tc.optimizer = la_optimizer_sgd();
        tc.optimizer_config = &sgd;
        tc.data_mode = LA_DATA_RESAMPLE;
        tc.resample_every = 2;
      }
      if (k == 3) {
        tc.eval_seed = 4;
        tc.data_mode = LA_DATA_FIXED;
      }
      LA_CHECK(t, la_trainer_create(&a, &tc) == 0 && la_trainer_run(&a, 3) == 0 &&
                      la_checkpoint_save_mem(&a, buf, sizeof buf, &len) == 0,
               "%d: trained and saved", k);
      LA_CHECK(t, la_checkpoint_run(buf, len, &back, NULL) == 0 &&
                      la_run_create(&b, &back, NULL) == 0 &&
                      la_run_resume_mem(&b, buf, len, NULL) == 0,
               "%d: a run from its description resumes it", k);
      LA_CHECK(t, b.trainer.cfg.batch == a.cfg.batch &&
                      b.trainer.cfg.eval_batch == a.cfg.eval_batch &&
                      b.trainer.cfg.eval_every == a.cfg.eval_every &&
                      b.trainer.cfg.seed == a.cfg.seed &&
                      b.trainer.cfg.eval_seed == a.cfg.eval_seed &&
                      b.trainer.cfg.clip_norm == a.cfg.clip_norm &&
                      b.trainer.cfg.data_mode == a.cfg.data_mode &&
                      b.trainer.cfg.optimizer == a.cfg.optimizer,
               "%d: the same configuration", k);
      LA_CHECK(t, la_trainer_run(&a, 4) == 0 && la_trainer_run(&b.trainer, 4) == 0 &&
                      memcmp(a.theta, b.trainer.theta, sizeof(la_real) * (size_t)a.n) == 0,
               "%d: and the same steps, bit for bit", k);
      la_trainer_destroy(&a);
      la_run_destroy(&b);
    }
    la_data_destroy(&g);
  }
}


/* ------------------------------------------------ another program's data */

static void test_sel_given(la_t *t) {
  LA_TEST(t, "given data: the tokens of paper A's layout in and out of a batch") {
    la_batch a, b;
    la_data g;
    la_model m;
    la_rng rng;
    double tok[37 * 4 * 3], y[37], tok2[37 * 4 * 3], y2[37];
    LA_CHECK(t, la_t_small(&g, &m, 4) == 0 && la_batch_create(&a, 2, 3, 37) == 0 &&
                    la_batch_create(&b, 2, 3, 37) == 0,
             "make");
    la_rng_seed(&rng, 4, 9);
    la_data_sample(&g, &rng, &a);
    LA_CHECK(t, la_batch_get_tokens(&a, tok, y) == 0 && la_batch_put_tokens(&b, tok, y) == 0,
             "out and in");
    LA_CHECK(t, memcmp(a.z, b.z, la_batch_bytes(2, 3, 37)) == 0, "the same batch, bit for bit");
    /* prompt 5, token 2 is column 2 of Z0: x then y */
    {
      la_real plain[37 * 12];
      la_unpack(37, 3, 4, a.z, plain);
      LA_CHECK(t, tok[5 * 12 + 2 * 3 + 0] == (double)plain[5 * 12 + 0 * 4 + 2] &&
                      tok[5 * 12 + 2 * 3 + 2] == (double)plain[5 * 12 + 2 * 4 + 2] &&
                      tok[5 * 12 + 3 * 3 + 2] == 0,
               "token j = column j; the query's label slot 0");
    }
    la_batch_get_tokens(&b, tok2, y2);
    LA_CHECK(t, memcmp(tok, tok2, sizeof tok2) == 0 && memcmp(y, y2, sizeof y2) == 0,
             "round trip");
    tok[7 * 12 + 11] = 0.5;
    LA_CHECK(t, la_batch_put_tokens(&b, tok, y) == LA_ERANGE, "a query with a label");
    tok[7 * 12 + 11] = 0;
    y[3] = NAN;
    LA_CHECK(t, la_batch_put_tokens(&b, tok, y) == LA_ENONFINITE &&
                    memcmp(a.z, b.z, la_batch_bytes(2, 3, 37)) == 0,
             "a NaN: refused, the batch untouched");
    LA_CHECK(t, la_batch_put_tokens(NULL, tok, y) == LA_ENULL &&
                    la_batch_get_tokens(&b, NULL, NULL) == 0,
             "null");
    la_batch_destroy(&a);
    la_batch_destroy(&b);
    la_data_destroy(&g);
  }

  LA_TEST(t, "given data: a run on the batches a fresh run draws is that run, bit for bit") {
    static const char *const kv[] = {"d", "2", "n", "3", "depth", "1", "batch", "24",
                                     "seed", "6", "eval_every", "-1", NULL};
    la_run_config c, cg;
    la_run a, b, r;
    la_run_env env;
    la_batch bs[5];
    static unsigned char buf[1 << 15];
    size_t len = 0;
    const la_run_field *why = NULL;
    int k;
    LA_CHECK(t, sel_resolve("1", kv, &c) == 0 && la_run_create(&a, &c, NULL) == 0, "fresh");
    for (k = 0; k < 5; ++k) {
      la_rng rng;
      la_batch_create(&bs[k], 2, 3, 24);
      la_rng_seed(&rng, 6, (uint64_t)k); /* step k's stream */
      la_data_sample(&a.data, &rng, &bs[k]);
    }
    cg = c;
    la_run_field_set(&cg, sel_f("data"), LA_DATA_GIVEN);
    memset(&env, 0, sizeof env);
    env.batches = bs;
    env.nbatches = 5;
    LA_CHECK(t, la_run_create(&b, &cg, &env) == 0 && b.cfg.data_hash != 0, "given");
    LA_CHECK(t, la_trainer_run(&a.trainer, 5) == 0 && la_trainer_run(&b.trainer, 3) == 0,
             "trained");
    LA_CHECK(t, la_checkpoint_save_mem(&b.trainer, buf, sizeof buf, &len) == 0 &&
                    la_trainer_run(&b.trainer, 2) == 0,
             "saved at 3, on to 5");
    LA_CHECK(t, memcmp(a.trainer.theta, b.trainer.theta, sizeof(la_real) * 8) == 0,
             "the same theta");
    LA_CHECK(t, la_trainer_step(&b.trainer) == LA_ERANGE, "no batch for step 6");
    /* a resume needs the same batches */
    LA_CHECK(t, la_run_create(&r, &b.cfg, &env) == 0 &&
                    la_run_resume_mem(&r, buf, len, &why) == 0 &&
                    la_trainer_run(&r.trainer, 2) == 0 &&
                    memcmp(r.trainer.theta, a.trainer.theta, sizeof(la_real) * 8) == 0,
             "resumed on the same batches");
    la_run_destroy(&r);
    bs[4].y[0] += 1;
    LA_CHECK(t, la_run_create(&r, &b.cfg, &env) == LA_ESHAPE, "other batches refused");
    env.batches = NULL;
    LA_CHECK(t, la_run_create(&r, &b.cfg, &env) == LA_ENULL, "none refused");
    env.batches = bs;
    LA_CHECK(t, la_run_create(&r, &c, &env) == LA_ERANGE,
             "batches for a run that draws its own");
    la_run_destroy(&a);
    la_run_destroy(&b);
    for (k = 0; k < 5; ++k) la_batch_destroy(&bs[k]);
  }

  LA_TEST(t, "measurements: the k-th batch of a run's measurements, from diag_seed") {
    static const char *const a[] = {"d", "2", "n", "3", "seed", "4", NULL};
    static const char *const b[] = {"d", "2", "n", "3", "seed", "5", "diag_seed", "4", NULL};
    la_run_config ca, cb;
    la_run ra, rb;
    la_batch x, y, z;
    la_rng rng;
    LA_CHECK(t, sel_resolve("1", a, &ca) == 0 && sel_resolve("1", b, &cb) == 0 &&
                    ca.measure.diag_seed == 4 && cb.measure.diag_seed == 4 &&
                    la_run_create(&ra, &ca, NULL) == 0 && la_run_create(&rb, &cb, NULL) == 0,
             "diag_seed follows eval_seed, which follows seed; or given");
    la_batch_create(&x, 2, 3, 20);
    la_batch_create(&y, 2, 3, 20);
    la_batch_create(&z, 2, 3, 20);
    LA_CHECK(t, la_run_diag_batch(&ra, 0, &x) == 0 && la_run_diag_batch(&rb, 0, &y) == 0 &&
                    memcmp(x.z, y.z, la_batch_bytes(2, 3, 20)) == 0,
             "one batch for two seeds of one diag_seed");
    la_rng_seed(&rng, 4, LA_STREAM_EVAL - 2);
    la_data_sample(&ra.data, &rng, &z);
    LA_CHECK(t, memcmp(x.z, z.z, la_batch_bytes(2, 3, 20)) == 0,
             "batch 0: the stream the diagnostics always used");
    LA_CHECK(t, la_run_diag_batch(&ra, 1, &y) == 0 &&
                    memcmp(x.z, y.z, la_batch_bytes(2, 3, 20)) != 0,
             "batch 1: another");
    LA_CHECK(t, la_run_diag_batch(&ra, -1, &y) == LA_ERANGE &&
                    la_run_diag_batch(NULL, 0, &y) == LA_ENULL,
             "refused");
    la_batch_destroy(&x);
    la_batch_destroy(&y);
    la_batch_destroy(&z);
    la_run_destroy(&ra);
    la_run_destroy(&rb);
  }

  LA_TEST(t, "measurements: Hessian batches given are the run's k-th batches") {
    static const char *const a[] = {"d", "2", "n", "3", "seed", "4", "diag_batch", "5",
                                    "diag_batches", "2", NULL};
    la_run_config c;
    la_run r, r2;
    la_run_env env;
    la_batch g[3], x, odd;
    la_rng rng;
    int k;
    LA_CHECK(t, sel_resolve("1", a, &c) == 0, "resolve");
    la_rng_seed(&rng, 77, 0);
    for (k = 0; k < 3; ++k) { /* prompts of our own, none a draw's */
      double tok[5 * 4 * 3], y[5];
      int e;
      for (e = 0; e < 5 * 4 * 3; ++e) tok[e] = (e % 12 == 11) ? 0 : la_rng_normal(&rng);
      for (e = 0; e < 5; ++e) y[e] = la_rng_normal(&rng) + k;
      la_batch_create(&g[k], 2, 3, 5);
      la_batch_put_tokens(&g[k], tok, y);
    }
    la_batch_create(&x, 2, 3, 5);
    la_batch_create(&odd, 2, 3, 4);
    memset(&env, 0, sizeof env);
    env.diag = g;
    env.ndiag = 3;
    LA_CHECK(t, la_run_create(&r, &c, &env) == 0, "create");
    for (k = 0; k < 3; ++k)
      LA_CHECK(t, la_run_diag_batch(&r, k, &x) == 0 &&
                      memcmp(x.z, g[k].z, la_batch_bytes(2, 3, 5)) == 0,
               "batch %d: the given one, z and y", k);
    LA_CHECK(t, la_run_diag_batch(&r, 3, &x) == LA_ERANGE, "past the given: LA_ERANGE");
    LA_CHECK(t, la_run_diag_batch(&r, 0, &odd) == LA_ESHAPE, "another count: LA_ESHAPE");
    la_run_destroy(&r);
    env.ndiag = 1; /* fewer than diag_batches */
    LA_CHECK(t, la_run_create(&r2, &c, &env) == LA_ERANGE, "too few: LA_ERANGE");
    env.diag = &odd; /* not of diag_batch prompts */
    c.measure.diag_batches = 1;
    LA_CHECK(t, la_run_create(&r2, &c, &env) == LA_ESHAPE, "another count: LA_ESHAPE");
    for (k = 0; k < 3; ++k) la_batch_destroy(&g[k]);
    la_batch_destroy(&x);
    la_batch_destroy(&odd);
  }

  LA_TEST(t, "given data: an initial theta given is the run's, and its fingerprint") {
    static const char *const kv[] = {"d", "2", "n", "3", "depth", "1", "batch", "16", NULL};
    la_run_config c;
    la_run a, r;
    la_run_env env;
    la_real th0[8] = {0.1f, -0.2f, 0.3f, 0, 0.05f, 0.5f, -0.4f, 0.25f};
    LA_CHECK(t, sel_resolve("1", kv, &c) == 0, "resolved");
    memset(&env, 0, sizeof env);
    env.theta0 = th0;
    LA_CHECK(t, la_run_create(&a, &c, &env) == 0 && a.cfg.init_hash != 0 &&
                    memcmp(a.trainer.theta, th0, sizeof th0) == 0,
             "theta0 is the run's");
    env.theta0 = NULL;
    LA_CHECK(t, la_run_create(&r, &a.cfg, &env) == LA_ENULL,
             "its description without the theta");
    th0[3] = 1;
    env.theta0 = th0;
    LA_CHECK(t, la_run_create(&r, &a.cfg, &env) == LA_ESHAPE, "another theta");
    la_run_destroy(&a);
  }
}

static void suite_selectors(la_t *t) {
  test_sel_choices(t);
  test_sel_defaults(t);
  test_sel_checkpoints(t);
  test_sel_given(t);
}
