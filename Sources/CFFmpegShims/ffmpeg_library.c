// FFmpeg's libraries opened on first use instead of at start. PushMedia is not linked against
// them: each FFmpeg function the shims and Swift call is defined here, with FFmpeg's own
// prototype (the compiler checks each against the installed headers), and calls through a
// pointer that pm_ffmpeg_load fills from dlopen/dlsym once per process. Loading libavformat
// and libavcodec maps ~65 libraries that libvips does not need (codecs, network protocols): ~20 ms
// of CPU in every process start, paid now only by a process that meets a movie or audio file
// (docs/benchmarks/start-up.md, "FFmpeg opened on first use").
//
// The definitions are hidden (declared so under the pragma, and by attribute on each definition,
// in case a header is missing below): the executable exports its symbols (for backtraces), and
// an exported av_malloc would be what libavformat's own calls bind to, through this table.
// `scripts/check-container libs` fails if the release binary exports any FFmpeg name.
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#pragma GCC visibility push(hidden)
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/audio_fifo.h>
#include <libavutil/avstring.h>
#include <libavutil/avutil.h>
#include <libavutil/channel_layout.h>
#include <libavutil/display.h>
#include <libavutil/opt.h>
#include <libavutil/pixdesc.h>
#include <libavutil/time.h>
#include <libswresample/swresample.h>
#include <libswscale/swscale.h>
#pragma GCC visibility pop

#include "CFFmpegShims.h"

// The libraries, in the order they are opened (each after those it needs), by the sonames of
// the headers PushMedia was compiled against.
enum { PM_AVUTIL, PM_SWRESAMPLE, PM_SWSCALE, PM_AVCODEC, PM_AVFORMAT, PM_FFMPEG_LIBRARIES };

static const char *const pm_ffmpeg_sonames[PM_FFMPEG_LIBRARIES] = {
    [PM_AVUTIL] = "libavutil.so." AV_STRINGIFY(LIBAVUTIL_VERSION_MAJOR),
    [PM_SWRESAMPLE] = "libswresample.so." AV_STRINGIFY(LIBSWRESAMPLE_VERSION_MAJOR),
    [PM_SWSCALE] = "libswscale.so." AV_STRINGIFY(LIBSWSCALE_VERSION_MAJOR),
    [PM_AVCODEC] = "libavcodec.so." AV_STRINGIFY(LIBAVCODEC_VERSION_MAJOR),
    [PM_AVFORMAT] = "libavformat.so." AV_STRINGIFY(LIBAVFORMAT_VERSION_MAJOR),
};

