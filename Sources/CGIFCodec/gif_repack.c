// A lossless second pass over the GIFs PushMedia writes (gif_write.c, or libvips' cgif saver when
// dithering), read with giflib: each frame is cut down to the rectangle of pixels that change
// what is shown, unchanged pixels inside it may
// become transparent or the colour already shown, the global table is ordered so that later
// frames use low indices (gif_repack_palette.c), and a frame that uses few colours may get a small
// local colour table: LZW codes start at the fewest bits that hold a frame's largest index
// (gif_repack_read.c). Of the candidates for a frame the smallest is written. What is shown after
// every frame stays exactly the same (the decoded canvas is compared, colour by colour).
//
// Disposal: a frame cleared to see-through after it is shown (2) keeps its rectangle, which is
// what is cleared. A frame restored to what was shown before it (3) keeps its disposal and is
// cut like one left in place: restoring the pixels it leaves as they were changes nothing, so
// only the rectangle of those it changes need be restored, and its unchanged pixels may become
// transparent or the colour already shown. Decoders that restore the frame's rectangle (FFmpeg,
// Pillow) and those that restore the whole canvas kept from before it (libnsgif) then show the
// same. The canvas under its rectangle is saved before it is drawn and put back after it, so the
// next frame is compared with what a decoder shows then.
//
// Memory: the canvas (width × height × 4 bytes), the canvas under a restored frame (as much at
// most), one frame's indices and the candidates' pixels; never frames × pixels. The input is
// read frame by frame.
#include "CGIFCodec.h"
#include "gif_repack.h"

#include <vips/vips.h>

#include <stdlib.h>
#include <string.h>

typedef struct {
    gif_buffer *bytes;
    uint32_t *canvas; // what is shown, 0 where nothing is
    uint32_t *saved;  // under a restored frame's rectangle, what was shown before it (its rows; a
                      // screen's worth, allocated at the first restored frame)
    int width, height;
    const ColorMapObject *global; // the global table in its new order
    GifPixelType order[256];      // old global index → new
    GifPixelType *changed; // per pixel of the frame's rectangle: 1 where the canvas changes
    GifPixelType *scratch[2];
    GifPixelType *shrunk;
    gifr_lzw_encoders lzw;
} repacker;

/// The LZW code size for indices up to `largest`: the fewest bits that hold it, 2 at least.
static int code_bits(int largest) {
    int bits = gifr_bits_for(largest + 1);
    return bits < 2 ? 2 : bits;
}

/// Whether the frame is cleared to see-through after it is shown (disposal 2; gifr_read_frames
/// takes it only with a transparent index).
static bool disposed(const gifr_frame *f) { return f->has_control && f->control.DisposalMode == DISPOSE_BACKGROUND; }

/// Whether the frame's rectangle is restored to what was shown before it, after it is shown
/// (disposal 3; gifr_read_frames takes it from the second frame on).
static bool restored(const gifr_frame *f) { return f->has_control && f->control.DisposalMode == DISPOSE_PREVIOUS; }

/// Copies what is shown under the frame's rectangle to r->saved (`save`), or back (restore).
static void copy_under(repacker *r, const gifr_frame *f, bool save) {
    size_t w = (size_t)f->width;
    for (int y = 0; y < f->height; y++) {
        uint32_t *shown = r->canvas + (size_t)(f->top + y) * (size_t)r->width + f->left;
        uint32_t *saved = r->saved + (size_t)y * w;
        memcpy(save ? saved : shown, save ? shown : saved, w * sizeof(uint32_t));
    }
}

