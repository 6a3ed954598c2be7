static void suite_model(la_t *t) { (void)t; }
