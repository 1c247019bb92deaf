// Harness gif_cut: a GIF's frames cut straight from PushMedia's decoder, without libvips in
// between (gif_proxies.c: pm_gif_proxies; gif_transcode.c with the writer, gif_write.c and
// gif_write_palette.c: pm_gif_transcode), checked against what the libvips path makes of
// pm_gif_load's image cut the same way.
//
// The cut follows a hash of the input: the whole logical screen (bytes 6…9) or a rectangle
// inside it; every frame, every 2nd or every 3rd, from one of the first frames, at most
// PMF_CUT_FRAMES; a shrink factor 1…4 for the proxies; writer settings (2…8 bits, effort 1…3,
// interframe error 0, 8 or 32, palette reuse on or off, sometimes a small give-up bound).
//
// The file is opened once (pm_gif_open) and every reader draws from that one scan. Checks:
// proxies are the pixels of vips_shrink (factor > 1) or the crop (factor 1) of each frame
// of pm_gif_load's image, and fail only where those fail; pm_gif_transcode gives the status and
// bytes of pm_gif_write on pm_gif_load's frames cut, joined and timed the same way, and a GIF it
// writes is read back by libvips' gifload at the cut's size and frame count. Reduced to an
// output size from the hash (at most PM_REDUCE_MOST times smaller a side): pm_gif_reduced's
// frames are pm_reduce_area's of each whole frame cut from pm_gif_load's image, alpha divided
// back, failing only where those fail; pm_gif_transcode of the reduced cut writes a GIF of that
// size, or fails where they fail; a size larger than the cut is refused.
#include "fuzz_common.h"

#include "CReduce.h"

/// At most this many frames in a cut, and pixels in all of them (the writer's palettes cost).
#define PMF_CUT_FRAMES 24
#define PMF_CUT_PIXELS ((int64_t)1 << 20)

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc;
    pmf_vips_start((*argv)[0]);
    return 0;
}

typedef struct {
    int left, top, width, height;
    int frames[PMF_CUT_FRAMES], delays[PMF_CUT_FRAMES], count;
} cut_choice;

/// Frame k of the cut from pm_gif_load's image (lazy), or NULL.
static VipsImage *cut_frame(VipsImage *stacked, int page, const cut_choice *c, int k) {
    VipsImage *frame = NULL;
    if (vips_crop(stacked, &frame, c->left, c->frames[k] * page + c->top, c->width, c->height, NULL)) return NULL;
    return frame;
}

