/* Room for the configuration of any built-in optimizer, for programs that
   pick one at run time (the fuzz harnesses, the soak run). */
#ifndef LA_OPT_CONFIG_H
#define LA_OPT_CONFIG_H
typedef union la_any_opt_config {
  la_sgd_config sgd;
  la_adam_config adam;
  la_sign_config sign;
  la_adagrad_config adagrad;
  la_rmsprop_config rmsprop;
} la_any_opt_config;
#endif
