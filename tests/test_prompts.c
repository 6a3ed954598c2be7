static void suite_prompts(la_t *t) { (void)t; }
