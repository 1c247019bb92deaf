// The GIF writer's frames as written (gif_write.c prepares each, gif_write_changes.c says how the
// one before is disposed): the header and screen before the first, then per frame its graphics
// control, descriptor, local table and LZW data.
//
// A frame's pixels that leave what is shown as it is (unchanged, or drawn again as they are) can
// be written two ways: see-through (the frame's transparent index), or as the colour already
// shown, where the frame's palette holds it. Which one codes shorter depends on the picture:
// see-through runs across anything unchanged, the colour shown joins runs of the same colour
// drawn next to it (a badge growing over its own flat inside). So, as gifsicle -O3 does, each
// frame is LZW-coded up to three ways and the shortest kept (the others are given up once they
// reach its length):
//   A. every such pixel see-through (the only way before);
//   B. every such pixel the colour shown (see-through where the palette lacks it or nothing is
//      shown);
//   C. gifsicle's mix: a stretch of such pixels (in the order LZW reads them) that shows one
//      colour is written as that colour, a stretch that shows several is see-through.
// B and C are coded only when they differ from those before. What is shown after each frame is
// the same whichever is kept.
#include "CGIFCodec.h"
#include "gif_writer.h"

#include <string.h>

/// The header, the logical screen with the global table, and (when animated) the loop count.
static bool put_screen(gif_writer *w) {
    gif_buffer *out = &w->out;
    int bits = gifw_table_bits(&w->global);
    if (!gif_buffer_append(out, "GIF89a", 6) || !gif_buffer_put_word(out, w->width) || !gif_buffer_put_word(out, w->height)
        || !gif_buffer_put_byte(out, (unsigned char)(0x80 | (7 << 4) | (bits - 1))) || !gif_buffer_put_byte(out, 0)
        || !gif_buffer_put_byte(out, 0) || !gifw_put_table(out, &w->global, bits))
        return false;
    // libvips' `loop`: 0 forever, 1 once (no loop extension), n: n times (n − 1 repeats).
    if (w->frames < 2 || w->loop == 1) return true;
    int repeats = w->loop > 1 ? w->loop - 1 : 0;
    if (repeats > 0xffff) repeats = 0xffff;
    static const unsigned char netscape[] = {0x21, 0xff, 11, 'N', 'E', 'T', 'S', 'C', 'A', 'P', 'E', '2', '.', '0', 3, 1};
    return gif_buffer_append(out, netscape, sizeof netscape) && gif_buffer_put_word(out, repeats) && gif_buffer_put_byte(out, 0);
}

/// The palette's opaque colours → their first index.
static void build_lookup(gif_colour_index *lookup, const gifw_palette *p) {
    memset(lookup->indices, 0xff, sizeof lookup->indices);
    for (int i = 0; i < p->count; i++) {
        if (i == p->see_through) continue;
        uint32_t colour = 0xff000000u | ((uint32_t)p->rgb[i][0] << 16) | ((uint32_t)p->rgb[i][1] << 8) | p->rgb[i][2];
        size_t slot = gif_colour_slot(colour);
        while (lookup->indices[slot] >= 0 && lookup->colours[slot] != colour) slot = (slot + 1) & 1023;
        if (lookup->indices[slot] < 0) lookup->colours[slot] = colour, lookup->indices[slot] = (int16_t)i;
    }
}

/// The index of the colour shown at pixel i under the lookup, or `unchanged` (nothing shown, or
/// a colour the palette lacks).
static inline int shown_index(const gif_writer *w, const gif_colour_index *lookup, size_t i, int unchanged) {
    const unsigned char *s = w->shown + i * 4;
    if (!s[3]) return unchanged;
    int k = gif_colour_index_find(lookup, 0xff000000u | ((uint32_t)s[0] << 16) | ((uint32_t)s[1] << 8) | s[2]);
    return k >= 0 ? k : unchanged;
}

#define ONES 0x0101010101010101ull
#define LOW7 0x7f7f7f7f7f7f7f7full

