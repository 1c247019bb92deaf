// PushMedia's GIF writer: an animation (frames stacked top to bottom, `page-height`, `delay` and
// `loop` on the image) pulled a frame at a time through libvips (vips_sink_disc, so a lazy
// pipeline is never held whole) and written byte by byte. gif_transcode.c hands it frames
// straight from PushMedia's decoder instead (gifw_begin, gifw_write_frame, gifw_finish), with
// the rectangle where each may differ from the one before.
//
// Per frame:
//   1. What changed: a pixel whose colour is within `interframe_maxerror` of the colour last
//      written at that place stays as it is shown (written transparent). The first frame is
//      written whole. Only the caller's rectangle, and the last frame's rectangle of changes
//      (pixels left as shown while apart from the source are marked again), are looked at.
//   2. What must turn see-through (issue 40): a pixel whose source is see-through (alpha < 128)
//      where something is shown cannot be drawn see-through, so the frame before is disposed:
//      written with disposal 2 (and a transparent index, which makes decoders clear to
//      see-through rather than to the background colour) over its own rectangle grown to hold
//      those pixels. Its new pixels are the index for unchanged ones, so they show what they
//      showed until the disposal. Everything the cleared rectangle must still show is marked
//      changed and drawn again. A frame is therefore written only once the next one is known
//      (its indices wait in `indices`); the last stays in place (disposal 1). Without such
//      pixels (every opaque animation) frames are left in place as before, byte for byte.
//   3. A palette for the changed pixels only: their own colours when there are at most
//      2^bitdepth − 1 (255 at 8 bits: one index stays free for unchanged pixels), else
//      libimagequant's. The global palette (the first frame's) is kept when it holds all of
//      those exact colours or is within `interpalette_maxerror` of the new palette, else the
//      previous frame's, else the new one becomes the frame's local palette. Without palette
//      reuse (error 0), frames whose changed pixels have few colours are written exactly.
//   4. Each changed pixel gets the nearest palette colour (RGB distance; a colour → index memo
//      kept across frames while the palette stays), and a pixel whose nearest colour is the one
//      already shown is not written either.
//   5. The frame is cut to the rectangle of written pixels and LZW-coded (gif_lzw.c).
//
// libvips 8.14's own saver (cgif) quantises and remaps every whole frame with libimagequant;
// the remap was ~85 % of an animation's encode (42 ms a 960×480 frame), and most pixels of a
// push animation do not change from frame to frame.
//
// Disposal 3 (restore the canvas from before the frame) is not written: disposal 2 gives the
// source's frames exactly, and gifsicle -O3 finds no fewer bytes on the stickers of
// Benchmarks/gif.py (docs/benchmarks/gifs.md, issue 40). Memory: 18 bytes a pixel of one frame
// (4 each for the frame, the colours last written, the colours shown and the changed pixels
// packed for libimagequant; 1 each for the indices and the change marks), a 320 KB memo and the
// 32 KB LZW table; never frames × pixels.
#include "PushMediaShims.h"
#include "gif_write_internal.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "take_rows widens RGB to RGBA a word at a time");

// ---- a frame -------------------------------------------------------------------------------------

/// The header, the logical screen with the global table, and (when animated) the loop count.
static bool put_screen(gif_writer *w) {
    gif_output *out = &w->out;
    int bits = gifw_table_bits(&w->global);
    if (!gifr_append(out, "GIF89a", 6) || !gifr_append_word(out, w->width) || !gifr_append_word(out, w->height)
        || !gifr_append_byte(out, (unsigned char)(0x80 | (7 << 4) | (bits - 1))) || !gifr_append_byte(out, 0)
        || !gifr_append_byte(out, 0) || !gifw_put_table(out, &w->global, bits))
        return false;
    // libvips' `loop`: 0 forever, 1 once (no loop extension), n: n times (n − 1 repeats).
    if (w->frames < 2 || w->loop == 1) return true;
    int repeats = w->loop > 1 ? w->loop - 1 : 0;
    if (repeats > 0xffff) repeats = 0xffff;
    static const unsigned char netscape[] = {0x21, 0xff, 11, 'N', 'E', 'T', 'S', 'C', 'A', 'P', 'E', '2', '.', '0', 3, 1};
    return gifr_append(out, netscape, sizeof netscape) && gifr_append_word(out, repeats) && gifr_append_byte(out, 0);
}

