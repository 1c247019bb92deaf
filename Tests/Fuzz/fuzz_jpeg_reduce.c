// Harness jpeg_reduce: the still-JPEG decode and reduce (pm_jpeg_decode_reduced: CReduce's
// jpeg_reduce.c and reduce_lanczos.c, CResample) on any bytes.
//
// As PushMedia calls it: libvips' jpegload opens the file first (its header, with the shrink),
// and only an 8-bit sRGB (3 bands) or B_W (1 band) image goes on. The shrink (1, 2, 4 or 8, no
// larger than the shorter side, as PushMedia's shrinkFactor keeps it) and the output size (from
// the image's size down to a 16th of it on each side) follow a hash of the input, so mutations
// try other ones. No deadline.
//
// Checks: the plain C loops (allow_vector 0) and the vector ones (1) give the same status and,
// on 0, the same image, byte for byte; an output of the image's own size (no reduction) is the
// decoded pixels, so it must be what libvips' jpegload decodes with the same shrink, where that
// decodes without a libjpeg warning (fail_on=warning); a status is 0, 1 or -1, and -1 comes with
// a message; the damage facts (and those of pm_jpeg_scan_damage on the same file) stay within
// their bounds, and the plain and vector loops report the same ones.
#include "fuzz_common.h"

#include <fcntl.h>

/// JPEGs larger than this (before the shrink) are left alone: a few bytes can declare 65535²
/// pixels, and the sanitized reduce loops take about a second a megapixel; the sizes where
/// loops go wrong (edges, odd widths, every vector step) are all below it.
#define PMF_JPEG_MAX_PIXELS ((int64_t)1 << 18)

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc;
    pmf_vips_start((*argv)[0]);
    return 0;
}

/// The damage facts are within their bounds: rows with data at most the image's rows, the first
/// warning terminated and there exactly when a warning was counted.
static void check_damage(const char *what, const pm_jpeg_damage *damage) {
    if (damage->rows < 0 || damage->rows_with_data < 0 || damage->rows_with_data > damage->rows ||
        damage->warnings < 0 || damage->width < 0 || damage->height < 0)
        pmf_fail("%s: damage out of bounds: %d of %d rows with data, %d warnings, %dx%d", what, damage->rows_with_data,
                 damage->rows, damage->warnings, damage->width, damage->height);
    if (!memchr(damage->first_warning, 0, sizeof damage->first_warning))
        pmf_fail("%s left the first warning unterminated", what);
    if ((damage->warnings > 0) != (damage->first_warning[0] != 0))
        pmf_fail("%s counted %d warnings, first \"%s\"", what, damage->warnings, damage->first_warning);
}

static int decode(int fd, VipsImage *like, int shrink, int width, int height, int allow_vector, VipsImage **out,
                  pm_jpeg_damage *damage) {
    char message[256];
    memset(message, 'x', sizeof message);
    memset(damage, 'x', sizeof *damage);
    *out = NULL;
    int status = pm_jpeg_decode_reduced(fd, like, shrink, width, height, (pm_deadline){0}, allow_vector, out, damage,
                                        message, sizeof message);
    check_damage("pm_jpeg_decode_reduced", damage);
    if (status != 0 && status != 1 && status != -1) pmf_fail("pm_jpeg_decode_reduced returned %d", status);
    if ((status == 0) != (*out != NULL)) pmf_fail("pm_jpeg_decode_reduced returned %d, image %p", status, (void *)*out);
    if (!memchr(message, 0, sizeof message)) pmf_fail("pm_jpeg_decode_reduced left its message unterminated");
    if (status == -1 && !message[0]) pmf_fail("pm_jpeg_decode_reduced returned -1 without a message");
    if (status == 0 && ((*out)->Xsize != width || (*out)->Ysize != height || (*out)->Bands != like->Bands ||
                        (*out)->BandFmt != VIPS_FORMAT_UCHAR))
        pmf_fail("pm_jpeg_decode_reduced made %dx%d, %d bands, for %dx%d, %d bands", (*out)->Xsize, (*out)->Ysize,
                 (*out)->Bands, width, height, like->Bands);
    PMF_SAY("pm_jpeg_decode_reduced(shrink %d, %dx%d from %dx%d, %d bands, vector %d): %d %s\n", shrink, width, height,
            like->Xsize, like->Ysize, like->Bands, allow_vector, status, message);
    return status;
}

