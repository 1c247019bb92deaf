// Harness gif_repack: the lossless GIF re-packing pass (pm_gif_repack: gif_repack.c,
// gif_repack_read.c, gif_repack_palette.c, gif_lzw.c, gif_buffer.c, with giflib) on any bytes, in memory.
//
// Checks: the status is 0, 1 or -1, with bytes only for 0; re-packed bytes are fewer than the
// input's (what 0 promises) and giflib reads them again (re-packing them is not -1); and every
// frame shows what it did: where libvips' gifload (fail_on=truncated) decodes the input, it
// decodes the re-packed GIF too, to the same size, frame count, delays and pixels (a 3-band
// decode read as opaque RGBA, since the pass may give a frame a transparent index). libvips
// (libnsgif) composes every frame after the one before is disposed, cleared (2) or restored to
// the canvas before it (3), as the pass's own canvas follows them: a frame it cuts or fills in
// wrongly, or a canvas it fails to restore, shows in the frame after. What a last frame's
// disposal leaves is never shown, and so not compared.
#include "fuzz_common.h"

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc;
    pmf_vips_start((*argv)[0]);
    return 0;
}

static VipsImage *load(const unsigned char *gif, size_t length) {
    VipsImage *image = NULL;
    if (vips_gifload_buffer((void *)gif, length, &image, "n", -1, "fail_on", VIPS_FAIL_ON_TRUNCATED, NULL)) return NULL;
    return image;
}

/// The first `frames` frames of `image` as RGBA bytes (g_free), or NULL when they do not decode.
static unsigned char *rgba_frames(VipsImage *image, int frames, size_t *size) {
    const int page = vips_image_get_page_height(image);
    unsigned char *bytes = pmf_rows(image, 0, frames * page, size);
    if (!bytes || image->Bands == 4) return bytes;
    if (image->Bands != 3) pmf_fail("libvips' gifload made %d bands", image->Bands);
    size_t pixels = *size / 3;
    unsigned char *wide = g_malloc(pixels * 4);
    for (size_t i = 0; i < pixels; i++)
        wide[4 * i] = bytes[3 * i], wide[4 * i + 1] = bytes[3 * i + 1], wide[4 * i + 2] = bytes[3 * i + 2],
        wide[4 * i + 3] = 255;
    g_free(bytes);
    *size = pixels * 4;
    return wide;
}

/// libvips' decodes of the input and of its re-packing must show the same frames.
static void compare_decodes(const uint8_t *data, size_t size, const unsigned char *repacked, size_t repacked_length) {
    VipsImage *before = load(data, size);
    if (!before) return; // libvips refuses the input: nothing to compare with
    VipsImage *after = load(repacked, repacked_length);
    if (!after) pmf_fail("libvips' gifload reads the input but not its re-packing: %s", vips_error_buffer());
    const int page = vips_image_get_page_height(before), frames = before->Ysize / page;
    if (after->Xsize != before->Xsize || vips_image_get_page_height(after) != page || after->Ysize != before->Ysize)
        pmf_fail("re-packing changed the size: %dx%d (page %d) became %dx%d (page %d)", before->Xsize, before->Ysize, page,
                 after->Xsize, after->Ysize, vips_image_get_page_height(after));
    int *delays_before = NULL, *delays_after = NULL, count_before = 0, count_after = 0;
    if (vips_image_get_typeof(before, "delay") == VIPS_TYPE_ARRAY_INT && vips_image_get_typeof(after, "delay") == VIPS_TYPE_ARRAY_INT &&
        !vips_image_get_array_int(before, "delay", &delays_before, &count_before) &&
        !vips_image_get_array_int(after, "delay", &delays_after, &count_after) &&
        (count_before != count_after || memcmp(delays_before, delays_after, sizeof(int) * (size_t)count_before) != 0))
        pmf_fail("re-packing changed the delays (%d frames, %d delays before, %d after)", frames, count_before,
                 count_after);
    const size_t frame_bytes = (size_t)before->Xsize * (size_t)page * 4;
    int kept = frames;
    if (frame_bytes * (size_t)frames > PMF_MAX_PIXEL_BYTES) kept = (int)VIPS_MAX(1, PMF_MAX_PIXEL_BYTES / frame_bytes);
    size_t a_size = 0, b_size = 0;
    unsigned char *a = rgba_frames(before, kept, &a_size);
    unsigned char *b = a ? rgba_frames(after, kept, &b_size) : NULL;
    if (a && !b) pmf_fail("libvips decodes the input's frames but not the re-packed ones: %s", vips_error_buffer());
    if (a && (a_size != b_size || memcmp(a, b, a_size) != 0)) {
        size_t at = pmf_first_difference(a, b, VIPS_MIN(a_size, b_size)), pixel = at / 4;
        pmf_fail("re-packing changed what is shown: frame %zu, x %zu, y %zu, band %zu: %d before, %d after (%dx%d, %d "
                 "frames)",
                 pixel / ((size_t)before->Xsize * page), pixel % (size_t)before->Xsize,
                 pixel / (size_t)before->Xsize % (size_t)page, at % 4, a[at], b[at], before->Xsize, page, frames);
    }
    g_free(a);
    g_free(b);
    g_object_unref(before);
    g_object_unref(after);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    pmf_planted_bug(data, size, 'G');
    vips_error_clear();
    unsigned char *repacked = (unsigned char *)1;
    size_t repacked_length = 12345;
    int status = pm_gif_repack(data, size, &repacked, &repacked_length);
    PMF_SAY("pm_gif_repack: %d, %zu -> %zu bytes\n", status, size, status == 0 ? repacked_length : 0);
    if (status == 1 || status == -1) {
        if (repacked || repacked_length) pmf_fail("pm_gif_repack returned %d with bytes", status);
        return 0;
    }
    if (status != 0 || !repacked) pmf_fail("pm_gif_repack returned %d", status);
    if (repacked_length >= size) pmf_fail("pm_gif_repack returned 0 with %zu bytes for %zu", repacked_length, size);

    unsigned char *again = NULL;
    size_t again_length = 0;
    int second = pm_gif_repack(repacked, repacked_length, &again, &again_length);
    if (second == -1) pmf_fail("giflib cannot read the re-packed GIF (%zu bytes)", repacked_length);
    free(again);

    compare_decodes(data, size, repacked, repacked_length);
    free(repacked);
    vips_error_clear();
    return 0;
}
