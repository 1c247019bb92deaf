// PushMedia's GIF writer: an animation (frames stacked top to bottom, `page-height`, `delay` and
// `loop` on the image) pulled a frame at a time through libvips (vips_sink_disc over each frame,
// so a lazy pipeline is never held whole, and nothing more is computed once the writer gives up)
// and written byte by byte. gif_transcode.c hands it frames
// straight from PushMedia's decoder instead (gifw_begin, gifw_write_frame, gifw_finish), with
// the rectangle where each may differ from the one before.
//
// Per frame:
//   1. What changed (gif_write_changes.c): a pixel whose colour is within `interframe_maxerror`
//      of the colour last written at that place stays as it is shown. The first frame is
//      written whole. Only the caller's rectangle, and the last frame's rectangle of changes
//      (pixels left as shown while apart from the source are marked again), are looked at.
//   2. What must turn see-through (gif_write_changes.c): a pixel whose source is
//      see-through (alpha < 128) where something is shown cannot be drawn see-through, so the
//      frame before is disposed: cleared (2, with a transparent index, which makes decoders
//      clear to see-through rather than to the background colour) over its own rectangle grown
//      to hold those pixels, or restored to what was shown before it (3), whichever leaves fewer
//      pixels to draw; what its rectangle must still show is marked changed and drawn again. A
//      frame is therefore written only once the next one is known (its indices wait in
//      `indices`); the last stays in place (disposal 1). Without such pixels (every opaque
//      animation) frames are left in place.
//   3. A palette for the changed pixels only: their own colours when there are at most
//      2^bitdepth − 1 (255 at 8 bits: one index stays free for unchanged pixels), else
//      libimagequant's. The global palette (the first frame's) is kept when it holds all of
//      those exact colours or is within `interpalette_maxerror` of the new palette, else the
//      previous frame's, else the new one becomes the frame's local palette. Without palette
//      reuse (error 0), frames whose changed pixels have few colours are written exactly.
//   4. Each changed pixel gets the nearest palette colour (RGB distance; a colour → index memo
//      kept across frames while the palette stays), and a pixel whose nearest colour is the one
//      already shown is not written either.
//   5. The frame is cut to the rectangle of written pixels and LZW-coded (gif_write_emit.c,
//      gif_lzw.c): the pixels it leaves as shown see-through, as the colour shown, or as
//      gifsicle -O3 mixes the two, whichever codes shortest.
//
// libvips' own saver (cgif) quantises and remaps every whole frame with libimagequant;
// the remap was ~85 % of an animation's encode (42 ms a 960×480 frame), and most pixels of a
// push animation do not change from frame to frame.
//
// Memory: 19 bytes a pixel of one frame (4 each for the frame, the colours last written, the
// colours shown and the changed pixels packed for libimagequant; 1 each for the indices, the
// change marks and a candidate's indices), 8 more for frames with alpha (what was shown before
// the waiting frame, for disposal 3), a 320 KB memo and the 32 KB LZW table; never frames ×
// pixels.
#include "CGIFCodec.h"
#include "gif_writer.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "take_rows widens RGB to RGBA a word at a time");

/// libimagequant and the change test see alpha as on or off, as the GIF shows it: `count`
/// RGBA pixels thresholded in place.
static void threshold_alpha(unsigned char *p, size_t count) {
    for (size_t i = 0; i < count; i++, p += 4) {
        if (p[3] >= 128) p[3] = 255;
        else p[0] = p[1] = p[2] = p[3] = 0;
    }
}

GIF_HIDDEN void gifw_take_pixels(gif_writer *w, unsigned char *rgba, size_t count) {
    if (w->bands == 4) threshold_alpha(rgba, count);
}

