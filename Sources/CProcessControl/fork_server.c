// The item processes' fork server (crash containment, docs/security.md): the supervisor makes
// itself a child subreaper and hands the server, over a unix socket, the two pipe ends of each
// new item process; the server forks it through a middle process that exits at once, so the
// supervisor adopts it. Only the supervisor writes to the socket: nothing here reads bytes
// from outside PushMedia.
#include "CProcessControl.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

int pm_set_child_subreaper(void) { return prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); }

int pm_send_fds(int socket, int a, int b) {
    char byte = 'f';
    struct iovec data = {.iov_base = &byte, .iov_len = 1};
    union {
        char buffer[CMSG_SPACE(2 * sizeof(int))];
        struct cmsghdr align;
    } control;
    memset(&control, 0, sizeof control);
    struct msghdr message = {.msg_iov = &data, .msg_iovlen = 1, .msg_control = control.buffer, .msg_controllen = sizeof control.buffer};
    struct cmsghdr *header = CMSG_FIRSTHDR(&message);
    header->cmsg_level = SOL_SOCKET;
    header->cmsg_type = SCM_RIGHTS;
    header->cmsg_len = CMSG_LEN(2 * sizeof(int));
    int fds[2] = {a, b};
    memcpy(CMSG_DATA(header), fds, sizeof fds);
    ssize_t sent;
    do sent = sendmsg(socket, &message, MSG_NOSIGNAL);
    while (sent < 0 && errno == EINTR);
    return sent == 1 ? 0 : -1;
}

/// Receives what pm_send_fds sent: 1 with both descriptors, 0 at the end of the stream, -1 on an
/// error (a message without exactly two descriptors included; any received are closed).
static int receive_fds(int socket, int *a, int *b) {
    char byte;
    struct iovec data = {.iov_base = &byte, .iov_len = 1};
    union {
        char buffer[CMSG_SPACE(2 * sizeof(int))];
        struct cmsghdr align;
    } control;
    memset(&control, 0, sizeof control);
    struct msghdr message = {.msg_iov = &data, .msg_iovlen = 1, .msg_control = control.buffer, .msg_controllen = sizeof control.buffer};
    ssize_t got;
    do got = recvmsg(socket, &message, MSG_CMSG_CLOEXEC);
    while (got < 0 && errno == EINTR);
    if (got == 0) return 0;
    if (got < 0) return -1;
    struct cmsghdr *header = CMSG_FIRSTHDR(&message);
    if (!header || header->cmsg_level != SOL_SOCKET || header->cmsg_type != SCM_RIGHTS) return -1;
    size_t count = (header->cmsg_len - CMSG_LEN(0)) / sizeof(int);
    int fds[2] = {-1, -1};
    memcpy(fds, CMSG_DATA(header), (count < 2 ? count : 2) * sizeof(int));
    if (count != 2 || (message.msg_flags & MSG_CTRUNC)) {
        if (fds[0] >= 0) close(fds[0]);
        if (fds[1] >= 0) close(fds[1]);
        return -1;
    }
    *a = fds[0], *b = fds[1];
    return 1;
}

int pm_fork_server_loop(int control) {
    pid_t supervisor = getppid();
    for (;;) {
        int in = -1, out = -1;
        int got = receive_fds(control, &in, &out);
        if (got == 0) return 1;
        if (got < 0) return -1;
        pid_t middle = fork();
        if (middle == 0) {
            pid_t self = getpid();
            pid_t item = fork();
            if (item == 0) {
                // The item process: the two pipes become its standard input and output.
                if (dup2(in, STDIN_FILENO) < 0 || dup2(out, STDOUT_FILENO) < 0) _exit(127);
                close(in), close(out);
                if (control != STDIN_FILENO && control != STDOUT_FILENO) close(control);
                // Adopted by the supervisor (a child subreaper) once the middle process exits,
                // so the supervisor waits for it and learns how it ended, as for any child.
                // (Compared with the middle process's pid: it may have exited already.)
                while (getppid() == self) usleep(200);
                if (getppid() != supervisor) _exit(126);
                return 0;
            }
            int32_t reply = item > 0 ? (int32_t)item : -(int32_t)errno;
            ssize_t written;
            do written = write(control, &reply, sizeof reply);
            while (written < 0 && errno == EINTR);
            _exit(0);
        }
        close(in), close(out);
        if (middle < 0) {
            int32_t reply = -(int32_t)errno;
            if (write(control, &reply, sizeof reply) != sizeof reply) return -1;
            continue;
        }
        int status;
        while (waitpid(middle, &status, 0) < 0 && errno == EINTR) {
        }
    }
}
