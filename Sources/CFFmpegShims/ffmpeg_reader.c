// Poster frames and cover art: a frame reader that decodes one video stream (non-reference
// frames skipped) and scales frames to grey or RGB, and the bytes of an attached picture.
// One cleanup path (pm_video_reader_close) frees everything the reader holds.
#include "ffmpeg_internal.h"
#include <libswscale/swscale.h>
#include <string.h>

struct pm_video_reader {
    AVFormatContext *format;
    AVCodecContext *decoder;
    AVPacket *packet;
    AVFrame *frame;
    AVFrame *scaled;  // swscale's output, in buffers with the padding and alignment it needs
    struct SwsContext *sws;
    int stream;
    int64_t start;
    pm_deadline deadline;
    int flushing;
    int has_frame;
};

int pm_video_reader_open(const char *path, const char *demuxer, int stream_index, pm_deadline deadline, pm_video_reader **out) {
    pm_video_reader *reader = av_mallocz(sizeof *reader);
    if (!reader) return AVERROR(ENOMEM);
    reader->deadline = deadline;
    int result = pm_av_open(path, demuxer, deadline, &reader->format);
    if (result < 0) goto fail;
    if (stream_index < 0 || stream_index >= (int)reader->format->nb_streams) {
        result = AVERROR_STREAM_NOT_FOUND;
        goto fail;
    }
    reader->stream = stream_index;
    for (unsigned i = 0; i < reader->format->nb_streams; i++) {
        if ((int)i != stream_index) reader->format->streams[i]->discard = AVDISCARD_ALL;
    }
    result = pm_open_decoder(reader->format, stream_index, &reader->decoder);
    if (result < 0) goto fail;
    // Poster candidates need not be B-frames: skipping non-reference frames halves the work.
    reader->decoder->skip_frame = AVDISCARD_NONREF;
    reader->packet = av_packet_alloc();
    reader->frame = av_frame_alloc();
    if (!reader->packet || !reader->frame) {
        result = AVERROR(ENOMEM);
        goto fail;
    }
    AVStream *stream = reader->format->streams[stream_index];
    reader->start = stream->start_time != AV_NOPTS_VALUE ? stream->start_time : 0;
    *out = reader;
    return 0;
fail:
    pm_video_reader_close(&reader);
    return result;
}

void pm_video_reader_close(pm_video_reader **reader) {
    if (!reader || !*reader) return;
    pm_video_reader *r = *reader;
    sws_freeContext(r->sws);
    av_frame_free(&r->frame);
    av_frame_free(&r->scaled);
    av_packet_free(&r->packet);
    avcodec_free_context(&r->decoder);
    pm_av_close(&r->format);
    av_freep(reader);
}

int pm_video_reader_next(pm_video_reader *r, double *time_seconds) {
    r->has_frame = 0;
    for (;;) {
        if (pm_deadline_passed(r->deadline)) return AVERROR_EXIT;
        int result = avcodec_receive_frame(r->decoder, r->frame);
        if (result == 0) {
            AVRational tb = r->format->streams[r->stream]->time_base;
            int64_t pts = r->frame->best_effort_timestamp;
            *time_seconds = pts == AV_NOPTS_VALUE ? 0 : (double)(pts - r->start) * av_q2d(tb);
            if (*time_seconds < 0) *time_seconds = 0;
            r->has_frame = 1;
            return 0;
        }
        if (result == AVERROR_EOF) return AVERROR_EOF;
        if (result != AVERROR(EAGAIN)) return result;
        if (r->flushing) return AVERROR_EOF;
        result = av_read_frame(r->format, r->packet);
        if (result == AVERROR_EOF) {
            r->flushing = 1;
            result = avcodec_send_packet(r->decoder, NULL);
            if (result < 0 && result != AVERROR_EOF) return result;
            continue;
        }
        if (result < 0) return result;
        if (r->packet->stream_index == r->stream) {
            result = avcodec_send_packet(r->decoder, r->packet);
            av_packet_unref(r->packet);
            // A damaged packet is skipped, as players do; the next ones may decode.
            if (result < 0 && result != AVERROR(EAGAIN) && result != AVERROR_INVALIDDATA) return result;
        } else {
            av_packet_unref(r->packet);
        }
    }
}

void pm_video_reader_frame_size(const pm_video_reader *r, int *width, int *height, int *sar_num, int *sar_den) {
    const AVFrame *f = r->frame;
    *width = r->has_frame ? f->width : r->decoder->width;
    *height = r->has_frame ? f->height : r->decoder->height;
    // The container's ratio wins over the codec's (Matroska's display size), as players show it.
    AVRational sar = av_guess_sample_aspect_ratio(r->format, r->format->streams[r->stream], r->has_frame ? f : NULL);
    if (sar.num <= 0 || sar.den <= 0) sar = r->decoder->sample_aspect_ratio;
    *sar_num = sar.num > 0 && sar.den > 0 ? sar.num : 1;
    *sar_den = sar.num > 0 && sar.den > 0 ? sar.den : 1;
}

// Scales the current frame into `out` (tightly packed rows) as GRAY8 or RGB24. swscale writes
// whole vectors and may write past the end of a short row, so it scales into a frame of its
// own whose buffers av_frame_get_buffer pads and aligns (64 bytes), and the rows are copied out.
static int pm_video_reader_scale(pm_video_reader *r, int width, int height, enum AVPixelFormat format, uint8_t *out) {
    if (!r->has_frame || width <= 0 || height <= 0) return AVERROR(EINVAL);
    const AVFrame *f = r->frame;
    r->sws = sws_getCachedContext(r->sws, f->width, f->height, f->format, width, height, format, SWS_BICUBIC, NULL, NULL, NULL);
    if (!r->sws) return AVERROR(EINVAL);
    if (!r->scaled) r->scaled = av_frame_alloc();
    if (!r->scaled) return AVERROR(ENOMEM);
    AVFrame *s = r->scaled;
    if (s->width != width || s->height != height || s->format != format || !s->data[0]) {
        av_frame_unref(s);
        s->width = width;
        s->height = height;
        s->format = format;
        int result = av_frame_get_buffer(s, 64);
        if (result < 0) return result;
    }
    int rows = sws_scale(r->sws, (const uint8_t *const *)f->data, f->linesize, 0, f->height, s->data, s->linesize);
    if (rows <= 0) return AVERROR(EINVAL);
    size_t row_bytes = (size_t)width * (format == AV_PIX_FMT_RGB24 ? 3 : 1);
    for (int y = 0; y < height; y++) memcpy(out + (size_t)y * row_bytes, s->data[0] + (size_t)y * s->linesize[0], row_bytes);
    return 0;
}

int pm_video_reader_luma(pm_video_reader *r, int width, int height, uint8_t *out) {
    return pm_video_reader_scale(r, width, height, AV_PIX_FMT_GRAY8, out);
}

int pm_video_reader_rgb(pm_video_reader *r, int width, int height, uint8_t *out) {
    return pm_video_reader_scale(r, width, height, AV_PIX_FMT_RGB24, out);
}

// ---- Cover art -----------------------------------------------------------------------------------

int pm_av_cover_art(const AVFormatContext *format, const uint8_t **data, int *size) {
    for (unsigned i = 0; i < format->nb_streams; i++) {
        const AVStream *stream = format->streams[i];
        if ((stream->disposition & AV_DISPOSITION_ATTACHED_PIC) && stream->attached_pic.size > 0) {
            *data = stream->attached_pic.data;
            *size = stream->attached_pic.size;
            return (int)i;
        }
    }
    return -1;
}