GIF_HIDDEN int gifw_write_frame(gif_writer *w, const VipsRect *dirty) {
    // Pixels left as shown but still apart from the source (their nearest colour is the one
    // shown) are marked again: they lie in the previous frame's rectangle of changes.
    VipsRect scan = *dirty, frame = {0, 0, w->width, w->height};
    vips_rect_unionrect(&scan, &w->last_changes, &scan);
    vips_rect_intersectrect(&scan, &frame, &scan);
    VipsRect changes, clear;
    gifw_find_changes(w, &scan, &changes, &clear);
    // Pixels that must turn see-through where something is shown: the frame before is disposed
    // (gif_write_changes.c: 2 or 3), and what its rectangle must still show is drawn again.
    // Every pixel shown see-through had a see-through source (alpha 0) when it was last written,
    // and a pixel only turns see-through where the source changed, so the pixels to clear lie
    // in `dirty` (the same for the decoder's rectangles and for whole frames).
    int disposal = gifw_choose_disposal(w, &clear);
    int emitted = gifw_emit_pending(w, disposal, &clear);
    if (emitted == 2) return 2;
    if (emitted != 0) goto failed;
    if (disposal != 1) {
        // The changes are looked for again over one rectangle holding both the scanned and the
        // disposed ones, so that every pixel inside the rectangle of changes is marked for this
        // frame (none is left as an earlier frame marked it).
        gifw_dispose(w, disposal, &clear, &scan);
        VipsRect none;
        gifw_find_changes(w, &scan, &changes, &none);
    }
    w->last_changes = changes;
    gifw_save_before(w, &changes);
    int left = changes.left, top = changes.top, cw = changes.width, ch = changes.height;
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
            uint8_t index = (uint8_t)unchanged;
            if (w->changed[i]) {
                const unsigned char *p = w->frame + i * 4;
                unsigned char *shown = w->shown + i * 4;
                if (p[3]) {
                    int k = gifw_nearest(w, palette, ((uint32_t)p[0] << 16) | ((uint32_t)p[1] << 8) | p[2]);
                    const unsigned char *c = palette->rgb[k];
                    bool same = w->number > 0 && shown[3] && shown[0] == c[0] && shown[1] == c[1] && shown[2] == c[2];
                    if (!same) {
                        index = (uint8_t)k;
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
        w->indices[0] = (uint8_t)unchanged;
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
    w->pending.saved = changes;
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

GIF_HIDDEN size_t gifw_given_up_length(const gif_writer *w) { return w->out.length + 1; }

/// A frame's rows arrive top to bottom, a strip at a time; the completed frame is written. 0
/// (also when the writer gave up: w->gave_up), or -1 (also once the deadline has passed).
static int take_rows(VipsRegion *region, VipsRect *area, void *context) {
    gif_writer *w = context;
    if (w->gave_up) return 0;
    if (pm_deadline_passed(w->deadline)) {
        vips_error("gif_write", "frame %d: time limit reached", w->number);
        return -1;
    }
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

GIF_HIDDEN int gifw_begin(gif_writer *w, const pm_gif_settings *s, int width, int height, int frames, int bands) {
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
    w->give_up_after_frames = s->give_up_after_frames;
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
    w->fill = g_try_malloc(n);
    w->least = g_try_malloc((size_t)height * sizeof *w->least);
    if (bands == 4) w->saved = g_try_malloc(n * 8);
    w->memo_colour = g_try_malloc(MEMO_SIZE * sizeof(uint32_t));
    w->memo_index = g_try_malloc(MEMO_SIZE);
    w->vector_search = gifw_vector_search_available();
    w->attr = liq_attr_create();
    w->lzw = g_try_malloc0(sizeof *w->lzw);
    if (!w->frame || !w->written || !w->shown || !w->indices || !w->changed || !w->packed || !w->fill || !w->least
        || (bands == 4 && !w->saved) || !w->memo_colour
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

GIF_HIDDEN int gifw_finish(gif_writer *w, unsigned char **gif, size_t *length) {
    if (w->number != w->frames) {
        vips_error("gif_write", "%d of %d frames written", w->number, w->frames);
        return -1;
    }
    // The last frame stays in place.
    if (gifw_emit_pending(w, 1, &(VipsRect){0, 0, 0, 0}) != 0 || !gif_buffer_put_byte(&w->out, 0x3b) || w->out.failed) {
        vips_error("gif_write", "out of memory for the GIF");
        return -1;
    }
    *gif = w->out.bytes, *length = w->out.length;
    w->out.bytes = NULL;
    return 0;
}

GIF_HIDDEN void gifw_end(gif_writer *w) {
    free(w->out.bytes);
    if (w->attr) liq_attr_destroy(w->attr);
    g_free(w->frame), g_free(w->written), g_free(w->shown), g_free(w->indices), g_free(w->changed), g_free(w->packed);
    g_free(w->fill), g_free(w->least), g_free(w->saved);
    g_free(w->memo_colour), g_free(w->memo_index), g_free(w->lzw);
    *w = (gif_writer){0};
}

int pm_gif_write(VipsImage *in, const pm_gif_settings *s, pm_deadline deadline, unsigned char **gif, size_t *length) {
    *gif = NULL, *length = 0;
    // The caller brings the frames to 8-bit sRGB (with or without alpha) as it decodes them.
    if (in->BandFmt != VIPS_FORMAT_UCHAR || (in->Bands != 3 && in->Bands != 4) || in->Coding != VIPS_CODING_NONE) {
        vips_error("gif_write", "8-bit RGB or RGBA frames expected, not %d bands of format %d", in->Bands, (int)in->BandFmt);
        return -1;
    }
    VipsImage *image = in;
    g_object_ref(image);
    int height = vips_image_get_page_height(image);
    gif_writer w;
    int status = -1;
    int *delays = NULL;
    if (gifw_begin(&w, s, image->Xsize, height, image->Ysize / height, image->Bands)) goto done;
    w.deadline = deadline;
    // Only an int array: libvips converts another type into a copy it frees before returning.
    // Copied: a lazily loaded image may replace its metadata once its pixels are read.
    int *delay = NULL, delay_count = 0;
    if (vips_image_get_typeof(image, "delay") == VIPS_TYPE_ARRAY_INT
        && !vips_image_get_array_int(image, "delay", &delay, &delay_count) && delay_count > 0) {
        delays = g_memdup2(delay, (gsize)delay_count * sizeof *delay);
        w.delays = delays, w.delay_count = delays ? delay_count : 0;
    }
    if (vips_image_get_typeof(image, "loop")) vips_image_get_int(image, "loop", &w.loop);
    // A frame at a time (each frame's rows through vips_sink_disc): the frame at which the
    // writer gives up is the last one computed. One sink over the whole image would go on
    // computing every frame (and fail on a damaged one the writer never needed), and stopping it
    // would leave "write failed" in libvips' error buffer, which every item shares.
    bool failed = false;
    for (int top = 0; !failed && top < image->Ysize && !w.gave_up; top += height) {
        VipsImage *frame = NULL;
        failed = vips_crop(image, &frame, 0, top, image->Xsize, height, NULL) || vips_sink_disc(frame, take_rows, &w);
        if (frame) g_object_unref(frame);
    }
    if (failed) goto done;
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
