// What the GIF writer's frame changes (gif_write.c writes it), and how the frame before is
// disposed where a pixel must turn see-through.
//
// A pixel whose colour is within `interframe_maxerror` of the colour last written at that place
// stays as it is shown; the others are marked (w->changed). A pixel whose source turns
// see-through (alpha < 128) where something is shown cannot be drawn see-through: the frame
// before (the waiting one, not written yet) must be disposed, one of two ways:
//   2. its rectangle, grown to hold those pixels, is cleared to see-through; everything the
//      cleared rectangle must still show is drawn again;
//   3. its rectangle is restored to what was shown before it; possible only when every pixel
//      to clear lies in it and showed nothing before it. What differs from that is drawn.
// Of the two the one that leaves fewer pixels to draw is taken (2 on a tie: it is what gifsicle
// writes, and every decoder clears alike, where some have restored wrongly). A frame restored
// (3) needs what was shown before it over its rectangle: w->saved, kept for frames with alpha
// only (8 bytes a pixel); animations without alpha never clear: their frames stay in place.
#include "CGIFCodec.h"
#include "gif_writer.h"

#include <string.h>

/// `alpha`: whether the frames have see-through pixels at all (a constant in each caller, so the
/// opaque case compiles to the loop it had before clearing existed).
static inline __attribute__((always_inline)) void find_changes_of(gif_writer *w, const VipsRect *scan,
                                                                    VipsRect *changes, VipsRect *clear,
                                                                    const bool alpha) {
    const int max_squared = (int)(w->max_error * w->max_error);
    *clear = (VipsRect){0, 0, 0, 0};
    if (w->number == 0) { // the first frame is written whole
        memset(w->changed, 1, (size_t)w->width * (size_t)w->height);
        *changes = (VipsRect){0, 0, w->width, w->height};
        return;
    }
    int cl = w->width, ct = w->height, cr = -1, cb = -1;
    int left = w->width, top = w->height, right = -1, bottom = -1;
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
            else if (alpha && !now[3]) { // turns see-through: only a disposal can do that
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
            if (scan->left + first < left) left = scan->left + first;
            if (scan->left + last > right) right = scan->left + last;
            if (top > y) top = y;
            bottom = y;
        }
        if (first_clear >= 0) {
            if (scan->left + first_clear < cl) cl = scan->left + first_clear;
            if (scan->left + last_clear > cr) cr = scan->left + last_clear;
            if (ct > y) ct = y;
            cb = y;
        }
    }
    *changes = right >= left ? (VipsRect){left, top, right - left + 1, bottom - top + 1} : (VipsRect){0, 0, 0, 0};
    if (cr >= cl) *clear = (VipsRect){cl, ct, cr - cl + 1, cb - ct + 1};
}

GIF_HIDDEN void gifw_find_changes(gif_writer *w, const VipsRect *scan, VipsRect *changes, VipsRect *clear) {
    if (w->bands == 4) find_changes_of(w, scan, changes, clear, true);
    else find_changes_of(w, scan, changes, clear, false);
}

/// The waiting frame's rectangle (as it will be written, before any growth for disposal 2).
static VipsRect pending_rect(const gif_writer *w) {
    return (VipsRect){w->pending.left, w->pending.top, w->pending.right - w->pending.left + 1,
                      w->pending.bottom - w->pending.top + 1};
}

/// The rectangle disposal 2 clears: the waiting frame's grown to hold `clear`.
static VipsRect cleared_rect(const gif_writer *w, const VipsRect *clear) {
    VipsRect rect = pending_rect(w);
    vips_rect_unionrect(&rect, clear, &rect);
    return rect;
}

/// Whether the current frame's pixel i must be drawn over `then` (RGBA; alpha 0: nothing shown).
/// *clear: whether it must turn see-through instead.
static inline bool differs(const gif_writer *w, size_t i, const unsigned char *then, bool *clear) {
    const unsigned char *now = w->frame + i * 4;
    *clear = false;
    if (memcmp(now, then, 4) == 0) return false;
    if (!now[3]) return *clear = true, false;
    if (!then[3]) return true;
    int dr = now[0] - then[0], dg = now[1] - then[1], db = now[2] - then[2];
    return dr * dr + dg * dg + db * db > (int)(w->max_error * w->max_error);
}