/// Marks the pixels the frame writes (`changed`) inside `scan` and returns their bounding
/// rectangle. Outside `scan` nothing is marked, and `changed` is left as it was: the caller
/// vouches that no pixel there changes (see gifw_write_frame). *clear gets the rectangle of the
/// pixels that must turn see-through where something is shown (empty: right < left).
/// `alpha`: whether the frames have see-through pixels at all (a constant in each caller, so the
/// opaque case compiles to the loop it had before clearing existed).
static inline __attribute__((always_inline)) void find_changes_of(gif_writer *w, const VipsRect *scan, int *left,
                                                                    int *top, int *right, int *bottom, VipsRect *clear,
                                                                    const bool alpha) {
    const int max_squared = (int)(w->max_error * w->max_error);
    *clear = (VipsRect){0, 0, 0, 0};
    if (w->number == 0) { // the first frame is written whole
        memset(w->changed, 1, (size_t)w->width * (size_t)w->height);
        *left = 0, *top = 0, *right = w->width - 1, *bottom = w->height - 1;
        return;
    }
    int cl = w->width, ct = w->height, cr = -1, cb = -1;
    *left = w->width, *top = w->height, *right = -1, *bottom = -1;
    for (int y = scan->top; y < VIPS_RECT_BOTTOM(scan); y++) {
        size_t base = (size_t)y * (size_t)w->width + (size_t)scan->left;
        const unsigned char *now = w->frame + base * 4, *then = w->written + base * 4;
        unsigned char *changed = w->changed + base;
        int first = -1, last = -1, first_clear = -1, last_clear = -1;
        for (int x = 0; x < scan->width; x++, now += 4, then += 4) {
            uint32_t a, b;
            memcpy(&a, now, 4), memcpy(&b, then, 4);
            bool change;
            if (a == b) change = false;
            else if (alpha && !now[3]) { // turns see-through: only a disposal can do that (gifw_write_frame)
                change = false;
                if (first_clear < 0) first_clear = x;
                last_clear = x;
            } else if (!then[3]) change = true;
            else {
                int dr = now[0] - then[0], dg = now[1] - then[1], db = now[2] - then[2];
                change = dr * dr + dg * dg + db * db > max_squared;
            }
            changed[x] = change;
            if (change) {
                if (first < 0) first = x;
                last = x;
            }
        }
        if (first >= 0) {
            if (scan->left + first < *left) *left = scan->left + first;
            if (scan->left + last > *right) *right = scan->left + last;
            if (*top > y) *top = y;
            *bottom = y;
        }
        if (first_clear >= 0) {
            if (scan->left + first_clear < cl) cl = scan->left + first_clear;
            if (scan->left + last_clear > cr) cr = scan->left + last_clear;
            if (ct > y) ct = y;
            cb = y;
        }
    }
    if (cr >= cl) *clear = (VipsRect){cl, ct, cr - cl + 1, cb - ct + 1};
}

static void find_changes(gif_writer *w, const VipsRect *scan, int *left, int *top, int *right, int *bottom,
                         VipsRect *clear) {
    if (w->bands == 4) find_changes_of(w, scan, left, top, right, bottom, clear, true);
    else find_changes_of(w, scan, left, top, right, bottom, clear, false);
}

/// libimagequant and the change test see alpha as on or off, as the GIF shows it: `count`
/// RGBA pixels thresholded in place.
static void threshold_alpha(unsigned char *p, size_t count) {
    for (size_t i = 0; i < count; i++, p += 4) {
        if (p[3] >= 128) p[3] = 255;
        else p[0] = p[1] = p[2] = p[3] = 0;
    }
}

GIFR_HIDDEN void gifw_take_pixels(gif_writer *w, unsigned char *rgba, size_t count) {
    if (w->bands == 4) threshold_alpha(rgba, count);
}

