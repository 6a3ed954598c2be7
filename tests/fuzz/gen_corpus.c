/* Writes the seed corpora (`make fuzz-corpus`, into tests/fuzz/corpus/):
   for the checkpoint harness real checkpoints of a few shapes and
   optimizers, saved after a few training steps, and cut copies of the
   first; for the configuration harness encodings of valid settings, in
   the field order of fuzz_config.c (a byte below 0x80 is a small integer,
   below 0xd0 an index into its table of reals: 0 -> 0, 1 -> 1, 6 -> 0.9,
   13 -> 0.02). */
#define LINATTN_IMPLEMENTATION
#include "../../linattn.h"
#include <stdio.h>
#include <stdlib.h>

typedef struct shape {
  const char *file;
  int d, n, layers, param, activation, front_hidden;
  const la_optimizer *(*optimizer)(void);
  double momentum; /* SGD family and RMSprop */
  int data_mode;
} shape;

static int write_file(const char *dir, const char *name, const void *p,
                      size_t len) {
  char path[512];
  FILE *f;
  int ok;
  (void)snprintf(path, sizeof path, "%s/%s", dir, name);
  f = fopen(path, "wb");
  if (!f) return 1;
  ok = fwrite(p, 1, len, f) == len;
  ok = fclose(f) == 0 && ok;
  return !ok;
}

/* A trained trainer of shape s, saved into buf; its length, 0 on error. */
static size_t checkpoint_of(const shape *s, unsigned char *buf, size_t cap) {
  la_model_config mc = {0};
  la_data_config dc = {0};
  la_model m;
  la_data g;
  la_optim_config sgd = {0};
  la_optim_config sign = {0};
  la_optim_config rms = {0};
  la_train_config tc = {0};
  la_trainer tr;
  size_t len = 0;
  mc.d = dc.d = s->d;
  mc.n = dc.n = s->n;
  mc.layers = s->layers;
  mc.param = s->param;
  mc.activation = s->activation;
  mc.front_hidden = s->front_hidden;
  sgd.momentum = sign.momentum = rms.momentum = s->momentum;
  if (la_model_init(&m, &mc) || la_data_create(&g, &dc, 1)) return 0;
  tc.model = &m;
  tc.data = &g;
  tc.optimizer = s->optimizer();
  if (tc.optimizer == la_optimizer_sgd()) tc.optimizer_config = &sgd;
  if (tc.optimizer == la_optimizer_sign() || tc.optimizer == la_optimizer_nsgd())
    tc.optimizer_config = &sign;
  if (tc.optimizer == la_optimizer_rmsprop()) tc.optimizer_config = &rms;
  tc.clip_norm = 1;
  tc.batch = 8;
  tc.data_mode = s->data_mode;
  tc.resample_every = 2;
  tc.seed = 5;
  if (la_trainer_create(&tr, &tc) == LA_OK && la_trainer_run(&tr, 3) == LA_OK &&
      la_checkpoint_save_mem(&tr, buf, cap, &len) == LA_OK) {
    la_trainer_destroy(&tr);
    la_data_destroy(&g);
    return len;
  }
  la_data_destroy(&g);
  return 0;
}

/* model d n L param act front init kernels | data own-dims cov shape
   scale sigma wstar target hidden noise perturb no-matrix, seed(8) |
   sample count, rng(16) | optimizer and fields | schedule kind warmup
   period decay total min, t | clip clip-block batch mode resample
   eval-every eval-batch seed(8) eval-seed theta0 */
#define SEED8 1, 0, 0, 0, 0, 0, 0, 0
#define RNG16 SEED8, SEED8
static const unsigned char cfg_base[] = {
    5, 20, 3, 0, 0, 0, 0, 0,  0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, SEED8,
    8, RNG16,  1, 13, 0, 6, 0, 0, 0, 0,  0, 0, 0, 0, 0, 0, 5,
    1, 0, 8, 0, 0, 1, 8, SEED8, 0, 0};
static const unsigned char cfg_gamma_sgd_cosine[] = {
    3, 6, 2, 0, 0, 0, 0, 0,  0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, SEED8,
    5, RNG16,  0, 1, 6, 1, 0,  2, 2, 0, 0, 10, 0, 7,
    1, 0, 8, 1, 2, 1, 4, SEED8, 0, 0};
