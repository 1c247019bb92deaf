#include "PushMediaShims.h"
#include <libavformat/avformat.h>
#include <libavutil/display.h>
#include <libavutil/time.h>
#include <math.h>
#include <stdlib.h>

int pm_averror(int posix_errno) { return AVERROR(posix_errno); }

int pm_averror_eof(void) { return AVERROR_EOF; }

int pm_averror_exit(void) { return AVERROR_EXIT; }

void pm_av_strerror(int errnum, char *buf, size_t size) {
    if (av_strerror(errnum, buf, size) < 0) {
        snprintf(buf, size, "unknown FFmpeg error %d", errnum);
    }
}

void pm_av_startup(void) {
    if (getenv("PUSHMEDIA_FFMPEG_LOG") == NULL) av_log_set_level(AV_LOG_QUIET);
}

static int pm_interrupt(void *opaque) {
    const int64_t *deadline = (const int64_t *)opaque;
    return av_gettime_relative() > *deadline;
}

int pm_av_open(const char *path, int64_t deadline_us, AVFormatContext **out) {
    AVFormatContext *context = avformat_alloc_context();
    if (!context) return AVERROR(ENOMEM);
    int64_t *deadline = av_malloc(sizeof(int64_t));
    if (!deadline) {
        avformat_free_context(context);
        return AVERROR(ENOMEM);
    }
    *deadline = deadline_us;
    context->interrupt_callback.callback = pm_interrupt;
    context->interrupt_callback.opaque = deadline;
    // avformat_open_input frees the context on failure; the deadline is ours to free.
    int result = avformat_open_input(&context, path, NULL, NULL);
    if (result < 0) {
        av_free(deadline);
        return result;
    }
    result = avformat_find_stream_info(context, NULL);
    if (result < 0) {
        avformat_close_input(&context);
        av_free(deadline);
        return result;
    }
    *out = context;
    return 0;
}

void pm_av_close(AVFormatContext **context) {
    if (!context || !*context) return;
    void *deadline = (*context)->interrupt_callback.opaque;
    avformat_close_input(context);
    av_free(deadline);
}

int pm_av_stream_rotation(const AVStream *stream) {
    size_t size = 0;
    const uint8_t *matrix = av_stream_get_side_data(stream, AV_PKT_DATA_DISPLAYMATRIX, &size);
    if (!matrix || size < 9 * sizeof(int32_t)) return 0;
    double counterclockwise = av_display_rotation_get((const int32_t *)matrix);
    if (isnan(counterclockwise)) return 0;
    int clockwise = (int)lround(-counterclockwise) % 360;
    return clockwise < 0 ? clockwise + 360 : clockwise;
}

int pm_av_stream_is_cover_art(const AVStream *stream) {
    return (stream->disposition & AV_DISPOSITION_ATTACHED_PIC) != 0;
}
