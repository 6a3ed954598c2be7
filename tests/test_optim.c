static void suite_optim(la_t *t) { (void)t; }
