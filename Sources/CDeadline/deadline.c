#include "CDeadline.h"

int64_t pm_monotonic_ns(void) { return pm_monotonic_now_ns(); }
