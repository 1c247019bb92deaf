// Stream-copy remux: one video and one audio stream copied into a new container without
// re-encoding. One cleanup label frees every context and packet; AVERROR_EXIT past the deadline.
#include "ffmpeg_internal.h"

int pm_av_remux(const char *input, const char *demuxer, const char *output, int video_index, int audio_index,
                int sample_aspect_num, int sample_aspect_den, pm_deadline deadline, char *error, size_t error_size) {
    AVRational sample_aspect = {sample_aspect_num, sample_aspect_den};
    AVFormatContext *in = NULL, *out = NULL;
    AVPacket *packet = NULL;
    int map[2] = {video_index, audio_index};
    int out_index[2] = {-1, -1};
    const char *stage = "open input";
    int result = pm_av_open(input, demuxer, deadline, &in);
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
        // A sample aspect ratio only the source's container gives (MOV's pixel aspect box, a
        // Matroska display size) is not in the copied parameters; the MP4 muxer writes the
        // parameters' one.
        if (i == 0 && sample_aspect.num > 0 && sample_aspect.den > 0) {
            to->codecpar->sample_aspect_ratio = sample_aspect;
            to->sample_aspect_ratio = sample_aspect;
        }
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
        if (pm_deadline_passed(deadline)) {
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
