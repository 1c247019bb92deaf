// The process plumbing of PushMediaWorker: crash containment's fork server (fork_server.c) and
// process-wide settings (process_shims.c), what Swift cannot call itself (prctl, SCM_RIGHTS
// messages, fork before any thread, mallopt). Nothing here reads bytes from outside PushMedia.
#ifndef PUSHMEDIA_PROCESS_CONTROL_H
#define PUSHMEDIA_PROCESS_CONTROL_H

/// mallopt(M_ARENA_MAX, count): caps glibc's malloc arenas (1 on success).
int pm_limit_malloc_arenas(int count);

/// 1 when PushMedia's C was built with AddressSanitizer (`PUSHMEDIA_SANITIZE_C=1`, Package.swift,
/// which builds every C target so).
int pm_address_sanitized(void);

/// prctl(PR_SET_CHILD_SUBREAPER, 1): orphaned descendants are adopted by this process (0 on success).
int pm_set_child_subreaper(void);

/// Sends descriptors `a` and `b` over the unix socket `socket` (SCM_RIGHTS) with one byte: 0 on
/// success, -1 with errno.
int pm_send_fds(int socket, int a, int b);

/// The fork server's loop (`pushmedia item-fork-server`, single-threaded). For each pair of
/// descriptors received on `control` (pm_send_fds), forks an item process whose standard input
/// and output they become, through a middle process that exits at once, so the item process is
/// adopted by the supervisor (which must be a child subreaper and this process's parent) and
/// waited for as its own child; the item process's pid (or -errno) is written back on
/// `control` as an int32. Returns 0 in a new item process, once adopted; 1 in the server when
/// `control` ends; -1 on an error of `control`.
int pm_fork_server_loop(int control);

#endif