/// A size from `size` down to ceil(size / 16), picked by `pick`: the same size, the smallest, or
/// one between.
static int pick_size(int size, unsigned pick) {
    const int smallest = (size + 15) / 16;
    switch (pick % 4) {
    case 0: return size;
    case 1: return smallest;
    default: return smallest + (int)((pick >> 2) % (unsigned)(size - smallest + 1));
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    pmf_planted_bug(data, size, 0xff);
    vips_error_clear();
    const char *path = pmf_write_file(data, size, ".jpg");

    // The stored size: PushMedia's shrinkFactor never picks a factor above the shorter side
    // (libvips aborts on such an image), nor does this harness.
    VipsImage *header = NULL;
    if (vips_jpegload(path, &header, "fail_on", VIPS_FAIL_ON_TRUNCATED, NULL)) return 0;
    const int stored_width = header->Xsize, stored_height = header->Ysize;
    g_object_unref(header);
    if ((int64_t)stored_width * stored_height > PMF_JPEG_MAX_PIXELS) return 0;
    const uint64_t hash = pmf_hash(data, size);
    int shrink = 1 << (hash % 4);
    while (shrink > 1 && shrink > VIPS_MIN(stored_width, stored_height)) shrink /= 2;

    VipsImage *like = NULL;
    if (vips_jpegload(path, &like, "shrink", shrink, "fail_on", VIPS_FAIL_ON_TRUNCATED, NULL)) {
        vips_error_clear();
        return 0;
    }
    const bool plain = like->BandFmt == VIPS_FORMAT_UCHAR && like->Coding == VIPS_CODING_NONE &&
                       ((like->Bands == 3 && like->Type == VIPS_INTERPRETATION_sRGB) ||
                        (like->Bands == 1 && like->Type == VIPS_INTERPRETATION_B_W));
    if (!plain || like->Xsize < 1 || like->Ysize < 1) {
        PMF_SAY("not plain 8-bit sRGB or grey: %d bands, format %d, type %d\n", like->Bands, (int)like->BandFmt,
                (int)like->Type);
        g_object_unref(like);
        return 0;
    }
    const int width = pick_size(like->Xsize, (unsigned)(hash >> 8)), height = pick_size(like->Ysize, (unsigned)(hash >> 24));

    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) pmf_fail("cannot open %s", path);
    VipsImage *plain_out = NULL, *vector_out = NULL;
    pm_jpeg_damage plain_damage, vector_damage, scanned;
    const int plain_status = decode(fd, like, shrink, width, height, 0, &plain_out, &plain_damage);
    const int vector_status = decode(fd, like, shrink, width, height, 1, &vector_out, &vector_damage);
    // The facts alone, as PushMedia gathers them for a JPEG libvips decodes.
    char scan_message[256];
    memset(scan_message, 'x', sizeof scan_message);
    memset(&scanned, 'x', sizeof scanned);
    const int scan_status = pm_jpeg_scan_damage(fd, (pm_deadline){0}, &scanned, scan_message, sizeof scan_message);
    check_damage("pm_jpeg_scan_damage", &scanned);
    if ((scan_status != 0 && scan_status != -1) || !memchr(scan_message, 0, sizeof scan_message) ||
        (scan_status == -1 && !scan_message[0]))
        pmf_fail("pm_jpeg_scan_damage returned %d, message \"%.40s\"", scan_status, scan_message);
    PMF_SAY("pm_jpeg_scan_damage: %d %s (%d of %d rows with data, %d warnings)\n", scan_status, scan_message,
            scanned.rows_with_data, scanned.rows, scanned.warnings);
    close(fd);
    if (plain_status != vector_status)
        pmf_fail("status differs: plain loops %d, vector loops %d (shrink %d, %dx%d to %dx%d)", plain_status,
                 vector_status, shrink, like->Xsize, like->Ysize, width, height);
    if (plain_status == 0 && memcmp(&plain_damage, &vector_damage, offsetof(pm_jpeg_damage, first_warning)) != 0)
        pmf_fail("damage differs: plain loops %d of %d rows with data, %d warnings; vector loops %d of %d, %d",
                 plain_damage.rows_with_data, plain_damage.rows, plain_damage.warnings, vector_damage.rows_with_data,
                 vector_damage.rows, vector_damage.warnings);
    if (plain_status == 0) {
        size_t plain_size = 0, vector_size = 0;
        unsigned char *a = pmf_pixels(plain_out, &plain_size), *b = pmf_pixels(vector_out, &vector_size);
        if (!a || !b) pmf_fail("the decoded images cannot be read: %s", vips_error_buffer());
        if (plain_size != vector_size || memcmp(a, b, plain_size) != 0) {
            size_t at = pmf_first_difference(a, b, VIPS_MIN(plain_size, vector_size));
            pmf_fail("plain and vector loops differ at byte %zu (x %zu, y %zu, band %zu): %d and %d (shrink %d, %dx%d "
                     "to %dx%d, %d bands)",
                     at, at / (size_t)like->Bands % (size_t)width, at / ((size_t)like->Bands * width),
                     at % (size_t)like->Bands, a[at], b[at], shrink, like->Xsize, like->Ysize, width, height, like->Bands);
        }
        VipsImage *strict = NULL;
        if (width == like->Xsize && height == like->Ysize &&
            !vips_jpegload(path, &strict, "shrink", shrink, "fail_on", VIPS_FAIL_ON_WARNING, NULL)) {
            // Nothing reduced: the decoded pixels, which libvips' loader decodes the same way, for
            // clean data. (Where libjpeg warns, damaged data, libjpeg-turbo's pixels depend on
            // how its source hands it the bytes: its fast Huffman path runs only while a whole
            // MCU's worth is buffered. libvips hands it a few KB at a time, PushMedia 64 KB: other
            // pixels from one libjpeg, so libvips with fail_on=warning is the reference.)
            size_t ref_size = 0;
            unsigned char *ref = pmf_pixels(strict, &ref_size);
            if (ref && (ref_size != plain_size || memcmp(ref, a, plain_size) != 0)) {
                size_t at = pmf_first_difference(ref, a, VIPS_MIN(ref_size, plain_size));
                pmf_fail("unreduced pixels differ from libvips' jpegload at byte %zu: %d and %d (shrink %d, %dx%d, %d "
                         "bands)",
                         at, ref[at], a[at], shrink, width, height, like->Bands);
            }
            g_free(ref);
            g_object_unref(strict);
        }
        vips_error_clear();
        g_free(a);
        g_free(b);
        g_object_unref(plain_out);
        g_object_unref(vector_out);
    }
    g_object_unref(like);
    vips_error_clear();
    return 0;
}
