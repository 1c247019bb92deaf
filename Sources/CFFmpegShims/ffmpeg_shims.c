// FFmpeg's macros for Swift, process-wide settings, and the one way PushMedia opens a media file:
// with the demuxer PushMedia chose from the file's first bytes, the demuxers it accepts as the
// format whitelist and `file` as the only protocol, so no playlist, concat list, image sequence
// or network protocol can be reached from a crafted file.
#include "ffmpeg_internal.h"
#include <libavutil/avstring.h>
#include <libavutil/display.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int pm_averror(int posix_errno) { return AVERROR(posix_errno); }

int pm_averror_eof(void) { return AVERROR_EOF; }

int pm_averror_exit(void) { return AVERROR_EXIT; }

int pm_averror_format_mismatch(void) { return PM_AVERROR_FORMAT_MISMATCH; }

int pm_averror_invalid_data(void) { return AVERROR_INVALIDDATA; }

int pm_averror_decoder_not_found(void) { return AVERROR_DECODER_NOT_FOUND; }

int pm_averror_patch_welcome(void) { return AVERROR_PATCHWELCOME; }

void pm_av_strerror(int errnum, char *buf, size_t size) {
    if (errnum == PM_AVERROR_FORMAT_MISMATCH) {
        snprintf(buf, size, "the content is not the format its first bytes name");
    } else if (av_strerror(errnum, buf, size) < 0) {
        snprintf(buf, size, "unknown FFmpeg error %d", errnum);
    }
}

void pm_set_error(char *buf, size_t size, const char *stage, int code) {
    if (!buf || size == 0) return;
    char text[160];
    pm_av_strerror(code, text, sizeof text);
    snprintf(buf, size, "%s: %s", stage, text);
}

// The demuxers PushMedia accepts, comma-separated; set once by pm_av_startup.
static char pm_format_whitelist[256];

void pm_av_startup(const char *format_whitelist) {
    if (getenv("PUSHMEDIA_FFMPEG_LOG") == NULL) av_log_set_level(AV_LOG_QUIET);
    if (format_whitelist && !pm_format_whitelist[0]) {
        snprintf(pm_format_whitelist, sizeof pm_format_whitelist, "%s", format_whitelist);
    }
}

static int pm_interrupt(void *opaque) { return pm_deadline_passed(*(const pm_deadline *)opaque); }

// How much of the file FFmpeg's own probes look at to check they agree with the sniffed format.
enum { PM_PROBE_BYTES = 64 * 1024 };

int pm_av_guess_demuxer(const char *path, char *name, size_t name_size) {
    if (name && name_size > 0) name[0] = 0;
    FILE *file = fopen(path, "rb");
    if (!file) return AVERROR(errno);
    uint8_t *buffer = av_mallocz(PM_PROBE_BYTES + AVPROBE_PADDING_SIZE);
    if (!buffer) {
        fclose(file);
        return AVERROR(ENOMEM);
    }
    size_t length = fread(buffer, 1, PM_PROBE_BYTES, file);
    fclose(file);
    // No file name or MIME type: the guess comes from the bytes alone, as PushMedia's does.
    AVProbeData probe = {.filename = "", .buf = buffer, .buf_size = (int)length, .mime_type = NULL};
    int score = 0;
    const AVInputFormat *guess = av_probe_input_format2(&probe, 1, &score);
    av_free(buffer);
    if (!guess || score <= AVPROBE_SCORE_EXTENSION) return 0;
    if (name && name_size > 0) snprintf(name, name_size, "%s", guess->name);
    return score;
}

int pm_av_open(const char *path, const char *demuxer, pm_deadline deadline, AVFormatContext **out) {
    const AVInputFormat *format = demuxer ? av_find_input_format(demuxer) : NULL;
    if (!format || !pm_format_whitelist[0] || av_match_list(format->name, pm_format_whitelist, ',') <= 0) {
        return AVERROR_DEMUXER_NOT_FOUND;
    }
    // When FFmpeg's own probes are sure the bytes are a format PushMedia does not accept (a
    // playlist, a concat list, an image sequence behind an ID3 tag, ...), refuse the file.
    char guessed[128];
    int score = pm_av_guess_demuxer(path, guessed, sizeof guessed);
    if (score < 0) return score;
    if (score > 0 && av_match_list(guessed, pm_format_whitelist, ',') <= 0) return PM_AVERROR_FORMAT_MISMATCH;

    char url[4096];
    // "file:" first, so a name like "http:x.mp4" is a file name, never a protocol.
    if (snprintf(url, sizeof url, "file:%s", path) >= (int)sizeof url) return AVERROR(ENAMETOOLONG);
    AVFormatContext *context = avformat_alloc_context();
    if (!context) return AVERROR(ENOMEM);
    pm_deadline *kept = av_malloc(sizeof *kept);
    if (!kept) {
        avformat_free_context(context);
        return AVERROR(ENOMEM);
    }
    *kept = deadline;
    context->interrupt_callback.callback = pm_interrupt;
    context->interrupt_callback.opaque = kept;
    AVDictionary *options = NULL;
    // Also inherited by any nested open a demuxer makes.
    av_dict_set(&options, "format_whitelist", pm_format_whitelist, 0);
    av_dict_set(&options, "protocol_whitelist", "file", 0);
    // avformat_open_input frees the context on failure; the deadline's copy is ours to free.
    int result = avformat_open_input(&context, url, format, &options);
    av_dict_free(&options);
    if (result < 0) {
        av_free(kept);
        return result;
    }
    result = avformat_find_stream_info(context, NULL);
    if (result < 0) {
        avformat_close_input(&context);
        av_free(kept);
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

int pm_open_decoder(AVFormatContext *in, int index, AVCodecContext **out) {
    AVStream *stream = in->streams[index];
    const AVCodec *codec = avcodec_find_decoder(stream->codecpar->codec_id);
    if (!codec) return AVERROR_DECODER_NOT_FOUND;
    AVCodecContext *context = avcodec_alloc_context3(codec);
    if (!context) return AVERROR(ENOMEM);
    int result = avcodec_parameters_to_context(context, stream->codecpar);
    if (result < 0) {
        avcodec_free_context(&context);
        return result;
    }
    context->pkt_timebase = stream->time_base;
    context->thread_count = 0;
    result = avcodec_open2(context, codec, NULL);
    if (result < 0) {
        avcodec_free_context(&context);
        return result;
    }
    *out = context;
    return 0;
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