static void check_proxies(pm_gif_file *file, VipsImage *stacked, int page, const cut_choice *c, int factor) {
    const pm_gif_cut cut = {c->left, c->top, c->width, c->height, c->frames, NULL, c->count, 0, {0}};
    VipsImage *proxies = NULL;
    const int status = pm_gif_proxies(file, &cut, factor, &proxies);
    PMF_SAY("pm_gif_proxies(%d,%d %dx%d, %d frames from %d, factor %d): %d\n", c->left, c->top, c->width, c->height,
            c->count, c->frames[0], factor, status);
    if ((status == 0) != (proxies != NULL)) pmf_fail("pm_gif_proxies returned %d, image %p", status, (void *)proxies);
    const int width = (int)((double)c->width / factor + 0.5), height = (int)((double)c->height / factor + 0.5);
    if (status != 0 && status != -1) pmf_fail("pm_gif_proxies returned %d", status);
    if (width < 1 || height < 1) { // a factor that leaves no pixel: refused, as the caller never asks for it
        if (status != -1) pmf_fail("pm_gif_proxies made a %dx%d cut's proxies at factor %d", c->width, c->height, factor);
        vips_error_clear();
        return;
    }

    size_t got_size = 0;
    unsigned char *got = status == 0 ? pmf_pixels(proxies, &got_size) : NULL;
    if (status == 0 && (!got || proxies->Xsize != width || proxies->Ysize != height * c->count ||
                        proxies->Bands != stacked->Bands))
        pmf_fail("pm_gif_proxies made %dx%d, %d bands, for %d frames of %dx%d, %d bands", proxies->Xsize,
                 proxies->Ysize, proxies->Bands, c->count, width, height, stacked->Bands);
    const size_t proxy_bytes = (size_t)width * height * stacked->Bands;
    bool failed = false;
    for (int k = 0; k < c->count && !failed; k++) {
        VipsImage *frame = cut_frame(stacked, page, c, k), *small = NULL;
        if (!frame) pmf_fail("vips_crop: %s", vips_error_buffer());
        if (factor > 1 && vips_shrink(frame, &small, factor, factor, NULL)) pmf_fail("vips_shrink: %s", vips_error_buffer());
        size_t want_size = 0;
        unsigned char *want = pmf_pixels(small ? small : frame, &want_size);
        if (!want) {
            failed = true; // the decoder fails at this frame: so must the proxies
        } else if (got) {
            if (want_size != proxy_bytes || memcmp(want, got + proxy_bytes * k, proxy_bytes) != 0) {
                size_t at = pmf_first_difference(want, got + proxy_bytes * k, VIPS_MIN(want_size, proxy_bytes));
                pmf_fail("proxy %d (frame %d, factor %d, cut %d,%d %dx%d) differs from libvips' at byte %zu: %d, "
                         "proxy %d",
                         k, c->frames[k], factor, c->left, c->top, c->width, c->height, at, want[at],
                         got[proxy_bytes * k + at]);
            }
        }
        g_free(want);
        if (small) g_object_unref(small);
        g_object_unref(frame);
    }
    if (failed != (status == -1))
        pmf_fail("outcome differs: pm_gif_proxies %d, the frames through libvips %s", status, failed ? "fail" : "decode");
    g_free(got);
    if (proxies) g_object_unref(proxies);
    vips_error_clear();
}

static void check_transcode(pm_gif_file *file, VipsImage *stacked, int page, const cut_choice *c,
                            const pm_gif_settings *settings, int loop) {
    const pm_gif_cut cut = {c->left, c->top, c->width, c->height, c->frames, c->delays, c->count, loop, {0}};
    unsigned char *direct = NULL;
    size_t direct_length = 0;
    const int status = pm_gif_transcode(file, &cut, settings, &direct, &direct_length);
    PMF_SAY("pm_gif_transcode(%d,%d %dx%d, %d frames, %d bits, effort %d, error %g, reuse %d, give up %zu): %d, %zu "
            "bytes\n",
            c->left, c->top, c->width, c->height, c->count, settings->bitdepth, settings->effort,
            settings->interframe_maxerror, settings->reuse, settings->give_up_bytes, status, direct_length);
    if (status != 0 && status != 2 && status != -1) pmf_fail("pm_gif_transcode returned %d", status);
    if ((status == 0) != (direct != NULL)) pmf_fail("pm_gif_transcode returned %d, bytes %p", status, (void *)direct);
    vips_error_clear();

    // The libvips path: the frames cut from pm_gif_load's image, joined, with their timing.
    VipsImage *frames[PMF_CUT_FRAMES];
    for (int k = 0; k < c->count; k++)
        if (!(frames[k] = cut_frame(stacked, page, c, k))) pmf_fail("vips_crop: %s", vips_error_buffer());
    VipsImage *joined = NULL, *timed = NULL;
    if (vips_arrayjoin(frames, &joined, c->count, "across", 1, NULL)) pmf_fail("vips_arrayjoin: %s", vips_error_buffer());
    for (int k = 0; k < c->count; k++) g_object_unref(frames[k]);
    if (vips_copy(joined, &timed, NULL)) pmf_fail("vips_copy: %s", vips_error_buffer());
    g_object_unref(joined);
    vips_image_set_int(timed, "page-height", c->height);
    vips_image_set_int(timed, "n-pages", c->count);
    vips_image_set_array_int(timed, "delay", c->delays, c->count);
    vips_image_set_int(timed, "loop", loop);
    unsigned char *expected = NULL;
    size_t expected_length = 0;
    const int expected_status = pm_gif_write(timed, settings, (pm_deadline){0}, &expected, &expected_length);
    g_object_unref(timed);

    if (status != expected_status || direct_length != expected_length ||
        (status == 0 && memcmp(direct, expected, direct_length) != 0))
        pmf_fail("pm_gif_transcode gives %d (%zu bytes), pm_gif_write of the same frames %d (%zu bytes)%s: cut %d,%d "
                 "%dx%d, %d frames, %d bits, effort %d, error %g, reuse %d, give up %zu",
                 status, direct_length, expected_status, expected_length,
                 status == 0 && direct_length == expected_length ? ", other bytes" : "", c->left, c->top, c->width,
                 c->height, c->count, settings->bitdepth, settings->effort, settings->interframe_maxerror,
                 settings->reuse, settings->give_up_bytes);
    if (status == 0) {
        VipsImage *back = NULL;
        if (vips_gifload_buffer(direct, direct_length, &back, "n", -1, NULL))
            pmf_fail("libvips cannot read the GIF pm_gif_transcode wrote (%zu bytes): %s", direct_length,
                     vips_error_buffer());
        if (back->Xsize != c->width || vips_image_get_page_height(back) != c->height ||
            back->Ysize != c->height * c->count)
            pmf_fail("the GIF written is %dx%d (page %d), not %d frames of %dx%d", back->Xsize, back->Ysize,
                     vips_image_get_page_height(back), c->count, c->width, c->height);
        g_object_unref(back);
    }
    free(direct);
    free(expected);
    vips_error_clear();
}

