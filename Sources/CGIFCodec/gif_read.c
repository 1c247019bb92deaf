// PushMedia's GIF decoder: an animated GIF as a lazy libvips image of its frames stacked top to
// bottom (what libvips' gifload makes with n=-1), decoded a frame at a time as the consumer's
// rows ask for it.
//
// Why: libvips' loader (libnsgif) hands every frame over as a whole new RGBA canvas, and
// for the small, mostly unchanging frames of a push animation that per-frame work was the whole
// cost (0.36 s of CPU to read a 960×480 screen recording of 150 frames that decodes in under
// 10 ms here; 1.4 s for a 1200×1200 badge of 200 frames). Here a frame costs its own rectangle:
// its LZW codes are decoded into indices and only its pixels are drawn on the canvas.
//
// The pixels are libnsgif's (libvips' loader) exactly: the canvas starts see-through
// (0,0,0,0); before frame n, frame n−1's disposal applies (2: its rectangle see-through when it
// has a transparent index, else the background colour; 3 or 4: the canvas as it was before
// frame n−1); a frame's transparent index leaves the canvas as it is; indices beyond a table
// read the 256-entry table as libnsgif keeps it (a local table persists across frames; a
// missing global table is black and white); a frame whose data ends early draws what it has
// (libnsgif's quirks included: an end code straight after a clear fails, and a last code
// ending exactly where the data ends is dropped).
// Three bands when no frame has a transparent index, four otherwise. Tests compare every pixel
// of every frame with libvips' loader.
//
// Only plain files are taken (gif_read_scan.c walks the file's blocks first); the caller falls
// back to libvips for anything else (return 1): a frame reaching outside the picture, a
// truncated or malformed block structure, a code size outside 2…11, a size libnsgif would
// change; and it refuses (return 2) more frames than the caller allows.
//
// Memory: the file (mapped), the canvas (4 bytes a pixel), a frame's indices (1 byte a pixel)
// and LZW data, the canvas before a frame with disposal 3 when there is one, and the previous
// frame's pixels where the current one differs (so two threads reading neighbouring frames do
// not restart the decode): never frames × pixels. Requests for an earlier frame decode again from the start.
#include "CGIFCodec.h"
#include "gif_decoder.h"

_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "generate packs RGBA into RGB words");

#include <stdlib.h>
#include <string.h>

/// Decodes a frame's LZW data into r->indices (at most width × height): its sub-blocks gathered
/// without their headers, then gif_lzw_decode. Returns the indices decoded, or -1.
static long decode_indices(gif_reader *r, const gifd_frame *frame) {
    const unsigned char *f = r->file;
    size_t bytes = 0;
    // The blocks as scanned; bounded again in case the file was rewritten since.
    for (size_t at = frame->data + 1; at < r->length && f[at] && at + 1 + f[at] <= r->length && bytes + f[at] <= frame->bytes;
         at += 1 + f[at]) {
        memcpy(r->packed + bytes, f + at + 1, f[at]);
        bytes += f[at];
    }
    memset(r->packed + bytes, 0, 8);
    return gif_lzw_decode(r->packed, bytes, f[frame->data], r->indices, (size_t)frame->width * (size_t)frame->height,
                           &r->strings);
}

/// The rows of a frame in the order its data holds them (interlaced: every 8th from 0, every
/// 8th from 4, every 4th from 2, every 2nd from 1).
static int row_of(const gifd_frame *frame, int line) {
    if (!frame->interlaced) return line;
    const int h = frame->height;
    int pass = (h + 7) / 8;
    if (line < pass) return line * 8;
    line -= pass, pass = (h + 3) / 8;
    if (line < pass) return 4 + line * 8;
    line -= pass, pass = (h + 1) / 4;
    if (line < pass) return 2 + line * 4;
    return 1 + (line - pass) * 2;
}

static void fill_rect(gif_reader *r, const gifd_frame *frame, uint32_t colour) {
    for (int y = 0; y < frame->height; y++) {
        uint32_t *row = r->canvas + (size_t)(frame->top + y) * (size_t)r->width + frame->left;
        for (int x = 0; x < frame->width; x++) row[x] = colour;
    }
}

