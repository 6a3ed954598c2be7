/* The one ordinary implementation, included twice to prove the guards. */
#define LINATTN_IMPLEMENTATION
#include "linattn.h"
#include "linattn.h"
