// A still JPEG decoded by libjpeg(-turbo) itself, scaled in its DCT (1/2, 1/4, 1/8, as libvips'
// shrink-on-load), and reduced to the size the plan needs as the rows come out of the decoder:
// each output row is summed down from a window of decoded rows, then reduced across (the
// pm_reduce_width loop) while it is still in cache; neither the decoded pixels nor a
// half-reduced image are ever in memory whole (a progressive file's coefficients are: libjpeg
// holds them all before the first row, as for libvips). libvips' path for the same pixels (its JPEG loader's pipeline, then
// reducev into memory) cost ~15 ms more a 12 MP photo than libjpeg's decode alone (region
// copies, its worker thread and the hand-offs to it, page faults of fresh buffers):
// docs/benchmarks/still-images.md, "A JPEG decoded by libjpeg directly".
//
// The caller sends here only what libvips' path would give as plain 8-bit sRGB or grey (it
// decides from the header libvips read); when libjpeg would make something else of the file
// than that header says, it returns 1 and the caller goes through libvips. Errors follow
// libvips' `fail_on=truncated`: a file that ends before its image does is an error
// ("premature end of JPEG image"), damaged data libjpeg can step over is not; what it stepped
// over is reported (pm_jpeg_damage) for the caller to judge. pm_jpeg_scan_damage gathers the
// same facts alone, for a JPEG that libvips decodes.
#include "CReduce.h"
#include "reduce_internal.h"

#include <errno.h>
#include <setjmp.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <jpeglib.h>
#include <jerror.h>

enum { pm_jpeg_read_size = 64 * 1024 };

// Reads the descriptor with pread from offset 0, so its own position (libvips' source) is untouched.
typedef struct {
    struct jpeg_source_mgr pub;
    int fd;
    off_t offset;
    JOCTET buffer[pm_jpeg_read_size];
} pm_jpeg_source;

typedef struct {
    struct jpeg_error_mgr pub;
    jmp_buf jump;
    char message[JMSG_LENGTH_MAX + 64];
    pm_jpeg_damage *damage;
} pm_jpeg_errors;

// libjpeg's progress hook, with the item's deadline: a progressive file is decoded whole by
// jpeg_start_decompress, before any row comes out to be checked.
typedef struct {
    struct jpeg_progress_mgr pub;
    pm_deadline deadline;
} pm_jpeg_progress;

static void pm_jpeg_fail(j_common_ptr cinfo, const char *message) {
    pm_jpeg_errors *errors = (pm_jpeg_errors *)cinfo->err;
    snprintf(errors->message, sizeof errors->message, "%s", message);
    longjmp(errors->jump, 1);
}

static void pm_jpeg_error_exit(j_common_ptr cinfo) {
    pm_jpeg_errors *errors = (pm_jpeg_errors *)cinfo->err;
    char text[JMSG_LENGTH_MAX];
    (*cinfo->err->format_message)(cinfo, text);
    snprintf(errors->message, sizeof errors->message, "%s", text);
    longjmp(errors->jump, 1);
}

// libjpeg's messages (warnings about damaged data it steps over) are not printed.
static void pm_jpeg_output_message(j_common_ptr cinfo) { (void)cinfo; }

// Each warning is counted (the first kept in words), and where a scan's compressed data ran out
// (libjpeg then hit a marker and fills the rest of the scan with grey): the fewest iMCU rows any
// scan had data for. Trace messages (level >= 0) are ignored.
static void pm_jpeg_emit_message(j_common_ptr cinfo, int level) {
    if (level >= 0) return;
    pm_jpeg_errors *errors = (pm_jpeg_errors *)cinfo->err;
    pm_jpeg_damage *damage = errors->damage;
    cinfo->err->num_warnings++;
    if (!damage || !cinfo->is_decompressor) return;
    const j_decompress_ptr decompress = (j_decompress_ptr)cinfo;
    if (damage->warnings++ == 0) (*cinfo->err->format_message)(cinfo, damage->first_warning);
    if (cinfo->err->msg_code == JWRN_HIT_MARKER && (int)decompress->input_iMCU_row < damage->rows_with_data) {
        damage->rows_with_data = (int)decompress->input_iMCU_row;
    }
}

static void pm_jpeg_damage_start(pm_jpeg_damage *damage) {
    if (!damage) return;
    memset(damage, 0, sizeof *damage);
    damage->rows_with_data = INT32_MAX;
}