/// Copies `rect` of the canvas into `to` (rect-sized rows).
static void copy_out(const gif_reader *r, const VipsRect *rect, uint32_t *to) {
    for (int y = 0; y < rect->height; y++)
        memcpy(to + (size_t)y * rect->width, r->canvas + (size_t)(rect->top + y) * r->width + rect->left,
               (size_t)rect->width * 4);
}

/// Draws frame `n` on the canvas, which shows frame n − 1 (or nothing for n = 0), keeping what
/// it changes in `undo`. 0, or -1 with a libvips error.
static int draw(gif_reader *r, int n) {
    const gifd_frame *frame = &r->frames[n];
    VipsRect changed = {frame->left, frame->top, frame->width, frame->height};
    if (n == 0) {
        memset(r->canvas, 0, (size_t)r->width * (size_t)r->height * 4);
        r->dirty = (VipsRect){0, 0, r->width, r->height};
        memset(r->local, 0, sizeof r->local); // libnsgif's starts zeroed: an earlier pass must not leak in
        r->has_saved = false;
        r->undo_rect = (VipsRect){0, 0, 0, 0};
    } else {
        const gifd_frame *before = &r->frames[n - 1];
        VipsRect disposed = {before->left, before->top, before->width, before->height};
        if (before->disposal == 2 || before->disposal == 3) vips_rect_unionrect(&changed, &disposed, &changed);
        r->undo_rect = changed;
        vips_rect_unionrect(&r->dirty, &changed, &r->dirty);
        copy_out(r, &changed, r->undo);
        if (before->disposal == 2 || (before->disposal == 3 && !r->has_saved)) {
            fill_rect(r, before, before->transparent >= 0 ? 0 : r->background);
        } else if (before->disposal == 3) { // only frame n − 1's rectangle differs from the saved canvas
            for (int y = 0; y < before->height; y++) {
                size_t at = (size_t)(before->top + y) * r->width + before->left;
                memcpy(r->canvas + at, r->saved + at, (size_t)before->width * 4);
            }
        }
    }
    if (frame->disposal == 3 && r->saved) {
        memcpy(r->saved, r->canvas, (size_t)r->width * (size_t)r->height * 4);
        r->has_saved = true;
    }
    const uint32_t *table = r->global;
    if (frame->table) {
        gifd_read_table(r->local, r->file + frame->table, frame->entries);
        table = r->local;
    }
    long count = decode_indices(r, frame);
    if (count < 0) {
        vips_error("gif_read", "frame %d: corrupt image data", n);
        return -1;
    }
    const unsigned char *index = r->indices;
    for (int line = 0; line < frame->height && count > 0; line++) {
        uint32_t *row = r->canvas + (size_t)(frame->top + row_of(frame, line)) * r->width + frame->left;
        int pixels = count < frame->width ? (int)count : frame->width;
        if (frame->transparent < 0) {
            for (int x = 0; x < pixels; x++) row[x] = table[index[x]];
        } else {
            for (int x = 0; x < pixels; x++)
                if (index[x] != frame->transparent) row[x] = table[index[x]];
        }
        index += pixels, count -= pixels;
    }
    r->shown = n;
    return 0;
}

/// Brings the canvas to frame `n` (or n + 1, keeping n in `undo`): forward from where it is,
/// from the start for anything earlier.
GIF_HIDDEN int gifd_show(gif_reader *r, int n) {
    if (n == r->shown || (n == r->shown - 1 && n >= 0)) return 0;
    if (n < r->shown) r->shown = -1;
    while (r->shown < n)
        if (draw(r, r->shown + 1)) {
            r->shown = -1; // the canvas, undo and saved copy may be part-way: start again next time
            return -1;
        }
    return 0;
}