/// The top bit of each byte of v that is 0.
static inline uint64_t zero_bytes(uint64_t v) { return ~(((v & LOW7) + LOW7) | v | LOW7); }

/// How many bytes of `lanes` (a count of at most 255 in each) add up to.
static inline long lane_sum(uint64_t lanes) {
    uint64_t pairs = (lanes & 0x00ff00ff00ff00ffull) + ((lanes >> 8) & 0x00ff00ff00ff00ffull);
    return (long)((pairs * 0x0001000100010001ull) >> 48);
}

/// A row's breaks, where an index differs from the one before (`before` the index before the
/// row, -1: none): the runs LZW's strings grow from. Eight pixels at a time, each byte of a word
/// counting its own lane (up to 255 words before they are summed).
static long count_breaks(const uint8_t *row, int width, int before) {
    long count = row[0] != before;
    int x = 1;
    while (x + 8 <= width) {
        uint64_t same = 0;
        for (int k = 0; k < 255 && x + 8 <= width; k++, x += 8) {
            uint64_t now, then;
            memcpy(&now, row + x, 8), memcpy(&then, row + x - 1, 8);
            same += zero_bytes(now ^ then) >> 7;
        }
        count -= lane_sum(same);
    }
    count += x - 1; // every pixel so far a break, less those the same as the one before
    for (; x < width; x++) count += row[x] != row[x - 1];
    return count;
}

/// Where the run of `value` that holds p[from] ends (p[from] == value), by eight at a time.
static size_t run_end(const uint8_t *p, size_t from, size_t n, int value) {
    const uint64_t all = ONES * (uint64_t)value;
    size_t e = from + 1;
    for (uint64_t word; e + 8 <= n && (memcpy(&word, p + e, 8), word == all);) e += 8;
    while (e < n && p[e] == value) e++;
    return e;
}

/// How many runs of pixels left as shown start in row y of the rectangle (`row` its indices)
/// with something shown in them (those B and C can fill in); one going on from the row before
/// is counted again (the bound it makes is only lower).
static long fillable_runs(const gif_writer *w, const uint8_t *row, int y, int left, int width) {
    const unsigned char *shown = w->shown + ((size_t)y * (size_t)w->width + (size_t)left) * 4 + 3;
    const int unchanged = w->pending.unchanged;
    long runs = 0;
    for (size_t x = 0; x < (size_t)width;) {
        const uint8_t *start = memchr(row + x, unchanged, (size_t)width - x);
        if (!start) break;
        size_t s = (size_t)(start - row), e = run_end(row, s, (size_t)width, unchanged);
        for (size_t j = s; j < e; j++)
            if (shown[j * 4]) {
                runs++;
                break;
            }
        x = e;
    }
    return runs;
}

/// Candidate B of the rectangle into w->fill, rows `width` apart. false when it is candidate A
/// again (no pixel left as shown has a colour to fill in), or when its breaks (see count_breaks)
/// and the fewest the rows after it can have (`least`: for row y, about A's breaks less twice
/// its runs B can fill in, in rows y and after) reach `limit`: given up there.
static bool fill_every(gif_writer *w, const gif_colour_index *lookup, int left, int top, int width, int height,
                       long limit, const long *least) {
    const int unchanged = w->pending.unchanged;
    bool filled = false;
    uint8_t *o = w->fill;
    long count = 0;
    for (int y = top; y < top + height; y++) {
        const uint8_t *in = w->indices + (size_t)y * (size_t)w->width + left;
        uint8_t *row = o;
        for (int x = 0; x < width; x++, o++) {
            int k = in[x] == unchanged ? shown_index(w, lookup, (size_t)y * (size_t)w->width + (size_t)(left + x), unchanged)
                                       : in[x];
            *o = (uint8_t)k;
            filled |= in[x] == unchanged && k != unchanged;
        }
        count += count_breaks(row, width, row == w->fill ? -1 : row[-1]);
        if (count + (y + 1 < top + height ? least[y + 1 - top] : 0) >= limit) return false;
    }
    return filled;
}

