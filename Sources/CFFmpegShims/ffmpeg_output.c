// Output files for remux and transcode: the muxer from the file name, faststart MP4, codec tags
// and the display matrix.
#include "ffmpeg_internal.h"
#include <libavutil/display.h>
#include <string.h>

// The muxer is chosen from the file name (.mp4: MP4, .m4a: the iPod/M4A flavour).
int pm_open_output(const char *path, AVFormatContext **out) {
    AVFormatContext *context = NULL;
    int result = avformat_alloc_output_context2(&context, NULL, NULL, path);
    if (result < 0) return result;
    if (!context) return AVERROR(EINVAL);
    // No library version (the "encoder" tag) or wall-clock time in the file: the same streams
    // give the same bytes whichever build or moment wrote them.
    context->flags |= AVFMT_FLAG_BITEXACT;
    *out = context;
    return 0;
}

void pm_close_output(AVFormatContext **out) {
    if (!out || !*out) return;
    if (!((*out)->oformat->flags & AVFMT_NOFILE) && (*out)->pb) avio_closep(&(*out)->pb);
    avformat_free_context(*out);
    *out = NULL;
}

int pm_write_header(AVFormatContext *out, const char *path) {
    int result = 0;
    if (!(out->oformat->flags & AVFMT_NOFILE)) {
        result = avio_open(&out->pb, path, AVIO_FLAG_WRITE);
        if (result < 0) return result;
    }
    AVDictionary *options = NULL;
    // moov atom first, so a device can start playing before the whole file is there.
    av_dict_set(&options, "movflags", "+faststart", 0);
    result = avformat_write_header(out, &options);
    av_dict_free(&options);
    return result;
}

// HEVC in MP4 must be tagged hvc1 for Apple's players; everything else takes the muxer's default.
void pm_set_codec_tag(AVCodecParameters *parameters) {
    parameters->codec_tag = parameters->codec_id == AV_CODEC_ID_HEVC ? MKTAG('h', 'v', 'c', '1') : 0;
}

int pm_copy_display_matrix(const AVStream *from, AVStream *to) {
    size_t size = 0;
    const uint8_t *matrix = av_stream_get_side_data(from, AV_PKT_DATA_DISPLAYMATRIX, &size);
    if (!matrix || size < 9 * sizeof(int32_t)) return 0;
    uint8_t *copy = av_stream_new_side_data(to, AV_PKT_DATA_DISPLAYMATRIX, size);
    if (!copy) return AVERROR(ENOMEM);
    memcpy(copy, matrix, size);
    return 0;
}