/// Appends the candidate to out: its graphics control (when the frame had one or it needs
/// transparency), image descriptor, local table and LZW data, starting at the fewest bits that
/// hold its largest index. 0; 1 when out would reach `limit` bytes (given up part way); -1 on
/// failure.
static int put_candidate(repacker *r, const gifr_frame *f, const candidate *c, gif_buffer *out, size_t limit) {
    int largest = 0;
    size_t n = (size_t)c->width * (size_t)c->height;
    for (size_t i = 0; i < n; i++)
        if (c->pixels[i] > largest) largest = c->pixels[i];
    const ColorMapObject *local = c->local ? c->local : f->local;
    int transparent = c->transparent;
    if (disposed(f) && transparent < 0) {
        // A frame cleared after it is shown clears to see-through only with a transparent index:
        // one its pixels do not use, inside its table (not drawn, so its colour does not matter).
        bool used[256] = {false};
        for (size_t i = 0; i < n; i++) used[c->pixels[i]] = true;
        int entries = (local ? local : f->colours)->ColorCount;
        for (int i = 0; transparent < 0 && i < entries; i++)
            if (!used[i]) transparent = i;
        if (transparent < 0) return 1; // every index drawn: not this candidate
    }
    if (f->has_control || transparent >= 0) {
        GraphicsControlBlock control = f->has_control ? f->control
            : (GraphicsControlBlock){DISPOSAL_UNSPECIFIED, false, 0, NO_TRANSPARENT_COLOR};
        if (!gif_put_control(out, control.DisposalMode, control.UserInputFlag, control.DelayTime, transparent, 0xff))
            return -1;
    }
    int bits = code_bits(largest);
    if (!gif_put_descriptor(out, c->left, c->top, c->width, c->height, local ? local->BitsPerPixel : 0)) return -1;
    if (local && !gif_buffer_append(out, local->Colors, (size_t)3 << local->BitsPerPixel)) return -1;
    if (out->length >= limit) return 1;
    const gif_buffer *data = NULL;
    int status = gifr_lzw_encode(&r->lzw, bits, c, limit - out->length, &data);
    if (status != 0) return status;
    return gif_buffer_append(out, data->bytes, data->length) ? 0 : -1;
}

/// Keeps the candidate's bytes in *best when they are fewer (a candidate that reaches the best's
/// length is given up part way). -1 on failure.
static int try_candidate(repacker *r, const gifr_frame *f, const candidate *c, gif_buffer *best) {
    gif_buffer trial = {0};
    int status = put_candidate(r, f, c, &trial, best->bytes ? best->length : SIZE_MAX);
    if (trial.failed) status = -1;
    if (status == 0 && (!best->bytes || trial.length < best->length)) {
        free(best->bytes);
        *best = trial;
        return 0;
    }
    free(trial.bytes);
    return status < 0 ? -1 : 0;
}

/// Tries the candidate as it is and with a smaller local table.
static int try_both_tables(repacker *r, const gifr_frame *f, const candidate *c, gif_buffer *best) {
    if (try_candidate(r, f, c, best) != 0) return -1;
    candidate small = {0};
    if (!gifr_shrink_table(f, c, &small, r->shrunk)) return 0;
    int status = try_candidate(r, f, &small, best);
    GifFreeMapObject(small.local);
    return status;
}

/// A rectangle inside a frame.
typedef struct {
    int x0, y0, x1, y1; // inclusive; x1 < 0: empty
} rectangle;

/// Marks which pixels of the frame change what is shown (r->changed), draws them on the canvas,
/// and returns their rectangle; `uses[i]`: some changed pixel has index i.
static rectangle draw_changes(repacker *r, const gifr_frame *f, bool uses[256]) {
    rectangle box = {f->width, f->height, -1, -1};
    int t = f->has_control ? f->control.TransparentColor : -1;
    for (int y = 0; y < f->height; y++) {
        uint32_t *row = r->canvas + (size_t)(f->top + y) * (size_t)r->width + f->left;
        const GifPixelType *in = f->pixels + (size_t)y * (size_t)f->width;
        GifPixelType *changed = r->changed + (size_t)y * (size_t)f->width;
        for (int x = 0; x < f->width; x++) {
            changed[x] = 0;
            if (in[x] == t) continue;
            uint32_t colour = gifr_opaque(f->colours, in[x]);
            if (colour == row[x]) continue;
            row[x] = colour;
            changed[x] = 1;
            uses[in[x]] = true;
            if (x < box.x0) box.x0 = x;
            if (x > box.x1) box.x1 = x;
            if (y < box.y0) box.y0 = y;
            if (y > box.y1) box.y1 = y;
        }
    }
    return box;
}

/// `from` with every unchanged pixel replaced: by `clear` when `lookup` is NULL, else by the
/// index of the colour already shown there, or `clear` (marked transparent) where the table
/// lacks it. false when that needs a transparent index and `clear` is -1.
static bool replace_unchanged(const repacker *r, const gifr_frame *f, rectangle box, const candidate *from,
                              const gif_colour_index *lookup, int clear, candidate *into) {
    *into = *from;
    into->pixels = r->scratch[1];
    into->transparent = lookup ? -1 : clear;
    int w = from->width;
    for (int y = 0; y < from->height; y++) {
        const GifPixelType *in = from->pixels + (size_t)y * (size_t)w;
        const GifPixelType *changed = r->changed + (size_t)(box.y0 + y) * (size_t)f->width + box.x0;
        const uint32_t *shown = r->canvas + (size_t)(from->top + y) * (size_t)r->width + from->left;
        GifPixelType *o = into->pixels + (size_t)y * (size_t)w;
        for (int x = 0; x < w; x++) {
            int index = changed[x] ? in[x] : lookup ? gif_colour_index_find(lookup, shown[x]) : clear;
            if (index < 0) {
                if (clear < 0) return false;
                index = clear;
                into->transparent = clear;
            }
            o[x] = (GifPixelType)index;
        }
    }
    return true;
}