// Every FFmpeg function PushMedia calls: F(library, return type, name, parameters, arguments),
// V(library, name, parameters, arguments) for those returning void. A function missing here is
// an undefined symbol when the binary links.
#define PM_FFMPEG_FUNCTIONS(F, V) \
    F(PM_AVUTIL, AVAudioFifo *, av_audio_fifo_alloc, (enum AVSampleFormat sample_fmt, int channels, int nb_samples), (sample_fmt, channels, nb_samples)) \
    V(PM_AVUTIL, av_audio_fifo_free, (AVAudioFifo *af), (af)) \
    F(PM_AVUTIL, int, av_audio_fifo_read, (AVAudioFifo *af, void **data, int nb_samples), (af, data, nb_samples)) \
    F(PM_AVUTIL, int, av_audio_fifo_size, (AVAudioFifo *af), (af)) \
    F(PM_AVUTIL, int, av_audio_fifo_write, (AVAudioFifo *af, void **data, int nb_samples), (af, data, nb_samples)) \
    F(PM_AVUTIL, int, av_channel_layout_copy, (AVChannelLayout *dst, const AVChannelLayout *src), (dst, src)) \
    V(PM_AVUTIL, av_channel_layout_default, (AVChannelLayout *ch_layout, int nb_channels), (ch_layout, nb_channels)) \
    V(PM_AVUTIL, av_channel_layout_uninit, (AVChannelLayout *channel_layout), (channel_layout)) \
    F(PM_AVUTIL, AVRational, av_d2q, (double d, int max), (d, max)) \
    V(PM_AVUTIL, av_dict_free, (AVDictionary **m), (m)) \
    F(PM_AVUTIL, int, av_dict_set, (AVDictionary **pm, const char *key, const char *value, int flags), (pm, key, value, flags)) \
    F(PM_AVUTIL, double, av_display_rotation_get, (const int32_t matrix[9]), (matrix)) \
    F(PM_AVUTIL, AVFrame *, av_frame_alloc, (void), ()) \
    V(PM_AVUTIL, av_frame_free, (AVFrame **frame), (frame)) \
    F(PM_AVUTIL, int, av_frame_get_buffer, (AVFrame *frame, int align), (frame, align)) \
    F(PM_AVUTIL, int, av_frame_make_writable, (AVFrame *frame), (frame)) \
    V(PM_AVUTIL, av_frame_unref, (AVFrame *frame), (frame)) \
    V(PM_AVUTIL, av_free, (void *ptr), (ptr)) \
    V(PM_AVUTIL, av_freep, (void *ptr), (ptr)) \
    F(PM_AVUTIL, const char *, av_get_pix_fmt_name, (enum AVPixelFormat pix_fmt), (pix_fmt)) \
    F(PM_AVUTIL, int64_t, av_gettime_relative, (void), ()) \
    V(PM_AVUTIL, av_log_set_level, (int level), (level)) \
    F(PM_AVUTIL, void *, av_malloc, (size_t size), (size)) \
    F(PM_AVUTIL, void *, av_mallocz, (size_t size), (size)) \
    F(PM_AVUTIL, int, av_match_list, (const char *name, const char *list, char separator), (name, list, separator)) \
    F(PM_AVUTIL, int, av_opt_set, (void *obj, const char *name, const char *val, int search_flags), (obj, name, val, search_flags)) \
    F(PM_AVUTIL, int, av_samples_alloc_array_and_samples, (uint8_t ***audio_data, int *linesize, int nb_channels, int nb_samples, enum AVSampleFormat sample_fmt, int align), (audio_data, linesize, nb_channels, nb_samples, sample_fmt, align)) \
    F(PM_AVUTIL, int, av_strerror, (int errnum, char *errbuf, size_t errbuf_size), (errnum, errbuf, errbuf_size)) \
    F(PM_AVUTIL, unsigned, avutil_version, (void), ()) \
    F(PM_SWRESAMPLE, int, swr_alloc_set_opts2, (struct SwrContext **ps, AVChannelLayout *out_ch_layout, enum AVSampleFormat out_sample_fmt, int out_sample_rate, AVChannelLayout *in_ch_layout, enum AVSampleFormat in_sample_fmt, int in_sample_rate, int log_offset, void *log_ctx), (ps, out_ch_layout, out_sample_fmt, out_sample_rate, in_ch_layout, in_sample_fmt, in_sample_rate, log_offset, log_ctx)) \
    F(PM_SWRESAMPLE, int, swr_convert, (struct SwrContext *s, uint8_t **out, int out_count, const uint8_t **in , int in_count), (s, out, out_count, in, in_count)) \
    V(PM_SWRESAMPLE, swr_free, (struct SwrContext **s), (s)) \
    F(PM_SWRESAMPLE, int, swr_get_out_samples, (struct SwrContext *s, int in_samples), (s, in_samples)) \
    F(PM_SWRESAMPLE, int, swr_init, (struct SwrContext *s), (s)) \
    F(PM_SWRESAMPLE, unsigned, swresample_version, (void), ()) \
    V(PM_SWSCALE, sws_freeContext, (struct SwsContext *swsContext), (swsContext)) \
    F(PM_SWSCALE, struct SwsContext *, sws_getCachedContext, (struct SwsContext *context, int srcW, int srcH, enum AVPixelFormat srcFormat, int dstW, int dstH, enum AVPixelFormat dstFormat, int flags, SwsFilter *srcFilter, SwsFilter *dstFilter, const double *param), (context, srcW, srcH, srcFormat, dstW, dstH, dstFormat, flags, srcFilter, dstFilter, param)) \
    F(PM_SWSCALE, int, sws_scale, (struct SwsContext *c, const uint8_t *const srcSlice[], const int srcStride[], int srcSliceY, int srcSliceH, uint8_t *const dst[], const int dstStride[]), (c, srcSlice, srcStride, srcSliceY, srcSliceH, dst, dstStride)) \
    F(PM_SWSCALE, unsigned, swscale_version, (void), ()) \
    F(PM_AVCODEC, AVPacket *, av_packet_alloc, (void), ()) \
    V(PM_AVCODEC, av_packet_free, (AVPacket **pkt), (pkt)) \
    V(PM_AVCODEC, av_packet_rescale_ts, (AVPacket *pkt, AVRational tb_src, AVRational tb_dst), (pkt, tb_src, tb_dst)) \
    V(PM_AVCODEC, av_packet_unref, (AVPacket *pkt), (pkt)) \
    F(PM_AVCODEC, AVCodecContext *, avcodec_alloc_context3, (const AVCodec *codec), (codec)) \
    F(PM_AVCODEC, const AVCodec *, avcodec_find_decoder, (enum AVCodecID id), (id)) \
    F(PM_AVCODEC, const AVCodec *, avcodec_find_encoder, (enum AVCodecID id), (id)) \
    F(PM_AVCODEC, const AVCodec *, avcodec_find_encoder_by_name, (const char *name), (name)) \
    V(PM_AVCODEC, avcodec_free_context, (AVCodecContext **avctx), (avctx)) \
    F(PM_AVCODEC, const char *, avcodec_get_name, (enum AVCodecID id), (id)) \
    F(PM_AVCODEC, int, avcodec_open2, (AVCodecContext *avctx, const AVCodec *codec, AVDictionary **options), (avctx, codec, options)) \
    F(PM_AVCODEC, int, avcodec_parameters_copy, (AVCodecParameters *dst, const AVCodecParameters *src), (dst, src)) \
    F(PM_AVCODEC, int, avcodec_parameters_from_context, (AVCodecParameters *par, const AVCodecContext *codec), (par, codec)) \
    F(PM_AVCODEC, int, avcodec_parameters_to_context, (AVCodecContext *codec, const AVCodecParameters *par), (codec, par)) \
    F(PM_AVCODEC, int, avcodec_receive_frame, (AVCodecContext *avctx, AVFrame *frame), (avctx, frame)) \
    F(PM_AVCODEC, int, avcodec_receive_packet, (AVCodecContext *avctx, AVPacket *avpkt), (avctx, avpkt)) \
    F(PM_AVCODEC, int, avcodec_send_frame, (AVCodecContext *avctx, const AVFrame *frame), (avctx, frame)) \
    F(PM_AVCODEC, int, avcodec_send_packet, (AVCodecContext *avctx, const AVPacket *avpkt), (avctx, avpkt)) \
    F(PM_AVCODEC, unsigned, avcodec_version, (void), ()) \
    F(PM_AVFORMAT, const AVInputFormat *, av_find_input_format, (const char *short_name), (short_name)) \
    F(PM_AVFORMAT, AVRational, av_guess_frame_rate, (AVFormatContext *ctx, AVStream *stream, AVFrame *frame), (ctx, stream, frame)) \
    F(PM_AVFORMAT, AVRational, av_guess_sample_aspect_ratio, (AVFormatContext *format, AVStream *stream, AVFrame *frame), (format, stream, frame)) \
    F(PM_AVFORMAT, int, av_interleaved_write_frame, (AVFormatContext *s, AVPacket *pkt), (s, pkt)) \
    F(PM_AVFORMAT, const AVInputFormat *, av_probe_input_format2, (const AVProbeData *pd, int is_opened, int *score_max), (pd, is_opened, score_max)) \
    F(PM_AVFORMAT, int, av_read_frame, (AVFormatContext *s, AVPacket *pkt), (s, pkt)) \
    F(PM_AVFORMAT, uint8_t *, av_stream_get_side_data, (const AVStream *stream, enum AVPacketSideDataType type, size_t *size), (stream, type, size)) \
    F(PM_AVFORMAT, uint8_t *, av_stream_new_side_data, (AVStream *stream, enum AVPacketSideDataType type, size_t size), (stream, type, size)) \
    F(PM_AVFORMAT, int, av_write_trailer, (AVFormatContext *s), (s)) \
    F(PM_AVFORMAT, AVFormatContext *, avformat_alloc_context, (void), ()) \
    F(PM_AVFORMAT, int, avformat_alloc_output_context2, (AVFormatContext **ctx, const AVOutputFormat *oformat, const char *format_name, const char *filename), (ctx, oformat, format_name, filename)) \
    V(PM_AVFORMAT, avformat_close_input, (AVFormatContext **s), (s)) \
    F(PM_AVFORMAT, int, avformat_find_stream_info, (AVFormatContext *ic, AVDictionary **options), (ic, options)) \
    V(PM_AVFORMAT, avformat_free_context, (AVFormatContext *s), (s)) \
    F(PM_AVFORMAT, AVStream *, avformat_new_stream, (AVFormatContext *s, const AVCodec *c), (s, c)) \
    F(PM_AVFORMAT, int, avformat_open_input, (AVFormatContext **ps, const char *url, const AVInputFormat *fmt, AVDictionary **options), (ps, url, fmt, options)) \
    F(PM_AVFORMAT, unsigned, avformat_version, (void), ()) \
    F(PM_AVFORMAT, int, avformat_write_header, (AVFormatContext *s, AVDictionary **options), (s, options)) \
    F(PM_AVFORMAT, int, avio_closep, (AVIOContext **s), (s)) \
    F(PM_AVFORMAT, int, avio_open, (AVIOContext **s, const char *url, int flags), (s, url, flags))

