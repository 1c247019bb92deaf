// Transcoding to H.264 (libx264) + AAC as the caller planned it (the size, frame rate, encoder
// settings, sample rate and channels are its): decode, scale, drop frames closer than the
// plan's gap, resample, encode, mux. One cleanup label frees every context, frame and packet;
// the loops stop with AVERROR_EXIT once the deadline passes.
#include "ffmpeg_internal.h"
#include <libavutil/audio_fifo.h>
#include <libavutil/channel_layout.h>
#include <libavutil/opt.h>
#include <libswresample/swresample.h>
#include <libswscale/swscale.h>
#include <string.h>

typedef struct {
    AVFormatContext *in, *out;
    AVPacket *packet, *encoded;
    const pm_transcode_params *params;
    pm_deadline deadline;
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
    const int width = p->width, height = p->height;
    const AVCodec *codec = avcodec_find_encoder_by_name("libx264");
    if (!codec) return AVERROR_ENCODER_NOT_FOUND;
    t->venc = avcodec_alloc_context3(codec);
    if (!t->venc) return AVERROR(ENOMEM);
    const AVRational rate = {p->frame_rate_num, p->frame_rate_den};
    t->venc->width = width;
    t->venc->height = height;
    t->venc->pix_fmt = AV_PIX_FMT_YUV420P;
    t->venc->sample_aspect_ratio = (AVRational){1, 1};
    t->venc->time_base = stream->time_base;
    t->venc->framerate = rate;
    t->venc->bit_rate = p->video_bit_rate;
    t->venc->rc_max_rate = p->video_max_rate;
    t->venc->rc_buffer_size = p->video_buffer_size;
    t->venc->gop_size = p->gop_size;
    t->venc->thread_count = p->video_threads;
    t->venc->color_range = AVCOL_RANGE_MPEG;
    if (t->out->oformat->flags & AVFMT_GLOBALHEADER) t->venc->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;
    av_opt_set(t->venc->priv_data, "preset", p->preset, 0);
    av_opt_set(t->venc->priv_data, "profile", p->profile, 0);
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
    const int rate = p->audio_sample_rate, channels = p->audio_channels;
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
    // Zeroed: av_channel_layout_copy uninitialises its destination first.
    AVChannelLayout in_layout = {0};
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
        if (gap < t->params->min_frame_gap) return 0;
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

int pm_av_transcode(const char *input, const char *demuxer, const char *output, const pm_transcode_params *params, pm_deadline deadline,
                    pm_transcode_result *transcoded, char *error, size_t error_size) {
    pm_transcoder t;
    memset(&t, 0, sizeof t);
    memset(transcoded, 0, sizeof *transcoded);
    t.params = params;
    t.deadline = deadline;
    t.vin = params->video_index;
    t.ain = params->audio_index;
    t.vout = t.aout = -1;
    t.result = transcoded;
    t.video_done = t.vin < 0;
    t.audio_done = t.ain < 0;
    const char *stage = "open input";
    int result = pm_av_open(input, demuxer, deadline, &t.in);
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
        if (pm_deadline_passed(deadline)) {
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