/// Writes the waiting frame (its indices are still in w->indices) with `disposal`: 1 leaves it
/// in place; 2 clears its rectangle, grown to hold `clear` (its new pixels are the index for
/// unchanged pixels, so they show what was there until the disposal), to see-through, which
/// decoders do when the frame has a transparent index: it gets one. 0; 2 when the GIF passed
/// give_up_bytes with frames still to write (w->gave_up); -1 on failure (no libvips error).
static int emit_pending(gif_writer *w, int disposal, const VipsRect *clear) {
    if (!w->pending.waiting) return 0;
    w->pending.waiting = false;
    int wl = w->pending.left, wt = w->pending.top, wr = w->pending.right, wb = w->pending.bottom;
    bool transparent = w->pending.transparent;
    if (disposal == 2) {
        int cl = VIPS_MIN(wl, clear->left), ct = VIPS_MIN(wt, clear->top);
        int cr = VIPS_MAX(wr, VIPS_RECT_RIGHT(clear) - 1), cb = VIPS_MAX(wb, VIPS_RECT_BOTTOM(clear) - 1);
        for (int y = ct; y <= cb; y++) { // the rectangle's new pixels leave what is shown
            GifPixelType *row = w->indices + (size_t)y * (size_t)w->width;
            for (int x = cl; x <= cr; x++)
                if (y < wt || y > wb || x < wl || x > wr) row[x] = (GifPixelType)w->pending.unchanged;
        }
        wl = cl, wt = ct, wr = cr, wb = cb;
        transparent = true;
    }
    const gifw_palette *palette = w->pending.palette;
    gif_output *out = &w->out;
    if (w->emitted == 0 && !put_screen(w)) return -1;
    if (w->frames > 1 || transparent) {
        if (!gifr_put_control(out, disposal, false, w->pending.centiseconds, transparent ? w->pending.unchanged : -1, 0))
            return -1;
    }
    bool local = palette != &w->global;
    int bits = gifw_table_bits(palette);
    if (!gifr_put_descriptor(out, wl, wt, wr - wl + 1, wb - wt + 1, local ? bits : 0)
        || (local && !gifw_put_table(out, palette, bits)))
        return -1;
    // The code size is the frame's table's (the screen's for the global one): indices fit below it.
    int code_bits = local ? bits : gifw_table_bits(&w->global);
    if (gifr_lzw_write(w->lzw, out, code_bits, w->indices + (size_t)wt * (size_t)w->width + (size_t)wl, wr - wl + 1,
                       wb - wt + 1, (size_t)w->width, SIZE_MAX) != 0
        || out->failed)
        return -1;
    w->emitted += 1;
    if (w->give_up_bytes && out->length > w->give_up_bytes && w->emitted >= 2 && w->emitted < w->frames) {
        w->gave_up = true;
        return 2;
    }
    return 0;
}

/// Sets the pixels of `rect` to nothing shown (what a disposal to see-through leaves).
static void forget_rect(gif_writer *w, const VipsRect *rect) {
    for (int y = rect->top; y < VIPS_RECT_BOTTOM(rect); y++) {
        size_t base = ((size_t)y * (size_t)w->width + (size_t)rect->left) * 4;
        memset(w->written + base, 0, (size_t)rect->width * 4);
        memset(w->shown + base, 0, (size_t)rect->width * 4);
    }
}

