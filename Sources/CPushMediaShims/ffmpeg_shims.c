#include "PushMediaShims.h"

int pm_averror(int posix_errno) { return AVERROR(posix_errno); }

int pm_averror_eof(void) { return AVERROR_EOF; }

void pm_av_strerror(int errnum, char *buf, size_t size) {
    if (av_strerror(errnum, buf, size) < 0) {
        snprintf(buf, size, "unknown FFmpeg error %d", errnum);
    }
}