// Called once the header is read: the image's iMCU rows are known.
static void pm_jpeg_damage_rows(pm_jpeg_damage *damage, j_decompress_ptr cinfo) {
    if (!damage) return;
    damage->width = (int)cinfo->image_width;
    damage->height = (int)cinfo->image_height;
    damage->rows = (int)cinfo->total_iMCU_rows;
}

// The rows a scan ran out at, never more than the image's.
static void pm_jpeg_damage_finish(pm_jpeg_damage *damage) {
    if (damage && damage->rows_with_data > damage->rows) damage->rows_with_data = damage->rows;
}


static void pm_jpeg_progress_monitor(j_common_ptr cinfo) {
    const pm_jpeg_progress *progress = (const pm_jpeg_progress *)cinfo->progress;
    if (pm_deadline_passed(progress->deadline)) pm_jpeg_fail(cinfo, "stopped: the item's time ran out");
}

static void pm_jpeg_init_source(j_decompress_ptr cinfo) { (void)cinfo; }

static boolean pm_jpeg_fill_input_buffer(j_decompress_ptr cinfo) {
    pm_jpeg_source *source = (pm_jpeg_source *)cinfo->src;
    ssize_t count;
    do {
        count = pread(source->fd, source->buffer, sizeof source->buffer, source->offset);
    } while (count < 0 && errno == EINTR);
    if (count < 0) pm_jpeg_fail((j_common_ptr)cinfo, strerror(errno));
    if (count == 0) pm_jpeg_fail((j_common_ptr)cinfo, "premature end of JPEG image");
    source->offset += count;
    source->pub.next_input_byte = source->buffer;
    source->pub.bytes_in_buffer = (size_t)count;
    return TRUE;
}

static void pm_jpeg_skip_input_data(j_decompress_ptr cinfo, long count) {
    pm_jpeg_source *source = (pm_jpeg_source *)cinfo->src;
    if (count <= 0) return;
    if ((size_t)count <= source->pub.bytes_in_buffer) {
        source->pub.next_input_byte += count;
        source->pub.bytes_in_buffer -= (size_t)count;
        return;
    }
    source->offset += count - (long)source->pub.bytes_in_buffer;
    source->pub.bytes_in_buffer = 0;
}

static void pm_jpeg_term_source(j_decompress_ptr cinfo) { (void)cinfo; }

