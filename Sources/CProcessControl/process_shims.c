// Process-wide settings and facts of the build: what Swift cannot reach (mallopt, the
// compiler's sanitizer switch).
#include "CProcessControl.h"

#include <malloc.h>

int pm_limit_malloc_arenas(int count) { return mallopt(M_ARENA_MAX, count); }

int pm_address_sanitized(void) {
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
    return 1;
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
    return 1;
#endif
    return 0;
}
