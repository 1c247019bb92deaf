#include "PushMediaShims.h"
#include <malloc.h>

int pm_limit_malloc_arenas(int count) { return mallopt(M_ARENA_MAX, count); }