int pm_jpeg_decode_reduced(int fd, const VipsImage *like, int shrink, int out_width, int out_height,
                           pm_deadline deadline, int allow_vector, VipsImage **out, pm_jpeg_damage *damage,
                           char *message, size_t message_size) {
    if (message && message_size) message[0] = 0;
    pm_jpeg_damage_start(damage);
    if (!(shrink == 1 || shrink == 2 || shrink == 4 || shrink == 8) || out_height < 1 || out_height > like->Ysize ||
        like->Ysize > out_height * PM_REDUCE_MOST || out_width < 1 || out_width > like->Xsize ||
        like->Xsize > out_width * PM_REDUCE_MOST || like->BandFmt != VIPS_FORMAT_UCHAR ||
        !(like->Bands == 1 || like->Bands == 3)) {
        if (message && message_size) snprintf(message, message_size, "not a decode this path makes");
        return -1;
    }
    if (pm_deadline_passed(deadline)) {
        if (message && message_size) snprintf(message, message_size, "stopped: the item's time ran out");
        return -1;
    }

    struct jpeg_decompress_struct cinfo;
    memset(&cinfo, 0, sizeof cinfo); // jpeg_destroy_decompress is safe even if creating it failed
    pm_jpeg_errors errors;
    pm_jpeg_progress progress = {.pub = {.progress_monitor = pm_jpeg_progress_monitor}, .deadline = deadline};
    pm_jpeg_source *source = g_new0(pm_jpeg_source, 1);
    // Everything a longjmp must free, in volatile storage (setjmp's rule).
    VipsImage *volatile result = NULL;
    uint8_t *volatile ring = NULL;
    int *volatile first = NULL;
    int16_t *volatile weights = NULL;
    const uint8_t **volatile rows = NULL;
    uint8_t *volatile tall = NULL;
    volatile int across_planned = 0;
    pm_width_plan across;
    volatile int status = 0;

    cinfo.err = jpeg_std_error(&errors.pub);
    errors.pub.error_exit = pm_jpeg_error_exit;
    errors.pub.output_message = pm_jpeg_output_message;
    errors.pub.emit_message = pm_jpeg_emit_message;
    errors.message[0] = 0;
    errors.damage = damage;
    if (setjmp(errors.jump)) {
        if (message && message_size) snprintf(message, message_size, "%s", errors.message);
        status = -1;
        goto done;
    }
    jpeg_create_decompress(&cinfo);
    source->fd = fd;
    source->pub.init_source = pm_jpeg_init_source;
    source->pub.fill_input_buffer = pm_jpeg_fill_input_buffer;
    source->pub.skip_input_data = pm_jpeg_skip_input_data;
    source->pub.resync_to_restart = jpeg_resync_to_restart;
    source->pub.term_source = pm_jpeg_term_source;
    cinfo.src = &source->pub;
    cinfo.progress = &progress.pub;
    jpeg_read_header(&cinfo, TRUE);
    cinfo.scale_num = 1;
    cinfo.scale_denom = (unsigned)shrink;
    jpeg_calc_output_dimensions(&cinfo);
    pm_jpeg_damage_rows(damage, &cinfo);
    // What libvips read must be what libjpeg makes here, else libvips decides. libjpeg rounds a
    // scaled size up, libvips down (the stored size over the shrink), cutting the last column
    // and row off: so do we.
    const int components = like->Bands;
    if ((int)(cinfo.image_width / (unsigned)shrink) != like->Xsize ||
        (int)(cinfo.image_height / (unsigned)shrink) != like->Ysize || (int)cinfo.output_width < like->Xsize ||
        (int)cinfo.output_height < like->Ysize || cinfo.output_components != components ||
        cinfo.out_color_space != (components == 3 ? JCS_RGB : JCS_GRAYSCALE)) {
        status = 1;
        goto done;
    }

    const int width = like->Xsize, height = like->Ysize;
    const size_t row_bytes = (size_t)width * (size_t)components;
    const size_t decoded_bytes = (size_t)cinfo.output_width * (size_t)components;
    result = pm_reduced_image_new(like, out_width, out_height);
    if (!result) {
        snprintf(errors.message, sizeof errors.message, "cannot allocate the decoded image");
        longjmp(errors.jump, 1);
    }

    jpeg_start_decompress(&cinfo);
    const int taps = out_height < height ? pm_reduce_taps(height, out_height) : 1;
    first = g_new(int, out_height);
    weights = g_new(int16_t, (size_t)out_height * (size_t)taps);
    if (out_height < height) {
        pm_reduce_weights(height, out_height, taps, (int *)first, (int16_t *)weights);
    } else {
        for (int y = 0; y < out_height; y++) first[y] = y, weights[y] = 1 << pm_weight_bits;
    }
    // The rows of the current window: input row r lives in slot r % taps (windows only move down).
    ring = g_malloc(decoded_bytes * (size_t)taps);
    rows = g_new(const uint8_t *, taps);
    // A row summed down waits here to be reduced across (when the width changes).
    if (out_width < width) {
        tall = g_malloc(row_bytes);
        pm_width_plan_init(&across, width, out_width, components, allow_vector);
        across_planned = 1;
    }
#if defined(__x86_64__)
    const int vector = pm_reduce_rows_vector(allow_vector);
#else
    const int vector = 0;
#endif
    int decoded = 0;
    for (int y = 0; y < out_height; y++) {
        if ((y & 15) == 0 && pm_deadline_passed(deadline)) {
            snprintf(errors.message, sizeof errors.message, "stopped: the item's time ran out");
            longjmp(errors.jump, 1);
        }
        while (decoded < first[y] + taps) {
            JSAMPROW slot = ring + decoded_bytes * (size_t)(decoded % taps);
            if (jpeg_read_scanlines(&cinfo, &slot, 1) != 1) {
                snprintf(errors.message, sizeof errors.message, "the decoder returned no row %d", decoded);
                longjmp(errors.jump, 1);
            }
            decoded++;
        }
        uint8_t *to = VIPS_IMAGE_ADDR(result, 0, y);
        uint8_t *down = tall ? tall : to;
        if (taps == 1) {
            memcpy(down, ring + decoded_bytes * (size_t)(first[y] % taps), row_bytes);
        } else {
            for (int t = 0; t < taps; t++) rows[t] = ring + decoded_bytes * (size_t)((first[y] + t) % taps);
            pm_reduce_rows(rows, (const int16_t *)weights + (size_t)y * (size_t)taps, taps, (int)row_bytes, down, vector);
        }
        if (tall) pm_reduce_width_row(&across, tall, to);
    }
    // The rows below the last window (and the one libvips cuts off) must be there too: a file
    // that ends before its last row is an error, as in libvips. (Nothing is asked for after the
    // last row, though libjpeg reads ahead into what follows: in practice a file missing its
    // end-of-image marker fails in both paths.)
    while (cinfo.output_scanline < cinfo.output_height) {
        JSAMPROW slot = ring;
        jpeg_read_scanlines(&cinfo, &slot, 1);
    }

done:
    pm_jpeg_damage_finish(damage);
    jpeg_destroy_decompress(&cinfo);
    g_free(source);
    g_free(ring);
    g_free(first);
    g_free(weights);
    g_free(rows);
    g_free(tall);
    if (across_planned) pm_width_plan_free(&across);
    if (status == 0) {
        *out = result;
    } else if (result) {
        g_object_unref(result);
    }
    return status;
}