/// Frame k of the cut reduced to out_width × out_height as pm_gif_reduced must make it: the
/// whole cut in memory, pm_reduce_area, alpha divided back (see-through: 0 in every band).
static unsigned char *reduced_frame(VipsImage *stacked, int page, const cut_choice *c, int k, int out_width,
                                    int out_height, size_t *bytes) {
    VipsImage *frame = cut_frame(stacked, page, c, k), *copied = NULL, *reduced = NULL;
    if (!frame) pmf_fail("vips_crop: %s", vips_error_buffer());
    copied = vips_image_copy_memory(frame);
    g_object_unref(frame);
    if (!copied) return NULL; // the decoder fails at this frame
    if (pm_reduce_area(copied, 0, 0, c->width, c->height, out_width, out_height, (pm_deadline){0}, 1, &reduced))
        pmf_fail("pm_reduce_area of a %dx%d cut to %dx%d: %s", c->width, c->height, out_width, out_height,
                 vips_error_buffer());
    g_object_unref(copied);
    unsigned char *pixels = pmf_pixels(reduced, bytes);
    if (!pixels) pmf_fail("a reduced frame in memory cannot be read");
    if (reduced->Bands == 4) {
        for (size_t i = 0; i + 3 < *bytes; i += 4) {
            const int a = pixels[i + 3];
            for (int b = 0; b < 3; b++) {
                const int v = a == 0 ? 0 : a == 255 ? pixels[i + b] : (pixels[i + b] * 255 + a / 2) / a;
                pixels[i + b] = (unsigned char)VIPS_MIN(255, v);
            }
        }
    }
    g_object_unref(reduced);
    return pixels;
}

