/* linattn.h section under development: the model.
   Included twice by linattn.h: once with LA__PART_API defined (declarations,
   inside the include guard and extern "C"), once with LA__PART_IMPL. */
#if defined(LA__PART_API)

/* CONTRACT (other sections code against these; the model section may add
   fields and functions but keeps these names and meanings). */
enum { LA_PARAM_SPARSE = 0, LA_PARAM_DENSE = 1, LA_PARAM_PGD = 2 };
enum { LA_ACT_LINEAR = 0, LA_ACT_RELU = 1 };

/* Zero means the documented default. */
typedef struct la_model_config {
  int d, n;                  /* covariate dimension, context length (required) */
  int layers;                /* L; 0 -> 3 */
  int param;                 /* LA_PARAM_*; 0 -> sparse */
  int activation;            /* LA_ACT_*; 0 -> linear */
  int front_hidden;          /* width h of the front MLP; 0 -> none */
  double init_std;           /* 0 -> 0.05 */
  const la_kernels *kernels; /* NULL -> la_kernels_best() */
} la_model_config;

typedef struct la_model {
  la_model_config cfg; /* defaults filled in */
  int nparams;         /* length of theta */
} la_model;

LINATTN_DEF int la_model_init(la_model *m, const la_model_config *cfg);
/* theta ~ N(0, init_std^2) entrywise from the stream of rng. */
LINATTN_DEF int la_model_init_params(const la_model *m, la_rng *rng,
                                     la_real *theta);
/* The parameter matrices in theta: up to max (offset, size) pairs; returns
   their number (per-matrix clipping uses it). */
LINATTN_DEF int la_model_blocks(const la_model *m, int *offsets, int *sizes,
                                int max);
/* Workspace for one call of loss, grad or hvp; independent of batch size. */
LINATTN_DEF size_t la_model_work_bytes(const la_model *m);
/* work == NULL with bytes == 0: the call allocates (and frees) its own. */
LINATTN_DEF int la_model_loss(const la_model *m, const la_real *theta,
                              const la_batch *b, double *loss, la_real *pred,
                              void *work, size_t bytes);
LINATTN_DEF int la_model_grad(const la_model *m, const la_real *theta,
                              const la_batch *b, double *loss, la_real *grad,
                              void *work, size_t bytes);
/* hv = H(theta) v; loss and grad may be NULL. */
LINATTN_DEF int la_model_hvp(const la_model *m, const la_real *theta,
                             const la_batch *b, const la_real *v, double *loss,
                             la_real *grad, la_real *hv, void *work,
                             size_t bytes);

#elif defined(LA__PART_IMPL)

#endif