static const unsigned char cfg_paperb_halving[] = {
    4, 8, 2, 2, 0, 0, 0, 1,  0, 0, 0, 0, 2, 1, 0, 0, 0, 0, 0, SEED8,
    9, RNG16,  1, 13, 0, 6, 0, 0, 0, 0,  1, 0, 2, 3, 0, 0, 4,
    0, 9, 8, 1, 2, 2, 8, SEED8, 0, 0};
static const unsigned char cfg_dense_relu_front_net[] = {
    2, 4, 1, 1, 1, 2, 0, 0,  0, 0, 0, 0, 0, 0, 1, 4, 3, 0, 0, SEED8,
    3, RNG16,  5, 13, 6, 0, 6, 0,  0, 1, 0, 0, 0, 0, 1,
    1, 0, 4, 2, 0, 1, 4, SEED8, 0, 1, 3, 3, 1, 1, 13, 13, 13, 13};
static const unsigned char cfg_sigma_given[] = {
    3, 5, 1, 0, 0, 0, 0, 0,  0, 0, 0, 1, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, SEED8,  4, RNG16,  4, 13, 0, 0, 0,  0, 0, 0, 0, 0, 0, 2,
    0, 0, 8, 0, 0, 1, 8, SEED8, 0, 0};

int main(int argc, char **argv) {
  static const shape shapes[] = {
      {"base-adam", 5, 20, 3, LA_PARAM_SPARSE, LA_ACT_LINEAR, 0,
       la_optimizer_adam, 0, LA_DATA_FRESH},
      {"dense-sgd-momentum", 2, 3, 1, LA_PARAM_DENSE, LA_ACT_LINEAR, 0,
       la_optimizer_sgd, 0.9, LA_DATA_RESAMPLE},
      {"pgd-rmsprop-momentum", 3, 4, 2, LA_PARAM_PGD, LA_ACT_LINEAR, 0,
       la_optimizer_rmsprop, 0.9, LA_DATA_FIXED},
      {"relu-front-adagrad", 2, 3, 1, LA_PARAM_SPARSE, LA_ACT_RELU, 2,
       la_optimizer_adagrad, 0, LA_DATA_FRESH},
      {"sparse-sign", 2, 2, 2, LA_PARAM_SPARSE, LA_ACT_LINEAR, 0,
       la_optimizer_sign, 0, LA_DATA_RESAMPLE},
      {"dense-nsgd-momentum", 3, 5, 2, LA_PARAM_DENSE, LA_ACT_LINEAR, 0,
       la_optimizer_nsgd, 0.9, LA_DATA_FIXED},
  };
  static unsigned char buf[1 << 16];
  const char *dir = argc > 1 ? argv[1] : "tests/fuzz/corpus/checkpoint";
  const char *cfgdir = argc > 2 ? argv[2] : "tests/fuzz/corpus/config";
  size_t i, len = 0, cuts[5];
  int bad = 0;
  for (i = 0; i < sizeof shapes / sizeof shapes[0]; ++i) {
    size_t n = checkpoint_of(&shapes[i], buf, sizeof buf);
    if (!n) {
      (void)fprintf(stderr, "gen_corpus: %s failed\n", shapes[i].file);
      return 1;
    }
    bad |= write_file(dir, shapes[i].file, buf, n);
    if (i == 0) len = n;
  }
  /* the first file again, cut short: inside the magic, inside the header,
     just past it, halfway, one byte short */
  checkpoint_of(&shapes[0], buf, sizeof buf);
  cuts[0] = 7; cuts[1] = 64; cuts[2] = 136; cuts[3] = len / 2; cuts[4] = len - 1;
  for (i = 0; i < 5; ++i) {
    char name[32];
    (void)snprintf(name, sizeof name, "base-adam-cut-%u", (unsigned)cuts[i]);
    bad |= write_file(dir, name, buf, cuts[i]);
  }
  bad |= write_file(cfgdir, "base-adam", cfg_base, sizeof cfg_base);
  bad |= write_file(cfgdir, "gamma-sgd-cosine", cfg_gamma_sgd_cosine,
                    sizeof cfg_gamma_sgd_cosine);
  bad |= write_file(cfgdir, "paperb-halving", cfg_paperb_halving,
                    sizeof cfg_paperb_halving);
  bad |= write_file(cfgdir, "dense-relu-front-net", cfg_dense_relu_front_net,
                    sizeof cfg_dense_relu_front_net);
  bad |= write_file(cfgdir, "sigma-given", cfg_sigma_given,
                    sizeof cfg_sigma_given);
  if (bad) (void)fprintf(stderr, "gen_corpus: cannot write into %s, %s\n", dir, cfgdir);
  return bad;
}