int pm_jpeg_scan_damage(int fd, pm_deadline deadline, pm_jpeg_damage *damage, char *message, size_t message_size) {
    if (message && message_size) message[0] = 0;
    pm_jpeg_damage_start(damage);
    struct jpeg_decompress_struct cinfo;
    memset(&cinfo, 0, sizeof cinfo);
    pm_jpeg_errors errors;
    pm_jpeg_progress progress = {.pub = {.progress_monitor = pm_jpeg_progress_monitor}, .deadline = deadline};
    pm_jpeg_source *source = g_new0(pm_jpeg_source, 1);
    JSAMPLE *volatile row = NULL;
    volatile int status = 0;

    cinfo.err = jpeg_std_error(&errors.pub);
    errors.pub.error_exit = pm_jpeg_error_exit;
    errors.pub.output_message = pm_jpeg_output_message;
    errors.pub.emit_message = pm_jpeg_emit_message;
    errors.message[0] = 0;
    errors.damage = damage;
    if (setjmp(errors.jump)) {
        if (message && message_size) snprintf(message, message_size, "%s", errors.message);
        status = -1;
        goto done;
    }
    jpeg_create_decompress(&cinfo);
    source->fd = fd;
    source->pub.init_source = pm_jpeg_init_source;
    source->pub.fill_input_buffer = pm_jpeg_fill_input_buffer;
    source->pub.skip_input_data = pm_jpeg_skip_input_data;
    source->pub.resync_to_restart = jpeg_resync_to_restart;
    source->pub.term_source = pm_jpeg_term_source;
    cinfo.src = &source->pub;
    cinfo.progress = &progress.pub;
    jpeg_read_header(&cinfo, TRUE);
    // Every coefficient is still entropy-decoded (that is where damage shows), but the DCT at
    // 1/8 and no colour conversion make each block's pixels nearly free.
    cinfo.scale_num = 1;
    cinfo.scale_denom = 8;
    cinfo.out_color_space = cinfo.jpeg_color_space;
    cinfo.dct_method = JDCT_IFAST;
    cinfo.do_fancy_upsampling = FALSE;
    jpeg_calc_output_dimensions(&cinfo);
    pm_jpeg_damage_rows(damage, &cinfo);
    jpeg_start_decompress(&cinfo);
    row = g_malloc((size_t)cinfo.output_width * (size_t)cinfo.output_components);
    while (cinfo.output_scanline < cinfo.output_height) {
        if ((cinfo.output_scanline & 15) == 0 && pm_deadline_passed(deadline)) {
            pm_jpeg_fail((j_common_ptr)&cinfo, "stopped: the item's time ran out");
        }
        JSAMPROW slot = row;
        if (jpeg_read_scanlines(&cinfo, &slot, 1) != 1) {
            pm_jpeg_fail((j_common_ptr)&cinfo, "the decoder returned no row");
        }
    }

done:
    pm_jpeg_damage_finish(damage);
    jpeg_destroy_decompress(&cinfo);
    g_free(source);
    g_free(row);
    return status;
}
