/* A bare-metal training run: paper A's base model (sparse, L = 3, d = 5,
   N = 20) trained on fresh prompts with Adam (lr 0.02, beta2 0.9) and
   global-norm clipping at 1, through the trainer in a static block
   (LINATTN_NO_STDLIB: no malloc, no stdio). The result is the exit status:
   0 when the loss on a fixed evaluation batch fell below half its start,
   1 when it did not, 2 and up for a call that failed.

   The same source is built for a Cortex-M4F (arm-none-eabi, and run under
   qemu-system-arm's mps2-an386 with tests/builds/m4/) and for ARMv7 Linux
   (qemu-arm), see mk/harden.mk. */
#define LINATTN_IMPLEMENTATION
#include "linattn.h"

#define BATCH 16  /* prompts per step: two float panels */
#define EVAL 32   /* prompts of the evaluation batch */
#define STEPS 200

/* The trainer's block: theta, gradient, Adam's state, both batches and the
   model's workspace of one panel (la_trainer_bytes says how much). */
static unsigned char arena[160 * 1024];
static unsigned char data_mem[256];

static int train(double *before, double *after) {
  la_model_config mc = {0};
  la_data_config dc = {0};
  la_optim_config adam = {0};
  la_train_config tc = {0};
  la_model m;
  la_data g;
  la_trainer tr;
  size_t bytes = 0;
  mc.d = dc.d = 5;
  mc.n = dc.n = 20;
  if (la_model_init(&m, &mc) != LA_OK) return 2;
  if (la_data_bytes(&dc) > sizeof data_mem ||
      la_data_init(&g, &dc, 1, data_mem, sizeof data_mem) != LA_OK)
    return 3;
  adam.lr = 0.02;
  adam.beta2 = 0.9;
  tc.model = &m;
  tc.data = &g;
  tc.optimizer = la_optimizer_adam();
  tc.optimizer_config = &adam;
  tc.clip_norm = 1;
  tc.batch = BATCH;
  tc.eval_batch = EVAL;
  tc.eval_every = -1;
  tc.seed = 1;
  if (la_trainer_bytes(&tc, &bytes) != LA_OK || bytes > sizeof arena) return 4;
  if (la_trainer_init(&tr, &tc, arena, bytes) != LA_OK) return 5;
  if (la_trainer_eval(&tr, before) != LA_OK) return 6;
  if (la_trainer_run(&tr, STEPS) != LA_OK) return 7;
  if (la_trainer_eval(&tr, after) != LA_OK) return 8;
  return 0;
}

int main(void) {
  double before = 0, after = 0;
  int st = train(&before, &after);
  if (st) return st;
  return after < 0.5 * before ? 0 : 1;
}