/// Whether two candidates of one rectangle write the same indices under the same transparency.
static bool same_candidate(const candidate *a, const candidate *b) {
    return a->transparent == b->transparent && a->local == b->local
        && memcmp(a->pixels, b->pixels, (size_t)a->width * (size_t)a->height) == 0;
}

/// Writes the smallest of the frame's candidates: its own indices in the rectangle of pixels
/// that change what is shown, the same with unchanged pixels transparent, and with unchanged
/// pixels the colour already shown; each also under a smaller local table. Then the canvas is
/// disposed of as a decoder does before the next frame: cleared (2) or restored (3).
static int put_frame(repacker *r, const gifr_frame *f) {
    bool uses[256] = {false};
    if (restored(f)) { // before draw_changes draws on the canvas
        // Allocated at the first restored frame: most GIFs have none.
        if (!r->saved) r->saved = malloc((size_t)r->width * (size_t)r->height * sizeof(uint32_t));
        if (!r->saved) return -1;
        copy_under(r, f, true);
    }
    rectangle box = draw_changes(r, f, uses);
    bool first = f->index == 0;
    // The first frame keeps its rectangle: outside it the canvas is background; a disposed one
    // too: the rectangle is what is cleared. A restored one is cut like any other: restoring the
    // pixels it leaves as they were changes nothing.
    if (first || disposed(f)) {
        box = (rectangle){0, 0, f->width - 1, f->height - 1};
    } else if (box.x1 < 0) { // nothing changes: one pixel keeps the frame (and its delay)
        box = (rectangle){0, 0, 0, 0};
    }
    int w = box.x1 - box.x0 + 1, h = box.y1 - box.y0 + 1;
    int t = f->has_control ? f->control.TransparentColor : -1;

    candidate own = {f->left + box.x0, f->top + box.y0, w, h, r->scratch[0], NULL, t};
    for (int y = 0; y < h; y++)
        memcpy(own.pixels + (size_t)y * (size_t)w, f->pixels + (size_t)(box.y0 + y) * (size_t)f->width + box.x0, (size_t)w);
    gif_buffer best = {0};
    int status = try_both_tables(r, f, &own, &best);

    // Transparent indices: the frame's own, and the lowest no changed pixel uses (fewer bits when
    // lower); only inside the table, and only where the frame already had a graphics control (one
    // added with delay 0 would change its timing for decoders that read a missing one as 100 ms).
    int lowest_free = -1;
    for (int i = 0; lowest_free < 0 && i < 256; i++)
        if (!uses[i]) lowest_free = i;
    int colours = f->colours->ColorCount;
    bool may_clear = f->has_control && !first;
    int clears[2] = {may_clear && t < colours ? t : -1,
                     may_clear && lowest_free < colours && lowest_free != t ? lowest_free : -1};
    // The lowest free index is worth trying only when its codes start narrower than those of the
    // frame's own transparent index: otherwise the two candidates (and their small tables) are
    // the same indices under another name, code for code as long, and the first one tried is kept.
    int largest_changed = 0;
    for (int i = 0; i < 256; i++)
        if (uses[i]) largest_changed = i;
    if (clears[0] >= 0 && clears[1] >= 0
        && code_bits(VIPS_MAX(largest_changed, clears[1])) == code_bits(VIPS_MAX(largest_changed, clears[0])))
        clears[1] = -1;
    candidate replaced;
    for (int k = 0; k < 2 && status == 0; k++)
        if (clears[k] >= 0 && replace_unchanged(r, f, box, &own, NULL, clears[k], &replaced)
            && !same_candidate(&replaced, &own)) // a frame whose unchanged pixels are transparent already
            status = try_both_tables(r, f, &replaced, &best);

    // Unchanged pixels as the colour already shown (gifsicle's choice: long runs of one index
    // where a frame partly covers a flat area), transparent only where the table lacks it.
    int fill_clear = clears[0] >= 0 ? clears[0] : clears[1];
    if (status == 0 && !first) {
        gif_colour_index lookup;
        gifr_colour_index_build(&lookup, f->colours, fill_clear);
        if (replace_unchanged(r, f, box, &own, &lookup, fill_clear, &replaced))
            status = try_both_tables(r, f, &replaced, &best);
    }
    if (status == 0 && !gif_buffer_append(r->bytes, best.bytes, best.length)) status = -1;
    free(best.bytes);
    if (status == 0 && disposed(f)) // cleared to see-through before the next frame is drawn
        for (int y = 0; y < f->height; y++)
            memset(r->canvas + (size_t)(f->top + y) * (size_t)r->width + f->left, 0, (size_t)f->width * sizeof(uint32_t));
    if (status == 0 && restored(f)) copy_under(r, f, false); // what is shown again before the next frame
    return status;
}