static void check_reduced(pm_gif_file *file, VipsImage *stacked, int page, const cut_choice *c, uint64_t hash,
                          const pm_gif_settings *settings) {
    const int least_width = (c->width + PM_REDUCE_MOST - 1) / PM_REDUCE_MOST;
    const int least_height = (c->height + PM_REDUCE_MOST - 1) / PM_REDUCE_MOST;
    const int out_width = least_width + (int)((hash >> 3) % (uint64_t)(c->width - least_width + 1));
    const int out_height = least_height + (int)((hash >> 17) % (uint64_t)(c->height - least_height + 1));
    pm_gif_cut cut = {c->left, c->top, c->width, c->height, c->frames, c->delays, c->count, 0, {0}, out_width, out_height};
    VipsImage *got_image = NULL;
    const int status = pm_gif_reduced(file, &cut, &got_image);
    PMF_SAY("pm_gif_reduced(%d,%d %dx%d to %dx%d, %d frames): %d\n", c->left, c->top, c->width, c->height, out_width,
            out_height, c->count, status);
    if ((status == 0) != (got_image != NULL) || (status != 0 && status != -1))
        pmf_fail("pm_gif_reduced returned %d, image %p", status, (void *)got_image);
    size_t got_size = 0;
    unsigned char *got = status == 0 ? pmf_pixels(got_image, &got_size) : NULL;
    if (status == 0 && (!got || got_image->Xsize != out_width || got_image->Ysize != out_height * c->count ||
                        got_image->Bands != stacked->Bands))
        pmf_fail("pm_gif_reduced made %dx%d, %d bands, for %d frames of %dx%d", got_image->Xsize, got_image->Ysize,
                 got_image->Bands, c->count, out_width, out_height);
    const size_t frame_bytes = (size_t)out_width * out_height * stacked->Bands;
    bool failed = false;
    for (int k = 0; k < c->count && !failed; k++) {
        size_t want_size = 0;
        unsigned char *want = reduced_frame(stacked, page, c, k, out_width, out_height, &want_size);
        if (!want) {
            failed = true;
        } else if (got && (want_size != frame_bytes || memcmp(want, got + frame_bytes * k, frame_bytes) != 0)) {
            size_t at = pmf_first_difference(want, got + frame_bytes * k, VIPS_MIN(want_size, frame_bytes));
            pmf_fail("reduced frame %d (frame %d, cut %d,%d %dx%d to %dx%d) differs from pm_reduce_area's at byte %zu: "
                     "%d, got %d",
                     k, c->frames[k], c->left, c->top, c->width, c->height, out_width, out_height, at, want[at],
                     got[frame_bytes * k + at]);
        }
        g_free(want);
    }
    if (failed != (status == -1))
        pmf_fail("outcome differs: pm_gif_reduced %d, the frames through libvips %s", status, failed ? "fail" : "decode");
    g_free(got);
    if (got_image) g_object_unref(got_image);
    vips_error_clear();

    unsigned char *gif = NULL;
    size_t length = 0;
    const int written = pm_gif_transcode(file, &cut, settings, &gif, &length);
    // Given up past its bound (2), it may stop before a frame that fails.
    if ((written == 0) != (gif != NULL) || (written != 0 && written != 2 && written != -1) ||
        (failed ? written == 0 : written == -1))
        pmf_fail("pm_gif_transcode of the reduced cut returned %d (bytes %p) where its frames %s", written, (void *)gif,
                 failed ? "fail" : "decode");
    if (written == 0) {
        VipsImage *back = NULL;
        if (vips_gifload_buffer(gif, length, &back, "n", -1, NULL))
            pmf_fail("libvips cannot read the reduced GIF (%zu bytes): %s", length, vips_error_buffer());
        if (back->Xsize != out_width || vips_image_get_page_height(back) != out_height || back->Ysize != out_height * c->count)
            pmf_fail("the reduced GIF is %dx%d (page %d), not %d frames of %dx%d", back->Xsize, back->Ysize,
                     vips_image_get_page_height(back), c->count, out_width, out_height);
        g_object_unref(back);
    }
    free(gif);
    vips_error_clear();
    // Larger than the cut: refused, never read.
    cut.out_width = c->width + 1, cut.out_height = c->height;
    VipsImage *refused = NULL;
    if (pm_gif_reduced(file, &cut, &refused) != -1 || refused) pmf_fail("pm_gif_reduced enlarged a cut");
    vips_error_clear();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    pmf_planted_bug(data, size, 'G');
    vips_error_clear();
    if (size < 10) return 0;
    const char *path = pmf_write_file(data, size, ".gif");
    const uint64_t hash = pmf_hash(data, size);

    // The logical screen, clamped to what a cut can be.
    int screen_width = VIPS_MAX(1, data[6] | data[7] << 8), screen_height = VIPS_MAX(1, data[8] | data[9] << 8);
    pm_gif_file *file = NULL;
    pm_gif_facts facts;
    if (pm_gif_open(path, 4096, &file, &facts)) { // declined, refused or unreadable: nothing to cut
        vips_error_clear();
        return 0;
    }
    VipsImage *stacked = NULL;
    if (pm_gif_load(file, &stacked)) pmf_fail("pm_gif_load of a file pm_gif_open took: %s", vips_error_buffer());
    const int page = vips_image_get_page_height(stacked), count = stacked->Ysize / page;
    if (stacked->Xsize != screen_width || page != screen_height)
        pmf_fail("pm_gif_load made %dx%d frames of a %dx%d screen", stacked->Xsize, page, screen_width, screen_height);

    cut_choice c = {0, 0, screen_width, screen_height, {0}, {0}, 0};
    if (hash & 1) { // a rectangle inside the screen
        c.left = (int)((hash >> 1) % (uint64_t)screen_width);
        c.top = (int)((hash >> 12) % (uint64_t)screen_height);
        c.width = 1 + (int)((hash >> 23) % (uint64_t)(screen_width - c.left));
        c.height = 1 + (int)((hash >> 34) % (uint64_t)(screen_height - c.top));
    }
    const int step = 1 + (int)((hash >> 45) % 3), start = (int)((hash >> 47) % 3) % count;
    int most = (int)VIPS_MIN(PMF_CUT_FRAMES, VIPS_MAX(1, PMF_CUT_PIXELS / ((int64_t)c.width * c.height)));
    for (int n = start; n < count && c.count < most; n += step) {
        c.frames[c.count] = n;
        c.delays[c.count] = 10 * (int)((hash >> (n % 48)) % 20);
        c.count++;
    }
    const int factor = 1 + (int)((hash >> 50) % 4);
    check_proxies(file, stacked, page, &c, factor);

    if ((int64_t)c.width * c.height * c.count <= PMF_CUT_PIXELS) {
        static const double errors[] = {0, 8, 32};
        const pm_gif_settings settings = {
            .bitdepth = 2 + (int)((hash >> 52) % 7),
            .effort = 1 + (int)((hash >> 55) % 3),
            .interframe_maxerror = errors[(hash >> 57) % 3],
            .reuse = (int)((hash >> 59) & 1),
            .interpalette_maxerror = 3,
            .give_up_bytes = (hash >> 60) == 0 ? 64 + (size_t)((hash >> 20) % 512) : 0,
            .give_up_after_frames = 2,
        };
        check_transcode(file, stacked, page, &c, &settings, (int)((hash >> 61) % 3));
        check_reduced(file, stacked, page, &c, hash, &settings);
    }
    // A cut outside the screen or frames out of order: refused with an error, never read.
    const int backwards[2] = {count > 1 ? 1 : 0, 0};
    const pm_gif_cut outside = {1, 0, screen_width, screen_height, backwards, NULL, 1, 0, {0}};
    const pm_gif_cut reversed = {0, 0, screen_width, screen_height, backwards, NULL, 2, 0, {0}};
    VipsImage *refused = NULL;
    if (pm_gif_proxies(file, &outside, 1, &refused) != -1 || refused) pmf_fail("pm_gif_proxies read a cut outside the screen");
    if (pm_gif_proxies(file, &reversed, 1, &refused) != -1 || refused) pmf_fail("pm_gif_proxies read frames out of order");
    vips_error_clear();
    pm_gif_file_unref(file);
    g_object_unref(stacked);
    vips_error_clear();
    return 0;
}
