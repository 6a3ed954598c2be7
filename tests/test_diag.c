static void suite_diag(la_t *t) { (void)t; }