/// Writes a frame as read: indices into the global table moved to its new order first.
static int repack_frame(void *context, gifr_frame *f) {
    repacker *r = context;
    if (!f->local) {
        size_t n = (size_t)f->width * (size_t)f->height;
        for (size_t i = 0; i < n; i++) f->pixels[i] = r->order[f->pixels[i]];
        if (f->has_control && f->control.TransparentColor >= 0)
            f->control.TransparentColor = r->order[f->control.TransparentColor & 0xff];
        f->colours = r->global;
    }
    return put_frame(r, f);
}

int pm_gif_repack(const unsigned char *gif, size_t length, unsigned char **repacked, size_t *repacked_length) {
    *repacked = NULL;
    *repacked_length = 0;
    gif_input input = {gif, length, 0};
    int error = 0;
    GifFileType *in = DGifOpen(&input, gifr_read_input, &error);
    if (!in) return -1;
    gif_buffer bytes = {0};
    repacker r = {.bytes = &bytes, .width = in->SWidth, .height = in->SHeight};
    size_t area = (size_t)in->SWidth * (size_t)in->SHeight;
    GifPixelType *pixels = NULL;
    int status = 0;
    // PushMedia's GIFs are at most a few megapixels; the buffers take 9 bytes a screen pixel, 13
    // with a restored frame (the canvas under it, allocated when the first one comes).
    if (area == 0 || area > (size_t)1 << 24) status = 1;
    if (status == 0) {
        r.canvas = calloc(area, sizeof(uint32_t));
        pixels = malloc(area + 8); // gif_lzw_decode's spare bytes
        r.changed = malloc(area);
        r.scratch[0] = malloc(area);
        r.scratch[1] = malloc(area);
        r.shrunk = malloc(area);
        if (!r.canvas || !pixels || !r.changed || !r.scratch[0] || !r.scratch[1] || !r.shrunk) status = -1;
    }
    // The global table in the order frames use it (frames with their own table keep theirs).
    GifPixelType *order = r.order;
    ColorMapObject *global = NULL;
    if (status == 0 && in->SColorMap) {
        status = gifr_global_order(gif, length, pixels, order);
        global = status == 0 ? GifMakeMapObject(in->SColorMap->ColorCount, in->SColorMap->Colors) : NULL;
        if (status == 0 && !global) status = -1;
        for (int i = 0; global && i < in->SColorMap->ColorCount; i++)
            if (order[i] < global->ColorCount) global->Colors[order[i]] = in->SColorMap->Colors[i];
    }
    unsigned char background = (unsigned char)(global ? order[in->SBackGroundColor & 0xff] : in->SBackGroundColor);
    if (status == 0 && !gifr_put_screen(in, global, background, &bytes)) status = -1;
    r.global = global;
    if (status == 0) status = gifr_read_frames(in, pixels, &bytes, repack_frame, &r);
    if (status == 0 && !gif_buffer_put_byte(&bytes, 0x3b)) status = -1;
    DGifCloseFile(in, &error);
    if (global) GifFreeMapObject(global);
    gifr_lzw_close(&r.lzw);
    free(r.canvas);
    free(r.saved);
    free(pixels);
    free(r.changed);
    free(r.scratch[0]);
    free(r.scratch[1]);
    free(r.shrunk);
    if (status == 0 && !bytes.failed && bytes.length < length) {
        *repacked = bytes.bytes;
        *repacked_length = bytes.length;
        return 0;
    }
    free(bytes.bytes);
    return status < 0 ? -1 : 1;
}