GIFR_HIDDEN int gifw_write_frame(gif_writer *w, const VipsRect *dirty) {
    // Pixels left as shown but still apart from the source (their nearest colour is the one
    // shown) are marked again: they lie in the previous frame's rectangle of changes.
    VipsRect scan = *dirty, frame = {0, 0, w->width, w->height};
    vips_rect_unionrect(&scan, &w->last_changes, &scan);
    vips_rect_intersectrect(&scan, &frame, &scan);
    int left, top, right, bottom;
    VipsRect clear;
    find_changes(w, &scan, &left, &top, &right, &bottom, &clear);
    // Pixels that must turn see-through where something is shown: the frame before is disposed
    // (2: its rectangle, grown to hold them, is cleared to see-through once it has been shown),
    // and what the cleared rectangle must still show is drawn again. Every pixel shown
    // see-through had a see-through source (alpha 0) when it was last written, and a pixel
    // only turns see-through where the source changed, so the pixels to clear lie in `dirty`
    // (the same for the decoder's rectangles and for whole frames).
    int disposal = vips_rect_isempty(&clear) ? 1 : 2;
    VipsRect disposed = {0, 0, 0, 0};
    if (disposal == 2) {
        int dl = VIPS_MIN(w->pending.left, clear.left), dt = VIPS_MIN(w->pending.top, clear.top);
        int dr = VIPS_MAX(w->pending.right, VIPS_RECT_RIGHT(&clear) - 1);
        int db = VIPS_MAX(w->pending.bottom, VIPS_RECT_BOTTOM(&clear) - 1);
        disposed = (VipsRect){dl, dt, dr - dl + 1, db - dt + 1};
    }
    int emitted = emit_pending(w, disposal, &clear);
    if (emitted == 2) return 2;
    if (emitted != 0) goto failed;
    if (disposal == 2) {
        // Everything opaque in the cleared rectangle is drawn again. The changes are looked for
        // again over one rectangle holding both, so that every pixel inside the rectangle of
        // changes is marked for this frame (none is left as an earlier frame marked it).
        forget_rect(w, &disposed);
        vips_rect_unionrect(&scan, &disposed, &scan);
        VipsRect none;
        find_changes(w, &scan, &left, &top, &right, &bottom, &none);
    }
    int cw = right >= left ? right - left + 1 : 0, ch = bottom >= top ? bottom - top + 1 : 0;
    w->last_changes = (VipsRect){left, top, cw, ch};
    const gifw_palette *palette = gifw_choose_palette(w, left, top, cw, ch);
    if (!palette) return -1;
    w->previous_used = palette;
    // The index for pixels left as shown: the palette's see-through entry, else the free one.
    const int unchanged = palette->see_through >= 0 ? palette->see_through : palette->count;

    // Indices, and the rectangle of what is written after all.
    int wl = w->width, wt = w->height, wr = -1, wb = -1;
    bool see_through_pixels = false; // the first frame's (its palette may have no alpha-0 entry)
    for (int y = top; y < top + ch; y++) {
        size_t base = (size_t)y * (size_t)w->width;
        for (int x = left; x < left + cw; x++) {
            size_t i = base + (size_t)x;
            GifPixelType index = (GifPixelType)unchanged;
            if (w->changed[i]) {
                const unsigned char *p = w->frame + i * 4;
                unsigned char *shown = w->shown + i * 4;
                if (p[3]) {
                    int k = gifw_nearest(w, palette, ((uint32_t)p[0] << 16) | ((uint32_t)p[1] << 8) | p[2]);
                    const unsigned char *c = palette->rgb[k];
                    bool same = w->number > 0 && shown[3] && shown[0] == c[0] && shown[1] == c[1] && shown[2] == c[2];
                    if (!same) {
                        index = (GifPixelType)k;
                        shown[0] = c[0], shown[1] = c[1], shown[2] = c[2], shown[3] = 255;
                        memcpy(w->written + i * 4, p, 4);
                    }
                } else {
                    memset(w->written + i * 4, 0, 4); // only on the first frame
                    see_through_pixels = true;
                }
            }
            w->indices[i] = index;
            if (index != unchanged) {
                if (x < wl) wl = x;
                if (x > wr) wr = x;
                if (y < wt) wt = y;
                wb = y;
            }
        }
    }
    if (w->number == 0) wl = 0, wt = 0, wr = w->width - 1, wb = w->height - 1;
    bool empty = wr < wl;
    if (empty) { // nothing changes: one see-through pixel keeps the frame and its delay
        wl = wr = 0, wt = wb = 0;
        w->indices[0] = (GifPixelType)unchanged;
    }

    // Every frame after the first leaves unchanged pixels see-through; the first only when the
    // image has see-through pixels. The frame waits for the next one, which decides whether it
    // stays in place (disposal 1) or is cleared (2).
    int delay = w->delays && w->number < w->delay_count ? w->delays[w->number] : 0;
    long centiseconds = lrint(delay / 10.0);
    if (centiseconds < 0) centiseconds = 0;
    if (centiseconds > 0xffff) centiseconds = 0xffff;
    w->pending.waiting = true;
    w->pending.left = wl, w->pending.top = wt, w->pending.right = wr, w->pending.bottom = wb;
    w->pending.unchanged = unchanged;
    w->pending.transparent = w->number > 0 || palette->see_through >= 0 || see_through_pixels;
    w->pending.centiseconds = (int)centiseconds;
    w->pending.palette = palette;
    w->number += 1;
    return 0;

failed:
    vips_error("gif_write", "frame %d: out of memory for the GIF", w->number);
    return -1;
}

