// Harness gif_load: PushMedia's GIF decoder (pm_gif_open, pm_gif_load: gif_read.c,
// gif_read_scan.c, gif_lzw.c) on any bytes, checked against libvips' own loader.
//
// The input is written to a file and opened by pm_gif_open. A file it takes (0) is decoded
// whole (up to PMF_MAX_PIXEL_BYTES of frames) and then frame by frame out of order (last,
// first, middle: the restarts and the previous-frame copy), and the same file is opened by
// libvips' gifload (n=-1, fail_on=truncated, as PushMedia's fallback opens it). Where libvips
// takes the file too, the two must agree: the same width, page height, frame count and bands,
// the same delays and loop, the same pixel bytes, and the same outcome (both decode, or both
// fail). A frame read alone
// must be the same bytes as in the whole decode. Any difference aborts with a message.
#include "fuzz_common.h"

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc;
    pmf_vips_start((*argv)[0]);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    pmf_planted_bug(data, size, 'G');
    vips_error_clear();
    const char *path = pmf_write_file(data, size, ".gif");

    pm_gif_file *file = NULL;
    pm_gif_facts facts;
    const int max_frames = 4096;
    int status = pm_gif_open(path, max_frames, &file, &facts);
    PMF_SAY("pm_gif_open: %d%s, %ld frames of %.0f pixels\n", status, status == 0 ? "" : " (declined, refused or failed)",
            facts.frames, facts.coded_pixels);
    if (status == 2 && facts.frames <= max_frames) pmf_fail("pm_gif_open refused %ld frames", facts.frames);
    if (facts.frames < 0 || facts.coded_pixels < 0) pmf_fail("pm_gif_open's facts are impossible");
    if (status == 1 || status == 2 || status == -1) {
        if (file) pmf_fail("pm_gif_open returned %d and a file", status);
        return 0;
    }
    if (status != 0 || !file) pmf_fail("pm_gif_open returned %d (file %p)", status, (void *)file);
    pm_gif_info info;
    pm_gif_file_info(file, &info);
    if (facts.frames != info.frames || facts.screen_width != info.width || facts.screen_height != info.height)
        pmf_fail("pm_gif_open's facts (%ld frames, %dx%d) are not the file's (%d, %dx%d)", facts.frames, facts.screen_width,
                 facts.screen_height, info.frames, info.width, info.height);
    int *delays = g_new(int, info.frames);
    pm_gif_file_delays(file, delays);
    VipsImage *mine = NULL;
    status = pm_gif_load(file, &mine);
    pm_gif_file_unref(file); // the image holds its own reference
    if (status != 0 || !mine) pmf_fail("pm_gif_load returned %d (image %p): %s", status, (void *)mine, vips_error_buffer());

    const int width = mine->Xsize, page = vips_image_get_page_height(mine), bands = mine->Bands;
    if (width < 1 || page < 1 || mine->Ysize % page != 0 || (bands != 3 && bands != 4) ||
        mine->BandFmt != VIPS_FORMAT_UCHAR)
        pmf_fail("pm_gif_load made %dx%d (page height %d), %d bands, format %d", width, mine->Ysize, page, bands,
                 (int)mine->BandFmt);
    const int frames = mine->Ysize / page;
    const size_t frame_bytes = (size_t)width * (size_t)page * (size_t)bands;
    // Frames 0 … kept − 1 are compared (all of them unless that would be too many bytes).
    int kept = frames;
    if (frame_bytes * (size_t)frames > PMF_MAX_PIXEL_BYTES) kept = (int)VIPS_MAX(1, PMF_MAX_PIXEL_BYTES / frame_bytes);

    size_t own_size = 0;
    unsigned char *own = pmf_rows(mine, 0, kept * page, &own_size);
    if (own && own_size != frame_bytes * (size_t)kept) pmf_fail("pm_gif_load: %zu bytes for %d frames", own_size, kept);
    vips_error_clear();

    // libvips' loader, as PushMedia's fallback opens it.
    VipsImage *ref = NULL;
    if (vips_gifload(path, &ref, "n", -1, "fail_on", VIPS_FAIL_ON_TRUNCATED, NULL) == 0) {
        const int ref_page = vips_image_get_page_height(ref);
        if (ref->Xsize != width || ref_page != page || ref->Ysize != mine->Ysize || ref->Bands != bands)
            pmf_fail("size differs: pm_gif_load %dx%d page %d, %d bands; libvips %dx%d page %d, %d bands", width,
                     mine->Ysize, page, bands, ref->Xsize, ref->Ysize, ref_page, ref->Bands);
        if (info.width != width || info.height != page || info.frames != frames || info.bands != bands)
            pmf_fail("pm_gif_file_info says %dx%d, %d frames, %d bands; pm_gif_load made %dx%d, %d frames, %d bands",
                     info.width, info.height, info.frames, info.bands, width, page, frames, bands);
        int ref_loop = -1, *ref_delays = NULL, ref_delay_count = 0;
        vips_image_get_int(ref, "loop", &ref_loop);
        if (ref_loop != info.loop) pmf_fail("loop differs: libvips %d, pm_gif_file_info %d", ref_loop, info.loop);
        if (vips_image_get_array_int(ref, "delay", &ref_delays, &ref_delay_count) || ref_delay_count != frames)
            pmf_fail("libvips' delay: %d entries for %d frames", ref_delay_count, frames);
        for (int i = 0; i < frames; i++)
            if (ref_delays[i] != delays[i])
                pmf_fail("delay of frame %d differs: libvips %d, pm_gif_file_delays %d", i, ref_delays[i], delays[i]);
        size_t ref_size = 0;
        unsigned char *expected = pmf_rows(ref, 0, kept * page, &ref_size);
        if (expected && own) {
            if (ref_size != own_size || memcmp(expected, own, own_size) != 0) {
                size_t at = pmf_first_difference(expected, own, VIPS_MIN(own_size, ref_size));
                size_t pixel = at / (size_t)bands;
                pmf_fail("pixels differ from libvips' gifload: frame %zu, x %zu, y %zu, band %zu: libvips %d, "
                         "pm_gif_load %d (%dx%d, %d frames, %d bands)",
                         pixel / ((size_t)width * page), pixel % (size_t)width, pixel / (size_t)width % (size_t)page,
                         at % (size_t)bands, expected[at], own[at], width, page, frames, bands);
            }
        } else if (expected || own) {
            pmf_fail("outcome differs: libvips' gifload %s, pm_gif_load %s (%d frames compared): %s",
                     expected ? "decodes" : "fails", own ? "decodes" : "fails", kept, vips_error_buffer());
        }
        g_free(expected);
        g_object_unref(ref);
    }
    g_free(delays);
    vips_error_clear();

    // Frames read alone, out of order: each must be its bytes in the whole decode.
    if (own) {
        const int order[] = {kept - 1, 0, kept / 2, kept / 2 - 1, kept - 1};
        for (size_t i = 0; i < sizeof order / sizeof order[0]; i++) {
            const int n = order[i];
            if (n < 0) continue;
            size_t alone_size = 0;
            unsigned char *alone = pmf_rows(mine, n * page, page, &alone_size);
            if (!alone) pmf_fail("frame %d read alone fails (%s), but decodes in order", n, vips_error_buffer());
            if (alone_size != frame_bytes || memcmp(alone, own + frame_bytes * (size_t)n, frame_bytes) != 0)
                pmf_fail("frame %d read alone (after frame %d) differs from the whole decode", n,
                         i ? order[i - 1] : -1);
            g_free(alone);
        }
    }
    g_free(own);
    g_object_unref(mine);
    vips_error_clear();
    return 0;
}