static struct {
#define PM_POINTER(library, type, name, parameters, arguments) type(*name) parameters;
#define PM_VOID_POINTER(library, name, parameters, arguments) void(*name) parameters;
    PM_FFMPEG_FUNCTIONS(PM_POINTER, PM_VOID_POINTER)
#undef PM_POINTER
#undef PM_VOID_POINTER
} pm_ffmpeg;

static pthread_once_t pm_ffmpeg_once = PTHREAD_ONCE_INIT;
static int pm_ffmpeg_loaded;
static char pm_ffmpeg_failure[512];

static void pm_ffmpeg_open(void) {
    void *handles[PM_FFMPEG_LIBRARIES];
    for (int i = 0; i < PM_FFMPEG_LIBRARIES; i++) {
        handles[i] = dlopen(pm_ffmpeg_sonames[i], RTLD_NOW | RTLD_LOCAL);
        if (!handles[i]) {
            const char *why = dlerror();
            snprintf(pm_ffmpeg_failure, sizeof pm_ffmpeg_failure, "%s", why ? why : pm_ffmpeg_sonames[i]);
            return;
        }
    }
#define PM_RESOLVE(library, name)                                                                    \
    *(void **)&pm_ffmpeg.name = dlsym(handles[library], #name);                                     \
    if (!pm_ffmpeg.name) {                                                                           \
        snprintf(pm_ffmpeg_failure, sizeof pm_ffmpeg_failure, "%s has no %s", pm_ffmpeg_sonames[library], #name); \
        return;                                                                                      \
    }
#define PM_RESOLVE_FUNCTION(library, type, name, parameters, arguments) PM_RESOLVE(library, name)
#define PM_RESOLVE_VOID(library, name, parameters, arguments) PM_RESOLVE(library, name)
    PM_FFMPEG_FUNCTIONS(PM_RESOLVE_FUNCTION, PM_RESOLVE_VOID)
#undef PM_RESOLVE_FUNCTION
#undef PM_RESOLVE_VOID
#undef PM_RESOLVE
    pm_ffmpeg_loaded = 1;
}

int pm_ffmpeg_load(char *message, size_t size) {
    pthread_once(&pm_ffmpeg_once, pm_ffmpeg_open);
    if (pm_ffmpeg_loaded) return 0;
    if (message && size > 0) snprintf(message, size, "%s", pm_ffmpeg_failure);
    return -1;
}

// Swift opens the libraries (FFmpeg.start) before anything reaches FFmpeg and turns a failure
// into the item's error; a call that gets here without them is a bug, and stops the process.
static void pm_ffmpeg_require(const char *function) {
    if (pm_ffmpeg_load(NULL, 0) == 0) return;
    fprintf(stderr, "pushmedia: %s called, but FFmpeg's libraries could not be loaded: %s\n", function,
            pm_ffmpeg_failure);
    abort();
}

#define PM_DEFINE(library, type, name, parameters, arguments) \
    __attribute__((visibility("hidden"))) type name parameters { \
        pm_ffmpeg_require(#name);                             \
        return pm_ffmpeg.name arguments;                      \
    }
#define PM_DEFINE_VOID(library, name, parameters, arguments) \
    __attribute__((visibility("hidden"))) void name parameters { \
        pm_ffmpeg_require(#name);                            \
        pm_ffmpeg.name arguments;                            \
    }
PM_FFMPEG_FUNCTIONS(PM_DEFINE, PM_DEFINE_VOID)
#undef PM_DEFINE
#undef PM_DEFINE_VOID