GIFR_HIDDEN size_t gifw_given_up_length(const gif_writer *w) { return w->out.length + 1; }

/// Rows arrive top to bottom, a strip at a time; each completed frame is written. Once the
/// writer gave up, the rest are passed over: stopping the sink with -1 would leave "write failed"
/// in libvips' error buffer, which is shared by every item.
static int take_rows(VipsRegion *region, VipsRect *area, void *context) {
    gif_writer *w = context;
    if (w->gave_up) return 0;
    const int bands = region->im->Bands;
    for (int y = 0; y < area->height; y++) {
        const unsigned char *from = VIPS_REGION_ADDR(region, 0, area->top + y);
        unsigned char *to = w->frame + (size_t)w->row * (size_t)w->width * 4;
        if (bands == 4) {
            memcpy(to, from, (size_t)w->width * 4);
            gifw_take_pixels(w, to, (size_t)w->width);
        } else { // RGB → RGBA a word at a time (little-endian: alpha is the top byte); the last
                 // pixel by bytes, as its word would read past the row
            for (int x = 0; x + 1 < w->width; x++, from += 3, to += 4) {
                uint32_t pixel;
                memcpy(&pixel, from, 4);
                pixel |= 0xff000000u;
                memcpy(to, &pixel, 4);
            }
            to[0] = from[0], to[1] = from[1], to[2] = from[2], to[3] = 255;
        }
        if (++w->row == w->height) {
            // Any pixel may have changed.
            int written = gifw_write_frame(w, &(VipsRect){0, 0, w->width, w->height});
            if (written == 2) return 0; // given up (w->gave_up)
            if (written != 0) return -1;
            w->row = 0;
        }
    }
    return 0;
}

/// 8-bit sRGB with or without alpha, as the writer reads it (grey, CMYK, 16-bit… converted). A
/// new reference in *out.
static int ready(VipsImage *in, VipsImage **out) {
    VipsImage *image = in, *next = NULL;
    g_object_ref(image);
    if (image->Bands < 3 || image->BandFmt != VIPS_FORMAT_UCHAR
        || (image->Type != VIPS_INTERPRETATION_sRGB && vips_colourspace_issupported(image))) {
        if (vips_colourspace(image, &next, VIPS_INTERPRETATION_sRGB, NULL)) goto failed;
        g_object_unref(image), image = next;
    }
    if (image->BandFmt != VIPS_FORMAT_UCHAR) {
        if (vips_cast_uchar(image, &next, NULL)) goto failed;
        g_object_unref(image), image = next;
    }
    if (image->Bands > 4) {
        if (vips_extract_band(image, &next, 0, "n", 4, NULL)) goto failed;
        g_object_unref(image), image = next;
    }
    *out = image;
    return 0;
failed:
    g_object_unref(image);
    return -1;
}