static int generate(VipsRegion *out, void *seq, void *a, void *b, gboolean *stop) {
    (void)seq, (void)b, (void)stop;
    gif_reader *r = a;
    const VipsRect *want = &out->valid;
    int result = 0;
    g_mutex_lock(&r->lock);
    for (int y = want->top; y < VIPS_RECT_BOTTOM(want) && result == 0; y++) {
        int n = y / r->height, line = y % r->height;
        if ((result = gifd_show(r, n))) break;
        const uint32_t *from = r->canvas + (size_t)line * r->width + want->left;
        uint32_t row[want->width];
        if (n == r->shown - 1 && line >= r->undo_rect.top && line < VIPS_RECT_BOTTOM(&r->undo_rect)) {
            // the previous frame: the canvas, with what the current one changed put back
            memcpy(row, from, (size_t)want->width * 4);
            int left = VIPS_MAX(want->left, r->undo_rect.left), right = VIPS_MIN(VIPS_RECT_RIGHT(want), VIPS_RECT_RIGHT(&r->undo_rect));
            if (left < right)
                memcpy(row + (left - want->left),
                       r->undo + (size_t)(line - r->undo_rect.top) * r->undo_rect.width + (left - r->undo_rect.left),
                       (size_t)(right - left) * 4);
            from = row;
        }
        unsigned char *to = VIPS_REGION_ADDR(out, want->left, y);
        if (r->bands == 4) {
            memcpy(to, from, (size_t)want->width * 4);
        } else {
            // RGBA → RGB four pixels (three words) at a time (little-endian: alpha is the top byte)
            int x = 0;
            for (; x + 4 <= want->width; x += 4, to += 12) {
                uint32_t a = from[x] & 0xffffff, b = from[x + 1] & 0xffffff, c = from[x + 2] & 0xffffff, d = from[x + 3] & 0xffffff;
                uint32_t words[3] = {a | b << 24, b >> 8 | c << 16, c >> 16 | d << 8};
                memcpy(to, words, 12);
            }
            for (const unsigned char *p = (const unsigned char *)(from + x); x < want->width; x++, p += 4, to += 3)
                to[0] = p[0], to[1] = p[1], to[2] = p[2];
        }
    }
    g_mutex_unlock(&r->lock);
    return result;
}

GIF_HIDDEN void gifd_close(gif_reader *r) {
    if (!r) return;
    g_mutex_clear(&r->lock);
    free(r->canvas), free(r->saved), free(r->undo), free(r->indices), free(r->packed);
    pm_gif_file_unref(r->source);
    free(r);
}

static void close_reader(VipsImage *image, gif_reader *r) {
    (void)image;
    gifd_close(r);
}

int pm_gif_open(const char *path, int max_frames, pm_gif_file **out, pm_gif_facts *facts) {
    *out = NULL;
    *facts = (pm_gif_facts){0};
    pm_gif_file *file = calloc(1, sizeof *file);
    if (!file) {
        vips_error("gif_read", "out of memory");
        return -1;
    }
    file->refs = 1;
    if (gifd_map_file(path, &file->scan)) {
        vips_error("gif_read", "cannot read %s", path);
        pm_gif_file_unref(file);
        return -1;
    }
    int scanned = gifd_scan(&file->scan, max_frames, facts);
    if (scanned) {
        pm_gif_file_unref(file);
        return scanned;
    }
    *out = file;
    return 0;
}

void pm_gif_file_unref(pm_gif_file *file) {
    if (!file || !g_atomic_int_dec_and_test(&file->refs)) return;
    gifd_unmap_file(&file->scan);
    free(file->scan.frames);
    free(file);
}

void pm_gif_file_info(const pm_gif_file *file, pm_gif_info *info) {
    const gif_reader *s = &file->scan;
    *info = (pm_gif_info){s->width, s->height, s->count, s->bands, s->loop};
}

void pm_gif_file_delays(const pm_gif_file *file, int *delays) {
    for (int i = 0; i < file->scan.count; i++) delays[i] = file->scan.frames[i].delay;
}

