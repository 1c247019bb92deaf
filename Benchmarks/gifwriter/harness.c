// The GIF writer's C harness (Benchmarks/gifwriter/build.sh): a GIF through PushMedia's decoder and
// writer (pm_gif_transcode, whole frames, every frame) and the re-packing pass; prints bytes and CPU.
#include "CGIFCodec.h"
#include <vips/vips.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
static double cpu(void) { struct timespec t; clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t); return t.tv_sec + t.tv_nsec / 1e9; }
int main(int argc, char **argv) {
    if (argc < 2) return 2;
    if (VIPS_INIT(argv[0])) return 1;
    vips_concurrency_set(1);
    double error = argc > 3 ? atof(argv[3]) : 8;
    int reps = argc > 2 ? atoi(argv[2]) : 1;
    pm_gif_file *file;
    pm_gif_facts facts;
    if (pm_gif_open(argv[1], 1 << 20, &file, &facts)) { fprintf(stderr, "open: declined or %s\n", vips_error_buffer()); return 1; }
    pm_gif_info info;
    pm_gif_file_info(file, &info);
    int n = info.frames;
    int *frames = malloc(sizeof(int) * n), *delays = malloc(sizeof(int) * n);
    pm_gif_file_delays(file, delays);
    for (int i = 0; i < n; i++) frames[i] = i, delays[i] = delays[i] > 0 ? delays[i] : 100;
    pm_gif_cut cut = {0, 0, info.width, info.height, frames, delays, n, 0, {0}};
    pm_gif_settings s = {8, 3, error, 1, 3.0, 0, 2};
    unsigned char *gif = NULL, *re = NULL; size_t length = 0, relen = 0;
    double t0 = cpu();
    for (int k = 0; k < reps; k++) {
        free(gif); gif = NULL;
        int st = pm_gif_transcode(file, &cut, &s, &gif, &length);
        if (st) { fprintf(stderr, "transcode %d: %s\n", st, vips_error_buffer()); return 1; }
    }
    double t1 = cpu();
    int rs = 1;
    for (int k = 0; k < reps && !getenv("NOREPACK"); k++) { free(re); re = NULL; rs = pm_gif_repack(gif, length, &re, &relen); }
    double t2 = cpu();
    size_t final = rs == 0 ? relen : length;
    if (argc > 4) { FILE *f = fopen(argv[4], "wb"); fwrite(gif, 1, length, f); fclose(f); }
    if (argc > 5) { FILE *f = fopen(argv[5], "wb"); fwrite(rs == 0 ? re : gif, 1, final, f); fclose(f); }
    printf("%s frames %d written %zu repacked %zu (%s) write %.3f s repack %.3f s\n", argv[1], n, length, final,
           rs == 0 ? "smaller" : "kept", (t1 - t0) / reps, (t2 - t1) / reps);
    return 0;
}