/// Candidate C of the rectangle into w->fill (rows `width` apart): A, with each stretch of
/// pixels left as shown (runs of the index, in the order LZW reads them, across rows) that shows
/// one colour the palette holds written as that colour; a stretch that shows several stays
/// see-through. Only a stretch's first pixel is looked up: the others are compared with it, up
/// to the first that differs. false when it is A again or B again (`from_b`: B was coded).
static bool fill_stretches(gif_writer *w, const gif_colour_index *lookup, int left, int top, int width, int height,
                           bool from_b) {
    const int unchanged = w->pending.unchanged;
    uint8_t *fill = w->fill;
    for (int y = 0; y < height; y++)
        memcpy(fill + (size_t)y * (size_t)width, w->indices + (size_t)(top + y) * (size_t)w->width + left, (size_t)width);
    size_t n = (size_t)width * (size_t)height;
    bool filled = false, several = false;
    for (size_t i = 0; i < n;) {
        uint8_t *start = memchr(fill + i, unchanged, n - i);
        if (!start) break;
        size_t s = (size_t)(start - fill), e = run_end(fill, s, n, unchanged);
        // Pixel j of the candidate is pixel (left + j % width, top + j / width) of the frame.
        size_t p = (size_t)(top + (int)(s / (size_t)width)) * (size_t)w->width + (size_t)left + s % (size_t)width;
        int k = shown_index(w, lookup, p, unchanged);
        bool one = true;
        uint32_t first;
        memcpy(&first, w->shown + p * 4, 4);
        for (size_t j = s + 1; j < e && one; j++) {
            size_t q = (size_t)(top + (int)(j / (size_t)width)) * (size_t)w->width + (size_t)left + j % (size_t)width;
            uint32_t colour;
            memcpy(&colour, w->shown + q * 4, 4);
            one = colour == first;
        }
        if (!one) several = true;
        else if (k != unchanged) memset(fill + s, k, e - s), filled = true;
        i = e;
    }
    return filled && (!from_b || several);
}

/// Appends the frame's LZW data: candidate A (w->indices), then B and C where they differ from
/// those before and have fewer breaks than the fewest before and than A's less an eighth (B) or
/// a quarter (C) (LZW codes few long runs shortest; a candidate with about as many is not coded,
/// which keeps noise and photographs from being coded three times), the shortest kept. 0, or -1.
static int put_pixels(gif_writer *w, int code_bits, int left, int top, int width, int height, bool fill) {
    gif_buffer *out = &w->out;
    size_t mark = out->length;
    const uint8_t *a = w->indices + (size_t)top * (size_t)w->width + (size_t)left;
    if (gif_lzw_write(w->lzw, out, code_bits, a, width, height, (size_t)w->width, SIZE_MAX) != 0) return -1;
    if (!fill) return 0;
    // A's breaks, and its runs of pixels B and C can fill in: filling one takes away two breaks
    // at most (where it meets its neighbours), so B and C have about `fewest - 2 × runs` at least,
    // and rows y and after about w->least[y].
    long fewest = 0;
    for (int y = height - 1; y >= 0; y--) {
        const uint8_t *row = a + (size_t)y * (size_t)w->width;
        int before = y > 0 ? row[-(long)w->width + width - 1] : -1;
        long row_breaks = count_breaks(row, width, before);
        long runs = fillable_runs(w, row, top + y, left, width);
        fewest += row_breaks;
        w->least[y] = (y + 1 < height ? w->least[y + 1] : 0) + row_breaks - 2 * runs;
    }
    gif_colour_index lookup;
    build_lookup(&lookup, w->pending.palette);
    size_t best = out->length - mark;
    const long limit_a = fewest - fewest / 8, fewest_a = fewest;
    bool coded_b = false;
    for (int mixed = 0; mixed < 2; mixed++) {
        long limit = mixed ? VIPS_MIN(fewest_a - fewest_a / 4, fewest) : VIPS_MIN(limit_a, fewest);
        if (w->least[0] >= limit) continue;
        if (mixed ? !fill_stretches(w, &lookup, left, top, width, height, coded_b)
                  : !fill_every(w, &lookup, left, top, width, height, limit, w->least))
            continue;
        long count = count_breaks(w->fill, width * height, -1);
        if (count >= limit) continue;
        fewest = count, coded_b = !mixed;
        size_t at = out->length;
        int status = gif_lzw_write(w->lzw, out, code_bits, w->fill, width, height, (size_t)width, best);
        if (status < 0) return -1;
        size_t length = out->length - at;
        if (status == 0 && length < best) {
            memmove(out->bytes + mark, out->bytes + at, length);
            best = length;
            out->length = mark + best;
        } else {
            out->length = at;
        }
    }
    return 0;
}

