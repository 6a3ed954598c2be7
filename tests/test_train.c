static void suite_train(la_t *t) { (void)t; }