/// Adds to *draw2 and *draw3 the pixels x0 … x1 − 1 of the row starting at pixel `row` must
/// draw when cleared (2) and over `then` (3: what was shown before the waiting frame, or what is
/// shown now). Pixels where `then` shows nothing count alike and are passed over, eight at a time.
/// true when one must turn see-through over `then`.
static bool count_span(const gif_writer *w, size_t row, int x0, int x1, const unsigned char *then, long *draw2,
                       long *draw3) {
    static const unsigned char nothing[4] = {0};
    for (int x = x0; x < x1;) {
        size_t i = row + (size_t)x;
        if (x + 2 <= x1) {
            uint64_t pair;
            memcpy(&pair, then + i * 4, 8);
            if (!pair) {
                x += 2;
                continue;
            }
        }
        bool must_clear;
        *draw2 += differs(w, i, nothing, &must_clear);
        *draw3 += differs(w, i, then + i * 4, &must_clear);
        if (must_clear) return true;
        x++;
    }
    return false;
}

GIF_HIDDEN int gifw_choose_disposal(gif_writer *w, const VipsRect *clear) {
    if (vips_rect_isempty(clear)) return 1;
    // 3 restores the waiting frame's rectangle from w->saved: none for the first frame (decoders
    // differ on what restoring it shows), none kept without alpha.
    VipsRect restored = pending_rect(w), saved = w->pending.saved;
    if (!w->saved || w->emitted == 0 || !vips_rect_includesrect(&restored, clear)
        || !vips_rect_includesrect(&saved, &restored))
        return 2;
    // Every pixel to clear must have shown nothing before the waiting frame (checked first: it
    // is the rectangle of those pixels only, and most moving pictures fail it).
    const unsigned char *saved_written = w->saved + (size_t)w->width * (size_t)w->height * 4;
    for (int y = clear->top; y < VIPS_RECT_BOTTOM(clear); y++)
        for (int x = clear->left; x < VIPS_RECT_RIGHT(clear); x++) {
            size_t i = (size_t)y * (size_t)w->width + (size_t)x;
            if (!w->frame[i * 4 + 3] && w->written[i * 4 + 3] && saved_written[i * 4 + 3]) return 2;
        }
    // Pixels to draw after each. The rectangle 2 clears holds the one 3 restores; outside it both
    // leave the same, and so they do where the restored pixel showed nothing (after a frame
    // cleared by 2, all of them).
    VipsRect cleared = cleared_rect(w, clear);
    long draw2 = 0, draw3 = 0;
    for (int y = cleared.top; y < VIPS_RECT_BOTTOM(&cleared); y++) {
        size_t row = (size_t)y * (size_t)w->width;
        bool in_restored_rows = y >= restored.top && y < VIPS_RECT_BOTTOM(&restored);
        int from = in_restored_rows ? restored.left : cleared.left, to = in_restored_rows ? VIPS_RECT_RIGHT(&restored) : from;
        // Left of the restored pixels, inside them, right of them.
        if (count_span(w, row, cleared.left, from, w->written, &draw2, &draw3)
            || count_span(w, row, from, to, saved_written, &draw2, &draw3)
            || count_span(w, row, to, VIPS_RECT_RIGHT(&cleared), w->written, &draw2, &draw3))
            return 2; // something left that must not show
    }
    return draw3 < draw2 ? 3 : 2;
}

GIF_HIDDEN void gifw_dispose(gif_writer *w, int disposal, const VipsRect *clear, VipsRect *scan) {
    if (disposal == 1) return;
    VipsRect rect = disposal == 2 ? cleared_rect(w, clear) : pending_rect(w);
    size_t n = (size_t)w->width * (size_t)w->height;
    for (int y = rect.top; y < VIPS_RECT_BOTTOM(&rect); y++) {
        size_t at = ((size_t)y * (size_t)w->width + (size_t)rect.left) * 4, bytes = (size_t)rect.width * 4;
        if (disposal == 2) {
            memset(w->shown + at, 0, bytes);
            memset(w->written + at, 0, bytes);
        } else {
            memcpy(w->shown + at, w->saved + at, bytes);
            memcpy(w->written + at, w->saved + n * 4 + at, bytes);
        }
    }
    vips_rect_unionrect(scan, &rect, scan);
}

GIF_HIDDEN void gifw_save_before(gif_writer *w, const VipsRect *rect) {
    if (!w->saved) return;
    size_t n = (size_t)w->width * (size_t)w->height;
    for (int y = rect->top; y < VIPS_RECT_BOTTOM(rect); y++) {
        size_t at = ((size_t)y * (size_t)w->width + (size_t)rect->left) * 4, bytes = (size_t)rect->width * 4;
        memcpy(w->saved + at, w->shown + at, bytes);
        memcpy(w->saved + n * 4 + at, w->written + at, bytes);
    }
}
