// When a piece of C work must stop: the one form every C entry point of PushMedia takes a
// deadline in (the item's deadline, Swift's `Deadline`). An absolute time on CLOCK_MONOTONIC,
// so that a deadline handed down through several calls, or stored in a reader, means the same
// instant everywhere, whichever library's clock the work runs under (FFmpeg's
// av_gettime_relative and GLib's g_get_monotonic_time read the same clock in other units).
#ifndef PUSHMEDIA_DEADLINE_H
#define PUSHMEDIA_DEADLINE_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#ifdef __cplusplus
extern "C" {
#endif

/// CLOCK_MONOTONIC in nanoseconds at which the work stops; 0: it never does.
typedef struct {
    int64_t monotonic_ns;
} pm_deadline;

/// CLOCK_MONOTONIC now, in nanoseconds.
static inline int64_t pm_monotonic_now_ns(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (int64_t)now.tv_sec * 1000000000 + now.tv_nsec;
}

/// Whether `deadline` is set and has passed.
static inline bool pm_deadline_passed(pm_deadline deadline) {
    return deadline.monotonic_ns != 0 && pm_monotonic_now_ns() > deadline.monotonic_ns;
}

/// The same clock as pm_deadline_passed reads, for Swift (which cannot call an inline function
/// of a C header on every toolchain).
int64_t pm_monotonic_ns(void);

#ifdef __cplusplus
}
#endif

#endif
