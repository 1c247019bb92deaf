// The check of a media file shipped as it is (kept, not transcoded): every packet of its two
// streams demuxed (a container that breaks off or lies about its samples fails there), and the
// packets inside the caller's windows decoded and thrown away. Facts only: what failed, where,
// and how far the packets reach; the caller decides what is damage. One cleanup label;
// AVERROR_EXIT past the deadline.
#include "ffmpeg_internal.h"

#include <stdio.h>
#include <string.h>

// Seconds from the stream's start of a packet's (or frame's) time `ts`, or -1 without one.
static double pm_seconds(const AVStream *stream, int64_t ts) {
    if (ts == AV_NOPTS_VALUE) return -1;
    const int64_t start = stream->start_time == AV_NOPTS_VALUE ? 0 : stream->start_time;
    return (double)(ts - start) * av_q2d(stream->time_base);
}

static void pm_check_failure(pm_media_check_result *out, const AVCodecContext *decoder, double at, int code,
                             const char *what) {
    if (out->failed_packets++ > 0) return;
    out->first_failure_seconds = at;
    if (code < 0) {
        char text[AV_ERROR_MAX_STRING_SIZE];
        av_strerror(code, text, sizeof text);
        snprintf(out->first_failure, sizeof out->first_failure, "%s: %s", decoder->codec->name, text);
    } else {
        snprintf(out->first_failure, sizeof out->first_failure, "%s: %s", decoder->codec->name, what);
    }
}

// Takes every frame the decoder has ready; a refused or corrupt one is a failure at `at`.
static int pm_check_drain(AVCodecContext *decoder, AVFrame *frame, double at, pm_media_check_result *out) {
    for (;;) {
        int result = avcodec_receive_frame(decoder, frame);
        if (result == AVERROR(EAGAIN) || result == AVERROR_EOF) return 0;
        if (result == AVERROR(ENOMEM)) return result;
        if (result < 0) {
            pm_check_failure(out, decoder, at, result, NULL);
            continue;
        }
        if (frame->decode_error_flags || (frame->flags & AV_FRAME_FLAG_CORRUPT)) {
            pm_check_failure(out, decoder, at, 0, "a frame decoded with errors (concealed)");
        }
        av_frame_unref(frame);
    }
}

int pm_av_check(const char *path, const char *demuxer, const pm_media_check_plan *plan, pm_deadline deadline,
                pm_media_check_result *out, char *error, size_t error_size) {
    memset(out, 0, sizeof *out);
    out->first_failure_seconds = -1;
    out->duration_seconds = -1;
    AVFormatContext *in = NULL;
    AVCodecContext *decoders[2] = {NULL, NULL};
    AVPacket *packet = NULL;
    AVFrame *frame = NULL;
    const int map[2] = {plan->video_index, plan->audio_index};
    const double window[2] = {plan->video_decode_seconds, plan->audio_decode_seconds};
    const char *stage = "open input";
    int result = pm_av_open(path, demuxer, deadline, &in);
    if (result < 0) goto done;
    if (in->duration != AV_NOPTS_VALUE && in->duration > 0) out->duration_seconds = (double)in->duration / AV_TIME_BASE;
    out->duration_estimated = in->duration_estimation_method == AVFMT_DURATION_FROM_BITRATE;
    stage = "open decoder";
    for (int i = 0; i < 2; i++) {
        if (map[i] < 0) continue;
        if (map[i] >= (int)in->nb_streams) {
            result = AVERROR_STREAM_NOT_FOUND;
            goto done;
        }
        if (window[i] <= 0) continue;
        result = pm_open_decoder(in, map[i], &decoders[i]);
        if (result < 0) goto done;
    }
    packet = av_packet_alloc();
    frame = av_frame_alloc();
    if (!packet || !frame) {
        result = AVERROR(ENOMEM);
        goto done;
    }
    stage = "check packets";
    for (;;) {
        if (pm_deadline_passed(deadline)) {
            result = AVERROR_EXIT;
            goto done;
        }
        result = av_read_frame(in, packet);
        if (result == AVERROR_EOF) break;
        if (result == AVERROR_EXIT) goto done;
        if (result < 0) {
            // Where the container broke off is a fact about the file, not a failure of the check.
            out->demux_error = result;
            out->demux_error_seconds = out->end_seconds;
            result = 0;
            break;
        }
        const int slot = packet->stream_index == map[0] ? 0 : packet->stream_index == map[1] ? 1 : -1;
        if (slot < 0) {
            av_packet_unref(packet);
            continue;
        }
        const AVStream *stream = in->streams[packet->stream_index];
        out->packets++;
        double at = pm_seconds(stream, packet->pts != AV_NOPTS_VALUE ? packet->pts : packet->dts);
        if (at >= 0) {
            const double end = at + (packet->duration > 0 ? (double)packet->duration * av_q2d(stream->time_base) : 0);
            if (end > out->end_seconds) out->end_seconds = end;
        }
        AVCodecContext *decoder = decoders[slot];
        if (decoder && at >= 0 && at < window[slot]) {
            out->decoded_packets++;
            result = avcodec_send_packet(decoder, packet);
            if (result == AVERROR(EAGAIN)) {
                // Full: take its frames first, then the packet again.
                result = pm_check_drain(decoder, frame, at, out);
                if (result == 0) result = avcodec_send_packet(decoder, packet);
            }
            if (result == AVERROR(ENOMEM)) goto done;
            if (result < 0) pm_check_failure(out, decoder, at, result, NULL);
            result = pm_check_drain(decoder, frame, at, out);
            if (result < 0) goto done;
        }
        av_packet_unref(packet);
    }
    stage = "flush decoders";
    for (int i = 0; i < 2; i++) {
        if (!decoders[i]) continue;
        if (avcodec_send_packet(decoders[i], NULL) == 0) {
            result = pm_check_drain(decoders[i], frame, window[i], out);
            if (result < 0) goto done;
        }
    }
    result = 0;
done:
    if (result < 0) pm_set_error(error, error_size, stage, result);
    av_packet_free(&packet);
    av_frame_free(&frame);
    for (int i = 0; i < 2; i++) avcodec_free_context(&decoders[i]);
    pm_av_close(&in);
    return result < 0 ? result : 0;
}
