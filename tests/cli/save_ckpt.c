/* The e2e scripts' checkpoint writer (harden3_e2e.sh, harden4_e2e.sh): a
   small run of two steps saved to argv[1] by the header's
   la_checkpoint_save, built as strict C99. Exit 0 saved, 1 the save
   failed, 9 the run could not be made. */
#include <stdio.h>
#define LINATTN_IMPLEMENTATION
#include "linattn.h"
#include "tests/unit/test_util.h"
int main(int argc, char **argv) {
  la_data g;
  la_model m;
  la_trainer tr;
  la_train_config tc;
  tc = (la_train_config){.model = &m, .data = &g, .batch = 8};
  if (argc != 2 || la_t_small(&g, &m, 1) || la_trainer_create(&tr, &tc) ||
      la_trainer_run(&tr, 2))
    return 9;
  return la_checkpoint_save(&tr, argv[1]) == LA_OK ? 0 : 1;
}