GIF_HIDDEN int gifd_open(pm_gif_file *file, gif_reader **out) {
    *out = NULL;
    gif_reader *r = malloc(sizeof *r);
    if (!r) {
        vips_error("gif_read", "out of memory");
        return -1;
    }
    *r = file->scan; // what the scan found; the drawing state below is this reader's own
    g_atomic_int_inc(&file->refs);
    r->source = file;
    g_mutex_init(&r->lock);
    r->shown = -1;
    r->canvas = r->saved = r->undo = NULL;
    r->has_saved = false;
    r->indices = r->packed = NULL;
    size_t pixels = (size_t)r->width * (size_t)r->height;
    r->canvas = malloc(pixels * 4), r->undo = malloc(pixels * 4), r->indices = malloc(pixels + 8);
    r->packed = malloc(r->max_bytes + 8);
    bool restores = false; // a frame with disposal 3 needs the canvas kept from before it
    for (int i = 0; i < r->count; i++) restores = restores || r->frames[i].disposal == 3;
    if (restores) r->saved = malloc(pixels * 4);
    if (!r->canvas || !r->undo || !r->indices || !r->packed || (restores && !r->saved)) {
        vips_error("gif_read", "out of memory");
        gifd_close(r);
        return -1;
    }
    *out = r;
    return 0;
}

GIF_HIDDEN int gifd_open_cut(pm_gif_file *file, const pm_gif_cut *cut, gif_reader **out, VipsRect *area,
                              const char *domain) {
    *out = NULL;
    const gif_reader *s = &file->scan;
    VipsRect screen = {0, 0, s->width, s->height};
    *area = (VipsRect){cut->left, cut->top, cut->width, cut->height};
    bool plain = cut->count > 0 && !vips_rect_isempty(area) && vips_rect_includesrect(&screen, area);
    for (int k = 0; plain && k < cut->count; k++)
        plain = cut->frames[k] >= 0 && cut->frames[k] < s->count && (k == 0 || cut->frames[k] > cut->frames[k - 1]);
    if (!plain) {
        vips_error(domain, "the cut %d,%d %dx%d of %d frames is not inside the GIF's %dx%d screen and %d frames",
                   cut->left, cut->top, cut->width, cut->height, cut->count, s->width, s->height, s->count);
        return -1;
    }
    return gifd_open(file, out);
}

GIF_HIDDEN int gifd_show_cut(gif_reader *r, const pm_gif_cut *cut, const VipsRect *area, int k, VipsRect *dirty,
                              const char *domain) {
    if (pm_deadline_passed(cut->deadline)) {
        vips_error(domain, "frame %d: time limit reached", cut->frames[k]);
        return -1;
    }
    r->dirty = (VipsRect){0, 0, 0, 0};
    if (gifd_show(r, cut->frames[k])) return -1; // the first starts from frame 0: all of it dirty
    vips_rect_intersectrect(&r->dirty, area, dirty);
    return 0;
}

int pm_gif_load(pm_gif_file *file, VipsImage **out) {
    *out = NULL;
    gif_reader *r = NULL;
    if (gifd_open(file, &r)) return -1;
    VipsImage *image = vips_image_new();
    vips_image_init_fields(image, r->width, r->height * r->count, r->bands, VIPS_FORMAT_UCHAR, VIPS_CODING_NONE,
                           VIPS_INTERPRETATION_sRGB, 1.0, 1.0);
    vips_image_set_int(image, "page-height", r->height);
    vips_image_set_int(image, "n-pages", r->count);
    // libvips' gifload's timing, from the scan: the header is all a probe needs.
    int *delays = g_new(int, r->count);
    pm_gif_file_delays(file, delays);
    vips_image_set_array_int(image, "delay", delays, r->count);
    g_free(delays);
    vips_image_set_int(image, "loop", r->loop);
    g_signal_connect(image, "close", G_CALLBACK(close_reader), r);
    if (vips_image_pipelinev(image, VIPS_DEMAND_STYLE_THINSTRIP, NULL)
        || vips_image_generate(image, NULL, generate, NULL, r, NULL)) {
        g_object_unref(image);
        return -1;
    }
    // With several libvips threads (VIPS_CONCURRENCY above 1), strips of frames further apart
    // than neighbours arrive out of order and each one behind restarts the decode from frame 0
    // (the product shot took 6 s instead of 2 at 2 threads, minutes at more): requests are put
    // in order first, as libvips' own loader does. PushMedia's default is one thread.
    if (vips_concurrency_get() > 1) {
        VipsImage *ordered = NULL;
        int failed = vips_sequential(image, &ordered, "tile_height", 16, NULL);
        g_object_unref(image);
        if (failed) return -1;
        image = ordered;
    }
    *out = image;
    return 0;
}
