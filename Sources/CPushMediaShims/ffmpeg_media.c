// Movies and audio through FFmpeg's libraries: a frame reader for poster frames, cover art,
// stream-copy remuxing and transcoding to H.264 + AAC. Every function frees what it allocated on
// every path (one cleanup label each) and stops with AVERROR_EXIT once the deadline passes.
#include "PushMediaShims.h"
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/audio_fifo.h>
#include <libavutil/channel_layout.h>
#include <libavutil/display.h>
#include <libavutil/imgutils.h>
#include <libavutil/opt.h>
#include <libavutil/time.h>
#include <libswresample/swresample.h>
#include <libswscale/swscale.h>
#include <stdio.h>
#include <string.h>

static void pm_set_error(char *buf, size_t size, const char *stage, int code) {
    if (!buf || size == 0) return;
    char text[160];
    pm_av_strerror(code, text, sizeof text);
    snprintf(buf, size, "%s: %s", stage, text);
}

static int pm_past(int64_t deadline_us) { return deadline_us > 0 && av_gettime_relative() > deadline_us; }

// Opens a decoder for one stream of an open input.
static int pm_open_decoder(AVFormatContext *in, int index, AVCodecContext **out) {
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

// ---- Frame reader (poster frames) --------------------------------------------------------------

struct pm_video_reader {
    AVFormatContext *format;
    AVCodecContext *decoder;
    AVPacket *packet;
    AVFrame *frame;
    struct SwsContext *sws;
    int stream;
    int64_t start;
    int64_t deadline;
    int flushing;
    int has_frame;
};

int pm_video_reader_open(const char *path, int stream_index, int64_t deadline_us, pm_video_reader **out) {
    pm_video_reader *reader = av_mallocz(sizeof *reader);
    if (!reader) return AVERROR(ENOMEM);
    reader->deadline = deadline_us;
    int result = pm_av_open(path, deadline_us, &reader->format);
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
    av_packet_free(&r->packet);
    avcodec_free_context(&r->decoder);
    pm_av_close(&r->format);
    av_freep(reader);
}

int pm_video_reader_next(pm_video_reader *r, double *time_seconds) {
    r->has_frame = 0;
    for (;;) {
        if (pm_past(r->deadline)) return AVERROR_EXIT;
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
    AVRational sar = r->has_frame && f->sample_aspect_ratio.num > 0 ? f->sample_aspect_ratio : r->decoder->sample_aspect_ratio;
    *sar_num = sar.num > 0 && sar.den > 0 ? sar.num : 1;
    *sar_den = sar.num > 0 && sar.den > 0 ? sar.den : 1;
}

// Scales the current frame into `out` (tightly packed rows) as GRAY8 or RGB24.
static int pm_video_reader_scale(pm_video_reader *r, int width, int height, enum AVPixelFormat format, uint8_t *out) {
    if (!r->has_frame) return AVERROR(EINVAL);
    const AVFrame *f = r->frame;
    r->sws = sws_getCachedContext(r->sws, f->width, f->height, f->format, width, height, format, SWS_BICUBIC, NULL, NULL, NULL);
    if (!r->sws) return AVERROR(EINVAL);
    uint8_t *planes[4] = {out, NULL, NULL, NULL};
    int strides[4] = {width * (format == AV_PIX_FMT_RGB24 ? 3 : 1), 0, 0, 0};
    int rows = sws_scale(r->sws, (const uint8_t *const *)f->data, f->linesize, 0, f->height, planes, strides);
    return rows > 0 ? 0 : AVERROR(EINVAL);
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

// ---- Output helpers ------------------------------------------------------------------------------

// The muxer is chosen from the file name (.mp4: MP4, .m4a: the iPod/M4A flavour).
static int pm_open_output(const char *path, AVFormatContext **out) {
    AVFormatContext *context = NULL;
    int result = avformat_alloc_output_context2(&context, NULL, NULL, path);
    if (result < 0) return result;
    if (!context) return AVERROR(EINVAL);
    *out = context;
    return 0;
}

static void pm_close_output(AVFormatContext **out) {
    if (!out || !*out) return;
    if (!((*out)->oformat->flags & AVFMT_NOFILE) && (*out)->pb) avio_closep(&(*out)->pb);
    avformat_free_context(*out);
    *out = NULL;
}

static int pm_write_header(AVFormatContext *out, const char *path) {
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
static void pm_set_codec_tag(AVCodecParameters *parameters) {
    parameters->codec_tag = parameters->codec_id == AV_CODEC_ID_HEVC ? MKTAG('h', 'v', 'c', '1') : 0;
}

static int pm_copy_display_matrix(const AVStream *from, AVStream *to) {
    size_t size = 0;
    const uint8_t *matrix = av_stream_get_side_data(from, AV_PKT_DATA_DISPLAYMATRIX, &size);
    if (!matrix || size < 9 * sizeof(int32_t)) return 0;
    uint8_t *copy = av_stream_new_side_data(to, AV_PKT_DATA_DISPLAYMATRIX, size);
    if (!copy) return AVERROR(ENOMEM);
    memcpy(copy, matrix, size);
    return 0;
}

// ---- Remux -----------------------------------------------------------------------------------------

int pm_av_remux(const char *input, const char *output, int video_index, int audio_index, int64_t deadline_us,
                char *error, size_t error_size) {
    AVFormatContext *in = NULL, *out = NULL;
    AVPacket *packet = NULL;
    int map[2] = {video_index, audio_index};
    int out_index[2] = {-1, -1};
    const char *stage = "open input";
    int result = pm_av_open(input, deadline_us, &in);
    if (result < 0) goto done;
    stage = "open output";
    result = pm_open_output(output, &out);
    if (result < 0) goto done;
    for (int i = 0; i < 2; i++) {
        if (map[i] < 0) continue;
        if (map[i] >= (int)in->nb_streams) {
            result = AVERROR_STREAM_NOT_FOUND;
            goto done;
        }
        AVStream *from = in->streams[map[i]];
        AVStream *to = avformat_new_stream(out, NULL);
        if (!to) {
            result = AVERROR(ENOMEM);
            goto done;
        }
        result = avcodec_parameters_copy(to->codecpar, from->codecpar);
        if (result < 0) goto done;
        pm_set_codec_tag(to->codecpar);
        to->time_base = from->time_base;
        to->disposition = from->disposition & AV_DISPOSITION_DEFAULT;
        result = pm_copy_display_matrix(from, to);
        if (result < 0) goto done;
        out_index[i] = to->index;
    }
    stage = "write header";
    result = pm_write_header(out, output);
    if (result < 0) goto done;
    packet = av_packet_alloc();
    if (!packet) {
        result = AVERROR(ENOMEM);
        goto done;
    }
    stage = "copy packets";
    for (;;) {
        if (pm_past(deadline_us)) {
            result = AVERROR_EXIT;
            goto done;
        }
        result = av_read_frame(in, packet);
        if (result == AVERROR_EOF) break;
        if (result < 0) goto done;
        int slot = packet->stream_index == map[0] ? 0 : packet->stream_index == map[1] ? 1 : -1;
        if (slot < 0) {
            av_packet_unref(packet);
            continue;
        }
        AVStream *from = in->streams[packet->stream_index];
        AVStream *to = out->streams[out_index[slot]];
        av_packet_rescale_ts(packet, from->time_base, to->time_base);
        packet->stream_index = to->index;
        packet->pos = -1;
        result = av_interleaved_write_frame(out, packet);
        if (result < 0) goto done;
    }
    stage = "write trailer";
    result = av_write_trailer(out);
done:
    if (result < 0) pm_set_error(error, error_size, stage, result);
    av_packet_free(&packet);
    pm_close_output(&out);
    pm_av_close(&in);
    return result < 0 ? result : 0;
}

// ---- Transcode -------------------------------------------------------------------------------------

typedef struct {
    AVFormatContext *in, *out;
    AVPacket *packet, *encoded;
    const pm_transcode_params *params;
    int64_t deadline;
    // video
    AVCodecContext *vdec, *venc;
    struct SwsContext *sws;
    AVFrame *vframe, *scaled;
    int vin, vout;
    int64_t vstart, last_kept;
    int video_done;
    // audio
    AVCodecContext *adec, *aenc;
    SwrContext *swr;
    AVAudioFifo *fifo;
    AVFrame *aframe, *chunk;
    int ain, aout;
    int64_t samples_written, samples_limit;
    int audio_done;
    pm_transcode_result *result;
} pm_transcoder;

static int pm_write_encoded(pm_transcoder *t, AVCodecContext *encoder, int stream) {
    for (;;) {
        int result = avcodec_receive_packet(encoder, t->encoded);
        if (result == AVERROR(EAGAIN) || result == AVERROR_EOF) return 0;
        if (result < 0) return result;
        av_packet_rescale_ts(t->encoded, encoder->time_base, t->out->streams[stream]->time_base);
        t->encoded->stream_index = stream;
        result = av_interleaved_write_frame(t->out, t->encoded);
        if (result < 0) return result;
    }
}

static int pm_setup_video(pm_transcoder *t) {
    const pm_transcode_params *p = t->params;
    AVStream *stream = t->in->streams[t->vin];
    int result = pm_open_decoder(t->in, t->vin, &t->vdec);
    if (result < 0) return result;
    // Square pixels at most max_long_side on the long side, even sides for 4:2:0.
    AVRational sar = stream->codecpar->sample_aspect_ratio;
    double display_width = t->vdec->width * (sar.num > 0 && sar.den > 0 ? av_q2d(sar) : 1.0);
    double display_height = t->vdec->height;
    double long_side = display_width > display_height ? display_width : display_height;
    double scale = p->max_long_side > 0 && long_side > p->max_long_side ? p->max_long_side / long_side : 1.0;
    int width = ((int)(display_width * scale + 0.5)) & ~1;
    int height = ((int)(display_height * scale + 0.5)) & ~1;
    if (width < 2) width = 2;
    if (height < 2) height = 2;

    const AVCodec *codec = avcodec_find_encoder_by_name("libx264");
    if (!codec) return AVERROR_ENCODER_NOT_FOUND;
    t->venc = avcodec_alloc_context3(codec);
    if (!t->venc) return AVERROR(ENOMEM);
    AVRational rate = av_guess_frame_rate(t->in, stream, NULL);
    if (rate.num <= 0 || rate.den <= 0) rate = (AVRational){30, 1};
    if (p->max_frame_rate > 0 && av_q2d(rate) > p->max_frame_rate) rate = av_d2q(p->max_frame_rate, 1001000);
    t->venc->width = width;
    t->venc->height = height;
    t->venc->pix_fmt = AV_PIX_FMT_YUV420P;
    t->venc->sample_aspect_ratio = (AVRational){1, 1};
    t->venc->time_base = stream->time_base;
    t->venc->framerate = rate;
    t->venc->bit_rate = p->video_bit_rate;
    // VBV keeps the rate close to the target, so the size is predictable.
    t->venc->rc_max_rate = p->video_bit_rate * 3 / 2;
    t->venc->rc_buffer_size = (int)(p->video_bit_rate * 2);
    t->venc->gop_size = (int)(2 * av_q2d(rate) + 0.5);
    t->venc->thread_count = 0;
    t->venc->color_range = AVCOL_RANGE_MPEG;
    if (t->out->oformat->flags & AVFMT_GLOBALHEADER) t->venc->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;
    av_opt_set(t->venc->priv_data, "preset", p->preset && *p->preset ? p->preset : "veryfast", 0);
    av_opt_set(t->venc->priv_data, "profile", "high", 0);
    result = avcodec_open2(t->venc, codec, NULL);
    if (result < 0) return result;
    AVStream *to = avformat_new_stream(t->out, NULL);
    if (!to) return AVERROR(ENOMEM);
    result = avcodec_parameters_from_context(to->codecpar, t->venc);
    if (result < 0) return result;
    to->time_base = t->venc->time_base;
    to->avg_frame_rate = rate;
    result = pm_copy_display_matrix(stream, to);
    if (result < 0) return result;
    t->vout = to->index;
    t->vframe = av_frame_alloc();
    t->scaled = av_frame_alloc();
    if (!t->vframe || !t->scaled) return AVERROR(ENOMEM);
    t->scaled->format = AV_PIX_FMT_YUV420P;
    t->scaled->width = width;
    t->scaled->height = height;
    result = av_frame_get_buffer(t->scaled, 0);
    if (result < 0) return result;
    t->vstart = stream->start_time != AV_NOPTS_VALUE ? stream->start_time : 0;
    t->last_kept = AV_NOPTS_VALUE;
    t->result->width = width;
    t->result->height = height;
    return 0;
}

static int pm_setup_audio(pm_transcoder *t) {
    const pm_transcode_params *p = t->params;
    int result = pm_open_decoder(t->in, t->ain, &t->adec);
    if (result < 0) return result;
    const AVCodec *codec = avcodec_find_encoder(AV_CODEC_ID_AAC);
    if (!codec) return AVERROR_ENCODER_NOT_FOUND;
    t->aenc = avcodec_alloc_context3(codec);
    if (!t->aenc) return AVERROR(ENOMEM);
    static const int rates[] = {48000, 44100, 32000, 24000, 22050, 16000, 12000, 11025, 8000};
    int rate = 48000;
    for (size_t i = 0; i < sizeof rates / sizeof rates[0]; i++) {
        if (t->adec->sample_rate == rates[i]) rate = rates[i];
    }
    if (p->audio_sample_rate > 0) rate = p->audio_sample_rate;
    int channels = t->adec->ch_layout.nb_channels >= 2 && p->audio_channels != 1 ? 2 : 1;
    av_channel_layout_default(&t->aenc->ch_layout, channels);
    t->aenc->sample_rate = rate;
    t->aenc->sample_fmt = AV_SAMPLE_FMT_FLTP;
    t->aenc->bit_rate = p->audio_bit_rate;
    t->aenc->time_base = (AVRational){1, rate};
    if (t->out->oformat->flags & AVFMT_GLOBALHEADER) t->aenc->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;
    result = avcodec_open2(t->aenc, codec, NULL);
    if (result < 0) return result;
    AVStream *to = avformat_new_stream(t->out, NULL);
    if (!to) return AVERROR(ENOMEM);
    result = avcodec_parameters_from_context(to->codecpar, t->aenc);
    if (result < 0) return result;
    to->time_base = t->aenc->time_base;
    t->aout = to->index;
    AVChannelLayout in_layout;
    if (t->adec->ch_layout.order == AV_CHANNEL_ORDER_UNSPEC || t->adec->ch_layout.nb_channels == 0) {
        av_channel_layout_default(&in_layout, t->adec->ch_layout.nb_channels > 0 ? t->adec->ch_layout.nb_channels : 1);
    } else {
        result = av_channel_layout_copy(&in_layout, &t->adec->ch_layout);
        if (result < 0) return result;
    }
    result = swr_alloc_set_opts2(&t->swr, &t->aenc->ch_layout, t->aenc->sample_fmt, t->aenc->sample_rate, &in_layout,
                                 t->adec->sample_fmt, t->adec->sample_rate, 0, NULL);
    av_channel_layout_uninit(&in_layout);
    if (result < 0) return result;
    result = swr_init(t->swr);
    if (result < 0) return result;
    t->fifo = av_audio_fifo_alloc(t->aenc->sample_fmt, channels, 4096);
    t->aframe = av_frame_alloc();
    if (!t->fifo || !t->aframe) return AVERROR(ENOMEM);
    t->samples_limit = p->max_duration > 0 ? (int64_t)(p->max_duration * rate) : INT64_MAX;
    return 0;
}

// Encodes `count` samples from the FIFO as one frame.
static int pm_encode_audio_chunk(pm_transcoder *t, int count) {
    AVFrame *chunk = av_frame_alloc();
    if (!chunk) return AVERROR(ENOMEM);
    chunk->nb_samples = count;
    chunk->format = t->aenc->sample_fmt;
    chunk->sample_rate = t->aenc->sample_rate;
    int result = av_channel_layout_copy(&chunk->ch_layout, &t->aenc->ch_layout);
    if (result >= 0) result = av_frame_get_buffer(chunk, 0);
    if (result >= 0 && av_audio_fifo_read(t->fifo, (void **)chunk->data, count) < count) result = AVERROR(EIO);
    if (result >= 0) {
        chunk->pts = t->samples_written;
        t->samples_written += count;
        result = avcodec_send_frame(t->aenc, chunk);
    }
    av_frame_free(&chunk);
    if (result < 0) return result;
    return pm_write_encoded(t, t->aenc, t->aout);
}

// Resamples (NULL input drains the resampler) into the FIFO and encodes whole frames.
static int pm_audio_samples(pm_transcoder *t, const AVFrame *frame, int final) {
    int frame_size = t->aenc->frame_size > 0 ? t->aenc->frame_size : 1024;
    int wanted = swr_get_out_samples(t->swr, frame ? frame->nb_samples : 0);
    if (wanted > 0) {
        uint8_t **buffer = NULL;
        int result = av_samples_alloc_array_and_samples(&buffer, NULL, t->aenc->ch_layout.nb_channels, wanted,
                                                        t->aenc->sample_fmt, 0);
        if (result < 0) return result;
        int converted = swr_convert(t->swr, buffer, wanted, frame ? (const uint8_t **)frame->extended_data : NULL,
                                    frame ? frame->nb_samples : 0);
        if (converted > 0) {
            int64_t room = t->samples_limit - t->samples_written - av_audio_fifo_size(t->fifo);
            if (room < converted) converted = room > 0 ? (int)room : 0;
            if (converted > 0 && av_audio_fifo_write(t->fifo, (void **)buffer, converted) < converted) converted = AVERROR(ENOMEM);
        }
        av_freep(&buffer[0]);
        av_freep(&buffer);
        if (converted < 0) return converted;
    }
    while (av_audio_fifo_size(t->fifo) >= frame_size) {
        int result = pm_encode_audio_chunk(t, frame_size);
        if (result < 0) return result;
    }
    if (final && av_audio_fifo_size(t->fifo) > 0) {
        int result = pm_encode_audio_chunk(t, av_audio_fifo_size(t->fifo));
        if (result < 0) return result;
    }
    if (t->samples_written + av_audio_fifo_size(t->fifo) >= t->samples_limit) t->audio_done = 1;
    return 0;
}

static int pm_video_frame(pm_transcoder *t, AVFrame *frame) {
    AVRational tb = t->in->streams[t->vin]->time_base;
    int64_t pts = frame->best_effort_timestamp;
    if (pts == AV_NOPTS_VALUE) pts = t->last_kept == AV_NOPTS_VALUE ? t->vstart : t->last_kept + 1;
    int64_t relative = pts - t->vstart;
    if (relative < 0) return 0;
    double seconds = relative * av_q2d(tb);
    if (t->params->max_duration > 0 && seconds >= t->params->max_duration) {
        t->video_done = 1;
        return 0;
    }
    if (t->last_kept != AV_NOPTS_VALUE) {
        if (relative <= t->last_kept) return 0;  // timestamps must grow
        double gap = (relative - t->last_kept) * av_q2d(tb);
        if (t->params->max_frame_rate > 0 && gap < 0.9 / t->params->max_frame_rate) return 0;
    }
    t->sws = sws_getCachedContext(t->sws, frame->width, frame->height, frame->format, t->scaled->width,
                                  t->scaled->height, AV_PIX_FMT_YUV420P, SWS_BICUBIC, NULL, NULL, NULL);
    if (!t->sws) return AVERROR(EINVAL);
    int result = av_frame_make_writable(t->scaled);
    if (result < 0) return result;
    sws_scale(t->sws, (const uint8_t *const *)frame->data, frame->linesize, 0, frame->height, t->scaled->data,
              t->scaled->linesize);
    t->scaled->pts = relative;
    t->last_kept = relative;
    t->result->frames++;
    if (seconds > t->result->duration) t->result->duration = seconds;
    result = avcodec_send_frame(t->venc, t->scaled);
    if (result < 0) return result;
    return pm_write_encoded(t, t->venc, t->vout);
}

static int pm_drain_decoder(pm_transcoder *t, AVCodecContext *decoder, AVFrame *frame, int video) {
    for (;;) {
        int result = avcodec_receive_frame(decoder, frame);
        if (result == AVERROR(EAGAIN) || result == AVERROR_EOF) return 0;
        if (result < 0) return result;
        result = video ? (t->video_done ? 0 : pm_video_frame(t, frame)) : (t->audio_done ? 0 : pm_audio_samples(t, frame, 0));
        av_frame_unref(frame);
        if (result < 0) return result;
    }
}

int pm_av_transcode(const char *input, const char *output, const pm_transcode_params *params, int64_t deadline_us,
                    pm_transcode_result *transcoded, char *error, size_t error_size) {
    pm_transcoder t;
    memset(&t, 0, sizeof t);
    memset(transcoded, 0, sizeof *transcoded);
    t.params = params;
    t.deadline = deadline_us;
    t.vin = params->video_index;
    t.ain = params->audio_index;
    t.vout = t.aout = -1;
    t.result = transcoded;
    t.video_done = t.vin < 0;
    t.audio_done = t.ain < 0;
    const char *stage = "open input";
    int result = pm_av_open(input, deadline_us, &t.in);
    if (result < 0) goto done;
    if ((t.vin >= (int)t.in->nb_streams) || (t.ain >= (int)t.in->nb_streams) || (t.vin < 0 && t.ain < 0)) {
        result = AVERROR_STREAM_NOT_FOUND;
        goto done;
    }
    stage = "open output";
    result = pm_open_output(output, &t.out);
    if (result < 0) goto done;
    if (t.vin >= 0) {
        stage = "set up the H.264 encoder";
        result = pm_setup_video(&t);
        if (result < 0) goto done;
    }
    if (t.ain >= 0) {
        stage = "set up the AAC encoder";
        result = pm_setup_audio(&t);
        if (result < 0) goto done;
    }
    for (unsigned i = 0; i < t.in->nb_streams; i++) {
        if ((int)i != t.vin && (int)i != t.ain) t.in->streams[i]->discard = AVDISCARD_ALL;
    }
    stage = "write header";
    result = pm_write_header(t.out, output);
    if (result < 0) goto done;
    t.packet = av_packet_alloc();
    t.encoded = av_packet_alloc();
    if (!t.packet || !t.encoded) {
        result = AVERROR(ENOMEM);
        goto done;
    }
    stage = "transcode";
    while (!(t.video_done && t.audio_done)) {
        if (pm_past(deadline_us)) {
            result = AVERROR_EXIT;
            goto done;
        }
        result = av_read_frame(t.in, t.packet);
        if (result == AVERROR_EOF) break;
        if (result < 0) goto done;
        int index = t.packet->stream_index;
        if (index == t.vin && !t.video_done) {
            result = avcodec_send_packet(t.vdec, t.packet);
            if (result >= 0 || result == AVERROR_INVALIDDATA) result = pm_drain_decoder(&t, t.vdec, t.vframe, 1);
        } else if (index == t.ain && !t.audio_done) {
            result = avcodec_send_packet(t.adec, t.packet);
            if (result >= 0 || result == AVERROR_INVALIDDATA) result = pm_drain_decoder(&t, t.adec, t.aframe, 0);
        } else {
            result = 0;
        }
        av_packet_unref(t.packet);
        if (result < 0) goto done;
    }
    stage = "flush";
    if (t.vdec) {
        avcodec_send_packet(t.vdec, NULL);
        result = pm_drain_decoder(&t, t.vdec, t.vframe, 1);
        if (result < 0) goto done;
        result = avcodec_send_frame(t.venc, NULL);
        if (result < 0) goto done;
        result = pm_write_encoded(&t, t.venc, t.vout);
        if (result < 0) goto done;
    }
    if (t.adec) {
        avcodec_send_packet(t.adec, NULL);
        result = pm_drain_decoder(&t, t.adec, t.aframe, 0);
        if (result < 0) goto done;
        if (!t.audio_done) {
            result = pm_audio_samples(&t, NULL, 1);
        } else if (av_audio_fifo_size(t.fifo) > 0) {
            result = pm_encode_audio_chunk(&t, av_audio_fifo_size(t.fifo));
        }
        if (result < 0) goto done;
        result = avcodec_send_frame(t.aenc, NULL);
        if (result < 0) goto done;
        result = pm_write_encoded(&t, t.aenc, t.aout);
        if (result < 0) goto done;
        double audio_seconds = (double)t.samples_written / t.aenc->sample_rate;
        if (audio_seconds > transcoded->duration) transcoded->duration = audio_seconds;
    }
    stage = "write trailer";
    result = av_write_trailer(t.out);
done:
    if (result < 0) pm_set_error(error, error_size, stage, result);
    av_packet_free(&t.packet);
    av_packet_free(&t.encoded);
    av_frame_free(&t.vframe);
    av_frame_free(&t.scaled);
    av_frame_free(&t.aframe);
    sws_freeContext(t.sws);
    swr_free(&t.swr);
    if (t.fifo) av_audio_fifo_free(t.fifo);
    avcodec_free_context(&t.vdec);
    avcodec_free_context(&t.venc);
    avcodec_free_context(&t.adec);
    avcodec_free_context(&t.aenc);
    pm_close_output(&t.out);
    pm_av_close(&t.in);
    return result < 0 ? result : 0;
}