/// Writes the waiting frame (its indices are still in w->indices) with `disposal`: 1 leaves it
/// in place; 2 clears its rectangle, grown to hold `clear` (its new pixels are the index for
/// unchanged pixels, so they show what was there until the disposal), to see-through, which
/// decoders do when the frame has a transparent index: it gets one; 3 restores its rectangle to
/// what was shown before it. 0; 2 when the GIF passed give_up_bytes with give_up_after_frames
/// frames written and one still to write (w->gave_up); -1 on failure (no libvips error).
GIF_HIDDEN int gifw_emit_pending(gif_writer *w, int disposal, const VipsRect *clear) {
    if (!w->pending.waiting) return 0;
    w->pending.waiting = false;
    int wl = w->pending.left, wt = w->pending.top, wr = w->pending.right, wb = w->pending.bottom;
    bool transparent = w->pending.transparent;
    if (disposal == 2) {
        int cl = VIPS_MIN(wl, clear->left), ct = VIPS_MIN(wt, clear->top);
        int cr = VIPS_MAX(wr, VIPS_RECT_RIGHT(clear) - 1), cb = VIPS_MAX(wb, VIPS_RECT_BOTTOM(clear) - 1);
        for (int y = ct; y <= cb; y++) { // the rectangle's new pixels leave what is shown
            uint8_t *row = w->indices + (size_t)y * (size_t)w->width;
            for (int x = cl; x <= cr; x++)
                if (y < wt || y > wb || x < wl || x > wr) row[x] = (uint8_t)w->pending.unchanged;
        }
        wl = cl, wt = ct, wr = cr, wb = cb;
        transparent = true;
    }
    const gifw_palette *palette = w->pending.palette;
    gif_buffer *out = &w->out;
    if (w->emitted == 0 && !put_screen(w)) return -1;
    if (w->frames > 1 || transparent) {
        if (!gif_put_control(out, disposal, false, w->pending.centiseconds, transparent ? w->pending.unchanged : -1, 0))
            return -1;
    }
    bool local = palette != &w->global;
    int bits = gifw_table_bits(palette);
    if (!gif_put_descriptor(out, wl, wt, wr - wl + 1, wb - wt + 1, local ? bits : 0)
        || (local && !gifw_put_table(out, palette, bits)))
        return -1;
    // The code size is the frame's table's (the screen's for the global one): indices fit below it.
    // Only a see-through index can leave pixels as shown (the first frame's unchanged pixels,
    // when it has none, are none).
    int code_bits = local ? bits : gifw_table_bits(&w->global);
    if (put_pixels(w, code_bits, wl, wt, wr - wl + 1, wb - wt + 1, transparent && w->emitted > 0) != 0 || out->failed)
        return -1;
    w->emitted += 1;
    if (w->give_up_bytes && out->length > w->give_up_bytes && w->emitted >= w->give_up_after_frames && w->emitted < w->frames) {
        w->gave_up = true;
        return 2;
    }
    return 0;
}
