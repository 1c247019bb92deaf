// Drives PushMedia's FFmpeg shims (ffmpeg_shims.c, ffmpeg_reader.c, ffmpeg_remux.c, ffmpeg_transcode.c) on real files under
// AddressSanitizer/LeakSanitizer: every path (success, damaged input, missing stream, deadline
// passed) must free what it allocated. Built and run by scripts/leak-check.
#include "CFFmpegShims.h"
#include <libavformat/avformat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures = 0;

static void reader(const char *path, const char *demuxer, int stream, pm_deadline deadline) {
    pm_video_reader *r = NULL;
    int result = pm_video_reader_open(path, demuxer, stream, deadline, &r);
    if (result < 0) {
        printf("reader %s: open %d\n", path, result);
        return;
    }
    double t = 0;
    int frames = 0;
    uint8_t luma[48 * 48];
    uint8_t *rgb = malloc(160 * 90 * 3);
    while ((result = pm_video_reader_next(r, &t)) == 0 && frames < 200) {
        pm_video_reader_luma(r, 48, 48, luma);
        if (frames % 10 == 0) pm_video_reader_rgb(r, 160, 90, rgb);
        frames++;
    }
    free(rgb);
    printf("reader %s: %d frames, ended with %d\n", path, frames, result);
    pm_video_reader_close(&r);
    if (r != NULL) failures++;
}

static void probe_cover(const char *path, const char *demuxer) {
    AVFormatContext *c = NULL;
    int result = pm_av_open(path, demuxer, (pm_deadline){pm_monotonic_now_ns() + 10000000000LL}, &c);
    if (result < 0) {
        printf("cover %s: open %d\n", path, result);
        return;
    }
    const uint8_t *data = NULL;
    int size = 0;
    int stream = pm_av_cover_art(c, &data, &size);
    printf("cover %s: stream %d, %d bytes\n", path, stream, size);
    pm_av_close(&c);
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: %s OUTDIR DEMUXER=FILE...\n", argv[0]);
        return 2;
    }
    // What MediaFormat.acceptedDemuxers gives PushMedia (the Swift table is the one to change).
    pm_av_startup("mov,matroska,avi,mpeg,mpegts,mp3,wav,aiff,ogg,flac,aac");
    const char *out = argv[1];
    char target[4096];
    char error[512];
    for (int i = 2; i < argc; i++) {
        char demuxer[64];
        const char *in = strchr(argv[i], '=');
        if (!in || in - argv[i] >= (int)sizeof demuxer) {
            fprintf(stderr, "not DEMUXER=FILE: %s\n", argv[i]);
            return 2;
        }
        snprintf(demuxer, sizeof demuxer, "%.*s", (int)(in - argv[i]), argv[i]);
        in++;
        pm_deadline later = {pm_monotonic_now_ns() + 60 * 1000000000LL};
        pm_deadline past = {pm_monotonic_now_ns() - 1};
        reader(in, demuxer, 0, later);
        reader(in, demuxer, 0, past);  // deadline already passed
        reader(in, demuxer, 99, later);  // no such stream
        probe_cover(in, demuxer);

        snprintf(target, sizeof target, "%s/remux-%d.mp4", out, i);
        error[0] = 0;
        printf("remux %s: %d %s\n", in, pm_av_remux(in, demuxer, target, 0, 1, later, error, sizeof error), error);
        error[0] = 0;
        printf("remux past deadline %s: %d %s\n", in, pm_av_remux(in, demuxer, target, 0, 1, past, error, sizeof error), error);

        // The kept file's check, as KeptMediaCheck plans it: both streams, one decoded, none.
        pm_media_check_plan plans[] = {{0, 1, 3, 600}, {0, -1, 3, 0}, {-1, 0, 0, 600}, {99, -1, 3, 0}};
        for (size_t k = 0; k < sizeof plans / sizeof plans[0]; k++) {
            pm_media_check_result found;
            error[0] = 0;
            const int checked = pm_av_check(in, demuxer, &plans[k], later, &found, error, sizeof error);
            printf("check %s (plan %zu): %d %s; %lld packets to %.2f s, %lld of %lld failed %s\n", in, k, checked, error,
                   (long long)found.packets, found.end_seconds, (long long)found.failed_packets,
                   (long long)found.decoded_packets, found.first_failure);
        }
        {
            pm_media_check_result found;
            error[0] = 0;
            printf("check past deadline %s: %d %s\n", in, pm_av_check(in, demuxer, &plans[0], past, &found, error, sizeof error),
                   error);
        }

        // A plan as PushMedia's TranscodePlan makes one: 160 px long side, 15 frames/s at most.
        pm_transcode_params p = {.video_index = 0, .audio_index = 1, .max_duration = 1.5, .width = 160, .height = 90,
                                 .frame_rate_num = 15, .frame_rate_den = 1, .min_frame_gap = 0.9 / 15,
                                 .video_bit_rate = 300000, .video_max_rate = 450000, .video_buffer_size = 600000,
                                 .gop_size = 30, .preset = "ultrafast", .profile = "high", .audio_bit_rate = 64000,
                                 .audio_sample_rate = 48000, .audio_channels = 2};
        pm_transcode_result r;
        snprintf(target, sizeof target, "%s/transcode-%d.mp4", out, i);
        error[0] = 0;
        printf("transcode %s: %d %s\n", in, pm_av_transcode(in, demuxer, target, &p, later, &r, error, sizeof error), error);
        p.video_index = -1;
        p.audio_index = 0;
        snprintf(target, sizeof target, "%s/audio-%d.m4a", out, i);
        error[0] = 0;
        printf("audio %s: %d %s\n", in, pm_av_transcode(in, demuxer, target, &p, later, &r, error, sizeof error), error);
        error[0] = 0;
        printf("transcode past deadline %s: %d %s\n", in, pm_av_transcode(in, demuxer, target, &p, past, &r, error, sizeof error), error);
    }
    return failures ? 1 : 0;
}