GIFR_HIDDEN int gifw_begin(gif_writer *w, const pm_gif_settings *s, int width, int height, int frames, int bands) {
    *w = (gif_writer){0};
    w->width = width, w->height = height, w->frames = frames, w->bands = bands;
    if ((guint64)width * (guint64)height > INT_MAX / 4 || width > 65535 || height > 65535) {
        vips_error("gif_write", "a %d×%d frame is too large for a GIF", width, height);
        return -1;
    }
    // Clamped to the largest RGB distance (and NaN to 0), so that its square is an int.
    w->max_error = s->interframe_maxerror > 0 ? (s->interframe_maxerror < 442 ? s->interframe_maxerror : 442) : 0;
    w->max_palette_error = s->reuse ? s->interpalette_maxerror : 0;
    w->give_up_bytes = s->give_up_bytes;
    // 2^bitdepth − 1 colours, so that the index for unchanged pixels fits a table of 2^bitdepth
    // (libimagequant wants 2 at least).
    w->max_colours = s->bitdepth >= 8 ? 255 : s->bitdepth <= 1 ? 2 : (1 << s->bitdepth) - 1;
    size_t n = (size_t)width * (size_t)height;
    w->frame = g_try_malloc(n * 4);
    w->written = g_try_malloc0(n * 4);
    w->shown = g_try_malloc0(n * 4);
    w->indices = g_try_malloc(n);
    w->changed = g_try_malloc(n);
    w->packed = g_try_malloc(n * 4);
    w->memo_colour = g_try_malloc(MEMO_SIZE * sizeof(uint32_t));
    w->memo_index = g_try_malloc(MEMO_SIZE);
    w->vector_search = gifw_vector_search_available();
    w->attr = liq_attr_create();
    w->lzw = g_try_malloc0(sizeof *w->lzw);
    if (!w->frame || !w->written || !w->shown || !w->indices || !w->changed || !w->packed || !w->memo_colour
        || !w->memo_index || !w->attr || !w->lzw) {
        vips_error("gif_write", "out of memory for a %d×%d frame", width, height);
        return -1;
    }
    int effort = s->effort < 1 ? 1 : s->effort > 10 ? 10 : s->effort;
    if (liq_set_max_colors(w->attr, w->max_colours) != LIQ_OK || liq_set_quality(w->attr, 0, 100) != LIQ_OK
        || liq_set_speed(w->attr, 11 - effort) != LIQ_OK) {
        vips_error("gif_write", "libimagequant refused the settings");
        return -1;
    }
    return 0;
}

GIFR_HIDDEN int gifw_finish(gif_writer *w, unsigned char **gif, size_t *length) {
    if (w->number != w->frames) {
        vips_error("gif_write", "%d of %d frames written", w->number, w->frames);
        return -1;
    }
    // The last frame stays in place.
    if (emit_pending(w, 1, &(VipsRect){0, 0, 0, 0}) != 0 || !gifr_append_byte(&w->out, 0x3b) || w->out.failed) {
        vips_error("gif_write", "out of memory for the GIF");
        return -1;
    }
    *gif = w->out.bytes, *length = w->out.length;
    w->out.bytes = NULL;
    return 0;
}

GIFR_HIDDEN void gifw_end(gif_writer *w) {
    free(w->out.bytes);
    if (w->attr) liq_attr_destroy(w->attr);
    g_free(w->frame), g_free(w->written), g_free(w->shown), g_free(w->indices), g_free(w->changed), g_free(w->packed);
    g_free(w->memo_colour), g_free(w->memo_index), g_free(w->lzw);
    *w = (gif_writer){0};
}

int pm_gif_write(VipsImage *in, const pm_gif_settings *s, unsigned char **gif, size_t *length) {
    *gif = NULL, *length = 0;
    VipsImage *image = NULL;
    if (ready(in, &image)) return -1;
    int height = vips_image_get_page_height(image);
    gif_writer w;
    int status = -1;
    int *delays = NULL;
    if (gifw_begin(&w, s, image->Xsize, height, image->Ysize / height, image->Bands)) goto done;
    // Only an int array: libvips converts another type into a copy it frees before returning.
    // Copied: a lazily loaded image may replace its metadata once its pixels are read.
    int *delay = NULL, delay_count = 0;
    if (vips_image_get_typeof(image, "delay") == VIPS_TYPE_ARRAY_INT
        && !vips_image_get_array_int(image, "delay", &delay, &delay_count) && delay_count > 0) {
        delays = g_memdup2(delay, (gsize)delay_count * sizeof *delay);
        w.delays = delays, w.delay_count = delays ? delay_count : 0;
    }
    if (vips_image_get_typeof(image, "loop")) vips_image_get_int(image, "loop", &w.loop);
    if (vips_sink_disc(image, take_rows, &w)) goto done;
    if (w.gave_up) {
        *length = gifw_given_up_length(&w);
        status = 2;
        goto done;
    }
    if (gifw_finish(&w, gif, length)) goto done;
    status = 0;

done:
    g_free(delays);
    gifw_end(&w);
    g_object_unref(image);
    return status;
}
