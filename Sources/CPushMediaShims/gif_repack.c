// A lossless second pass over the GIF libvips' saver (cgif) writes, with giflib: each frame is
// cut down to the rectangle of pixels that change what is shown, unchanged pixels inside it may
// become transparent or the colour already shown, the global table is ordered so that later
// frames use low indices, and a frame that uses few colours may get a small local colour table:
// LZW codes start at the fewest bits that hold a frame's largest index. Of the candidates for a frame the smallest is written. What is shown
// after every frame stays exactly the same (the decoded canvas is compared, colour by colour).
//
// Memory: the canvas (width × height × 4 bytes), one frame's indices and the candidates' pixels;
// never frames × pixels. The input is read frame by frame.
#include "PushMediaShims.h"

#include <gif_lib.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

// ---- giflib's input and output in memory -----------------------------------------------------

typedef struct {
    const unsigned char *bytes;
    size_t length, offset;
} gif_input;

static int read_input(GifFileType *gif, GifByteType *into, int count) {
    gif_input *in = gif->UserData;
    size_t n = (size_t)count;
    if (n > in->length - in->offset) n = in->length - in->offset;
    memcpy(into, in->bytes + in->offset, n);
    in->offset += n;
    return (int)n;
}

typedef struct {
    unsigned char *bytes;
    size_t length, capacity;
    bool failed;
} gif_output;

static int write_output(GifFileType *gif, const GifByteType *bytes, int count) {
    gif_output *out = gif->UserData;
    size_t need = out->length + (size_t)count;
    if (need > out->capacity) {
        size_t capacity = out->capacity ? out->capacity : 64 * 1024;
        while (capacity < need) capacity *= 2;
        unsigned char *grown = realloc(out->bytes, capacity);
        if (!grown) {
            out->failed = true;
            return 0;
        }
        out->bytes = grown;
        out->capacity = capacity;
    }
    memcpy(out->bytes + out->length, bytes, (size_t)count);
    out->length = need;
    return count;
}

// ---- one frame --------------------------------------------------------------------------------

/// A frame as read: its rectangle, indices, colour table and graphics control.
typedef struct {
    int left, top, width, height;
    GifPixelType *pixels;          // width × height indices
    const ColorMapObject *colours; // the local table, else the global one
    const ColorMapObject *local;   // the frame's own table, written again unless replaced
    bool has_control;
    GraphicsControlBlock control;
} frame;

/// One way to write a frame: a rectangle, its indices and (when not NULL) a local table.
typedef struct {
    int left, top, width, height;
    GifPixelType *pixels;
    ColorMapObject *local;
    int transparent; // -1: none
} candidate;

static inline uint32_t opaque(const ColorMapObject *map, GifPixelType i) {
    const GifColorType c = map->Colors[i < map->ColorCount ? i : 0];
    return 0xff000000u | ((uint32_t)c.Red << 16) | ((uint32_t)c.Green << 8) | c.Blue;
}

static int bits_for(int count) {
    int bits = 1;
    while ((1 << bits) < count) bits++;
    return bits;
}

/// The candidate with the same pixels under a local table holding only the colours they use,
/// when that table is smaller than the frame's own. Returns false when it would not be.
static bool shrink_table(const frame *f, const candidate *from, candidate *into, GifPixelType *pixels) {
    bool used[256] = {false};
    size_t n = (size_t)from->width * (size_t)from->height;
    int count = 0;
    for (size_t i = 0; i < n; i++) {
        if (!used[from->pixels[i]]) {
            used[from->pixels[i]] = true;
            count++;
        }
    }
    int largest = 0;
    for (int i = 0; i < 256; i++)
        if (used[i]) largest = i;
    int bits = bits_for(count < 2 ? 2 : count);
    if ((bits < 2 ? 2 : bits) >= (bits_for(largest + 1) < 2 ? 2 : bits_for(largest + 1))) return false;
    GifColorType colours[256];
    GifPixelType map[256];
    int next = 0;
    for (int i = 0; i < 256; i++) {
        if (!used[i]) continue;
        map[i] = (GifPixelType)next;
        colours[next++] = f->colours->Colors[i < f->colours->ColorCount ? i : 0];
    }
    for (; next < (1 << bits); next++) colours[next] = (GifColorType){0, 0, 0};
    into->local = GifMakeMapObject(1 << bits, colours);
    if (!into->local) return false;
    for (size_t i = 0; i < n; i++) pixels[i] = map[from->pixels[i]];
    into->pixels = pixels;
    into->left = from->left;
    into->top = from->top;
    into->width = from->width;
    into->height = from->height;
    into->transparent = from->transparent >= 0 && used[from->transparent] ? map[from->transparent] : -1;
    return true;
}

/// Colour → the first index of a table with that colour (open addressing), leaving out the
/// index reserved for transparency.
typedef struct {
    uint32_t colours[1024];
    int16_t indices[1024]; // -1: empty
} colour_index;

static inline size_t colour_slot(uint32_t colour) { return (colour * 2654435761u) >> 22; }

static void colour_index_build(colour_index *lookup, const ColorMapObject *map, int reserved) {
    memset(lookup->indices, 0xff, sizeof lookup->indices);
    for (int i = 0; i < map->ColorCount; i++) {
        if (i == reserved) continue;
        uint32_t colour = opaque(map, (GifPixelType)i);
        size_t slot = colour_slot(colour);
        while (lookup->indices[slot] >= 0 && lookup->colours[slot] != colour) slot = (slot + 1) & 1023;
        if (lookup->indices[slot] >= 0) continue; // a colour listed twice keeps its first index
        lookup->colours[slot] = colour;
        lookup->indices[slot] = (int16_t)i;
    }
}

/// The index of an opaque colour, or -1 (not in the table, or nothing shown: alpha 0).
static inline int colour_index_find(const colour_index *lookup, uint32_t colour) {
    if (!(colour >> 24)) return -1;
    for (size_t slot = colour_slot(colour);; slot = (slot + 1) & 1023) {
        if (lookup->indices[slot] < 0) return -1;
        if (lookup->colours[slot] == colour) return lookup->indices[slot];
    }
}

typedef struct {
    gif_output *bytes;
    uint32_t *canvas; // what is shown, 0 where nothing is
    int width, height;
    bool first;
    GifPixelType *changed; // per pixel of the frame's rectangle: 1 where the canvas changes
    GifPixelType *scratch[2];
    GifPixelType *shrunk;
    // giflib's LZW encoder for each starting code size (2…8), each on a screen whose table has
    // 2^size colours, with its own output: giflib takes the code size from the colour table.
    GifFileType *lzw[9];
    gif_output lzw_bytes[9];
} repacker;

static bool append(gif_output *out, const void *bytes, size_t count) {
    return write_output(&(GifFileType){.UserData = out}, bytes, (int)count) == (int)count;
}

static bool append_byte(gif_output *out, unsigned char byte) { return append(out, &byte, 1); }

static bool append_word(gif_output *out, int word) {
    unsigned char bytes[2] = {(unsigned char)(word & 0xff), (unsigned char)((word >> 8) & 0xff)};
    return append(out, bytes, 2);
}

/// The image data (code size byte, sub-blocks, terminator) of pixels whose largest index is
/// below 2^bits, from giflib's encoder; NULL on failure. Valid until the next call.
static const gif_output *lzw_encode(repacker *r, int bits, const candidate *c) {
    if (!r->lzw[bits]) {
        GifColorType colours[256] = {{0, 0, 0}};
        ColorMapObject *map = GifMakeMapObject(1 << bits, colours);
        int error = 0;
        r->lzw[bits] = map ? EGifOpen(&r->lzw_bytes[bits], write_output, &error) : NULL;
        bool ok = r->lzw[bits] && EGifPutScreenDesc(r->lzw[bits], r->width, r->height, 8, 0, map) == GIF_OK;
        if (map) GifFreeMapObject(map);
        if (!ok) return NULL;
    }
    gif_output *out = &r->lzw_bytes[bits];
    out->length = 0;
    if (EGifPutImageDesc(r->lzw[bits], 0, 0, c->width, c->height, false, NULL) != GIF_OK) return NULL;
    // giflib's image descriptor (10 bytes, no local table: we write our own), then its data
    const size_t descriptor = 10;
    if (out->length < descriptor || out->bytes[0] != 0x2c) return NULL;
    if (EGifPutLine(r->lzw[bits], c->pixels, c->width * c->height) != GIF_OK || out->failed) return NULL;
    memmove(out->bytes, out->bytes + descriptor, out->length - descriptor);
    out->length -= descriptor;
    return out;
}

/// Appends the candidate to out: its graphics control (when the frame had one or it needs
/// transparency), image descriptor, local table and LZW data, starting at the fewest bits that
/// hold its largest index. false on failure.
static bool put_candidate(repacker *r, const frame *f, const candidate *c, gif_output *out) {
    if (f->has_control || c->transparent >= 0) {
        GraphicsControlBlock control = f->has_control ? f->control
            : (GraphicsControlBlock){DISPOSAL_UNSPECIFIED, false, 0, NO_TRANSPARENT_COLOR};
        control.TransparentColor = c->transparent;
        GifByteType bytes[4];
        size_t length = EGifGCBToExtension(&control, bytes);
        if (!append_byte(out, 0x21) || !append_byte(out, GRAPHICS_EXT_FUNC_CODE) || !append_byte(out, (unsigned char)length)
            || !append(out, bytes, length) || !append_byte(out, 0))
            return false;
    }
    int largest = 0;
    size_t n = (size_t)c->width * (size_t)c->height;
    for (size_t i = 0; i < n; i++)
        if (c->pixels[i] > largest) largest = c->pixels[i];
    int bits = bits_for(largest + 1);
    if (bits < 2) bits = 2;
    const gif_output *data = lzw_encode(r, bits, c);
    if (!data) return false;
    const ColorMapObject *local = c->local ? c->local : f->local;
    unsigned char flags = local ? (unsigned char)(0x80 | ((local->BitsPerPixel - 1) & 7)) : 0;
    if (!append_byte(out, 0x2c) || !append_word(out, c->left) || !append_word(out, c->top)
        || !append_word(out, c->width) || !append_word(out, c->height) || !append_byte(out, flags))
        return false;
    if (local && !append(out, local->Colors, (size_t)3 << local->BitsPerPixel)) return false;
    return append(out, data->bytes, data->length);
}

/// Keeps the candidate's bytes in *best when they are fewer. -1 on failure.
static int try_candidate(repacker *r, const frame *f, const candidate *c, gif_output *best) {
    gif_output trial = {0};
    int status = put_candidate(r, f, c, &trial) && !trial.failed ? 0 : -1;
    if (status == 0 && (!best->bytes || trial.length < best->length)) {
        free(best->bytes);
        *best = trial;
        return 0;
    }
    free(trial.bytes);
    return status;
}

/// Tries the candidate as it is and with a smaller local table.
static int try_both_tables(repacker *r, const frame *f, const candidate *c, gif_output *best) {
    if (try_candidate(r, f, c, best) != 0) return -1;
    candidate small = {0};
    if (!shrink_table(f, c, &small, r->shrunk)) return 0;
    int status = try_candidate(r, f, &small, best);
    GifFreeMapObject(small.local);
    return status;
}

static int put_frame(repacker *r, const frame *f) {
    // Which pixels change what is shown (the canvas is updated on the way), and their rectangle.
    int x0 = f->width, y0 = f->height, x1 = -1, y1 = -1;
    int t = f->has_control ? f->control.TransparentColor : -1;
    bool changed_uses[256] = {false};
    for (int y = 0; y < f->height; y++) {
        uint32_t *row = r->canvas + (size_t)(f->top + y) * (size_t)r->width + f->left;
        const GifPixelType *in = f->pixels + (size_t)y * (size_t)f->width;
        GifPixelType *changed = r->changed + (size_t)y * (size_t)f->width;
        for (int x = 0; x < f->width; x++) {
            changed[x] = 0;
            if (in[x] == t) continue;
            uint32_t colour = opaque(f->colours, in[x]);
            if (colour == row[x]) continue;
            row[x] = colour;
            changed[x] = 1;
            changed_uses[in[x]] = true;
            if (x < x0) x0 = x;
            if (x > x1) x1 = x;
            if (y < y0) y0 = y;
            if (y > y1) y1 = y;
        }
    }
    bool first = r->first;
    r->first = false;
    if (first) { // the first frame keeps its rectangle: outside it the canvas is background
        x0 = 0, y0 = 0, x1 = f->width - 1, y1 = f->height - 1;
    } else if (x1 < 0) { // nothing changes: one pixel keeps the frame (and its delay)
        x0 = x1 = 0, y0 = y1 = 0;
    }
    int w = x1 - x0 + 1, h = y1 - y0 + 1;

    // The frame's own indices in that rectangle.
    candidate own = {f->left + x0, f->top + y0, w, h, r->scratch[0], NULL, t};
    for (int y = 0; y < h; y++)
        memcpy(own.pixels + (size_t)y * (size_t)w, f->pixels + (size_t)(y0 + y) * (size_t)f->width + x0, (size_t)w);
    gif_output best = {0};
    int status = try_both_tables(r, f, &own, &best);

    // The same with every unchanged pixel transparent: under the frame's transparent index, and
    // under the lowest index no changed pixel uses (fewer bits when that is lower).
    int lowest_free = -1;
    for (int i = 0; lowest_free < 0 && i < 256; i++)
        if (!changed_uses[i]) lowest_free = i;
    // Only indices inside the table, and only where the frame already had a graphics control: one
    // added with delay 0 would change its timing for decoders that read a missing one as 100 ms.
    int colours = f->colours->ColorCount;
    bool may_clear = f->has_control;
    int clears[2] = {may_clear && t < colours ? t : -1,
                     may_clear && lowest_free < colours && lowest_free != t ? lowest_free : -1};
    for (int k = 0; k < 2 && status == 0 && !first; k++) {
        if (clears[k] < 0) continue;
        candidate cleared = own;
        cleared.pixels = r->scratch[1];
        cleared.transparent = clears[k];
        for (int y = 0; y < h; y++) {
            const GifPixelType *in = own.pixels + (size_t)y * (size_t)w;
            const GifPixelType *changed = r->changed + (size_t)(y0 + y) * (size_t)f->width + x0;
            GifPixelType *o = cleared.pixels + (size_t)y * (size_t)w;
            for (int x = 0; x < w; x++) o[x] = changed[x] ? in[x] : (GifPixelType)clears[k];
        }
        status = try_both_tables(r, f, &cleared, &best);
    }

    // Every unchanged pixel written as the colour already shown there (gifsicle's choice: it
    // makes long runs of one index where the frame only partly covers a flat area), transparent
    // only where that colour is not in the table or nothing is shown.
    int fill_clear = clears[0] >= 0 ? clears[0] : clears[1];
    if (status == 0 && !first) {
        colour_index lookup;
        colour_index_build(&lookup, f->colours, fill_clear);
        candidate filled = own;
        filled.pixels = r->scratch[1];
        filled.transparent = -1;
        for (int y = 0; y < h && status == 0; y++) {
            const GifPixelType *in = own.pixels + (size_t)y * (size_t)w;
            const GifPixelType *changed = r->changed + (size_t)(y0 + y) * (size_t)f->width + x0;
            const uint32_t *shown = r->canvas + (size_t)(f->top + y0 + y) * (size_t)r->width + f->left + x0;
            GifPixelType *o = filled.pixels + (size_t)y * (size_t)w;
            for (int x = 0; x < w; x++) {
                int index = changed[x] ? in[x] : colour_index_find(&lookup, shown[x]);
                if (index < 0) {
                    if (fill_clear < 0) { // no index can stand for "unchanged": not a candidate
                        status = 1;
                        break;
                    }
                    index = fill_clear;
                    filled.transparent = fill_clear;
                }
                o[x] = (GifPixelType)index;
            }
        }
        status = status == 1 ? 0 : try_both_tables(r, f, &filled, &best);
    }
    if (status == 0 && !append(r->bytes, best.bytes, best.length)) status = -1;
    free(best.bytes);
    return status;
}

/// Reads one extension (all its sub-blocks); a graphics control is kept for the next frame,
/// anything else is copied to the output as it is.
static int copy_extension(GifFileType *in, gif_output *out, frame *next) {
    int code;
    GifByteType *block;
    if (DGifGetExtension(in, &code, &block) != GIF_OK) return -1;
    if (code == GRAPHICS_EXT_FUNC_CODE) {
        // Two before one image: decoders disagree on which counts (giflib the first, most the last).
        if (next->has_control) return 1;
        if (!block || DGifExtensionToGCB(block[0], block + 1, &next->control) != GIF_OK) return -1;
        next->has_control = true;
        while (block)
            if (DGifGetExtensionNext(in, &block) != GIF_OK) return -1;
        return 0;
    }
    if (!append_byte(out, 0x21) || !append_byte(out, (unsigned char)code)) return -1;
    while (block) {
        if (!append(out, block, (size_t)block[0] + 1)) return -1;
        if (DGifGetExtensionNext(in, &block) != GIF_OK) return -1;
    }
    return append_byte(out, 0) ? 0 : -1;
}

/// A new order for the global table: the colours the frames after the first draw most come
/// first, so those frames' indices are small and their LZW codes can start narrower.
/// order[old index] = new index. 0, 1 when an index is outside the table (not re-packed), -1
/// when giflib cannot read the input.
static int global_order(const unsigned char *gif, size_t length, GifPixelType *pixels, size_t area,
                         GifPixelType order[256]) {
    for (int i = 0; i < 256; i++) order[i] = (GifPixelType)i;
    gif_input input = {gif, length, 0};
    int error = 0;
    GifFileType *in = DGifOpen(&input, read_input, &error);
    if (!in) return -1;
    size_t count[256] = {0};
    int transparent = -1, frames = 0;
    GifRecordType record = UNDEFINED_RECORD_TYPE;
    bool ok = in->SColorMap != NULL, in_table = true;
    while (ok && record != TERMINATE_RECORD_TYPE) {
        if (DGifGetRecordType(in, &record) != GIF_OK) ok = false;
        else if (record == EXTENSION_RECORD_TYPE) {
            int code;
            GifByteType *block;
            GraphicsControlBlock control;
            ok = DGifGetExtension(in, &code, &block) == GIF_OK;
            if (ok && code == GRAPHICS_EXT_FUNC_CODE && block && DGifExtensionToGCB(block[0], block + 1, &control) == GIF_OK)
                transparent = control.TransparentColor;
            while (ok && block) ok = DGifGetExtensionNext(in, &block) == GIF_OK;
        } else if (record == IMAGE_DESC_RECORD_TYPE) {
            ok = DGifGetImageDesc(in) == GIF_OK && (size_t)in->Image.Width * (size_t)in->Image.Height <= area
                && DGifGetLine(in, pixels, in->Image.Width * in->Image.Height) == GIF_OK;
            size_t n = (size_t)in->Image.Width * (size_t)in->Image.Height;
            if (ok && frames++ > 0 && !in->Image.ColorMap)
                for (size_t i = 0; i < n; i++)
                    if (pixels[i] != transparent) count[pixels[i]]++;
            if (ok && !in->Image.ColorMap)
                for (size_t i = 0; i < n; i++)
                    if (pixels[i] >= in->SColorMap->ColorCount && pixels[i] != transparent) in_table = false;
            transparent = -1;
        }
    }
    DGifCloseFile(in, &error);
    if (!ok) return -1;
    if (!in_table) return 1;
    int by_use[256];
    for (int i = 0; i < 256; i++) by_use[i] = i;
    for (int i = 1; i < 256; i++) { // stable: equal counts keep their order
        int k = by_use[i], j = i - 1;
        while (j >= 0 && count[by_use[j]] < count[k]) {
            by_use[j + 1] = by_use[j];
            j--;
        }
        by_use[j + 1] = k;
    }
    for (int i = 0; i < 256; i++) order[by_use[i]] = (GifPixelType)i;
    return 0;
}

/// The header and logical screen.
static bool put_screen(const GifFileType *in, const ColorMapObject *map, unsigned char background,
                       gif_output *out) {
    unsigned char flags = (unsigned char)(((in->SColorResolution - 1) & 7) << 4);
    if (map) flags |= (unsigned char)(0x80 | (map->SortFlag ? 0x08 : 0) | ((map->BitsPerPixel - 1) & 7));
    return append(out, "GIF89a", 6) && append_word(out, in->SWidth) && append_word(out, in->SHeight)
        && append_byte(out, flags) && append_byte(out, background)
        && append_byte(out, in->AspectByte)
        && (!map || append(out, map->Colors, (size_t)3 << map->BitsPerPixel));
}

int pm_gif_repack(const unsigned char *gif, size_t length, unsigned char **repacked, size_t *repacked_length) {
    *repacked = NULL;
    *repacked_length = 0;
    gif_input input = {gif, length, 0};
    int error = 0;
    GifFileType *in = DGifOpen(&input, read_input, &error);
    if (!in) return -1;
    gif_output bytes = {0};
    repacker r = {.bytes = &bytes, .width = in->SWidth, .height = in->SHeight, .first = true};
    size_t area = (size_t)in->SWidth * (size_t)in->SHeight;
    GifPixelType *pixels = NULL;
    int status = 0;
    // PushMedia's GIFs are at most a few megapixels; the buffers take 9 bytes a screen pixel.
    if (area == 0 || area > (size_t)1 << 24) status = 1;
    if (status == 0) {
        r.canvas = calloc(area, sizeof(uint32_t));
        pixels = malloc(area);
        r.changed = malloc(area);
        r.scratch[0] = malloc(area);
        r.scratch[1] = malloc(area);
        r.shrunk = malloc(area);
        if (!r.canvas || !pixels || !r.changed || !r.scratch[0] || !r.scratch[1] || !r.shrunk) status = -1;
    }
    // The global table in the order frames use it (frames with their own table keep theirs).
    GifPixelType order[256];
    ColorMapObject *global = NULL;
    if (status == 0 && in->SColorMap) {
        status = global_order(gif, length, pixels, area, order);
        global = status == 0 ? GifMakeMapObject(in->SColorMap->ColorCount, in->SColorMap->Colors) : NULL;
        if (status == 0 && !global) status = -1;
        for (int i = 0; global && i < in->SColorMap->ColorCount; i++)
            if (order[i] < global->ColorCount) global->Colors[order[i]] = in->SColorMap->Colors[i];
    }
    unsigned char background = (unsigned char)(global ? order[in->SBackGroundColor & 0xff] : in->SBackGroundColor);
    if (status == 0 && !put_screen(in, global, background, &bytes)) status = -1;
    frame next = {0};
    GifRecordType record = UNDEFINED_RECORD_TYPE;
    while (status == 0 && record != TERMINATE_RECORD_TYPE) {
        if (DGifGetRecordType(in, &record) != GIF_OK) {
            status = -1;
            break;
        }
        if (record == EXTENSION_RECORD_TYPE) {
            status = copy_extension(in, &bytes, &next);
        } else if (record == IMAGE_DESC_RECORD_TYPE) {
            if (DGifGetImageDesc(in) != GIF_OK) {
                status = -1;
                break;
            }
            GifImageDesc *d = &in->Image;
            next.colours = d->ColorMap ? d->ColorMap : global;
            next.local = d->ColorMap;
            // Only what it can re-pack exactly: frames inside the screen, a first frame covering
            // it (decoders differ on what shows where it does not), not interlaced, not disposed
            // (libvips writes none of those), and a colour table.
            bool partial_first = r.first && (d->Left != 0 || d->Top != 0 || d->Width != in->SWidth || d->Height != in->SHeight);
            if (!next.colours || partial_first || d->Interlace || d->Left < 0 || d->Top < 0 || d->Width <= 0 || d->Height <= 0
                || d->Left + d->Width > in->SWidth || d->Top + d->Height > in->SHeight
                || (next.has_control && next.control.DisposalMode > DISPOSE_DO_NOT)) {
                status = 1;
                break;
            }
            next.left = d->Left, next.top = d->Top, next.width = d->Width, next.height = d->Height;
            next.pixels = pixels;
            if (DGifGetLine(in, pixels, d->Width * d->Height) != GIF_OK) {
                status = -1;
                break;
            }
            size_t n = (size_t)d->Width * (size_t)d->Height;
            int t = next.has_control ? next.control.TransparentColor : -1;
            for (size_t i = 0; i < n && status == 0; i++) // decoders differ on these, unless transparent
                if (pixels[i] >= next.colours->ColorCount && pixels[i] != t) status = 1;
            if (status != 0) break;
            if (!d->ColorMap) { // indices into the reordered global table
                for (size_t i = 0; i < n; i++) pixels[i] = order[pixels[i]];
                if (next.has_control && next.control.TransparentColor >= 0)
                    next.control.TransparentColor = order[next.control.TransparentColor & 0xff];
            }
            status = put_frame(&r, &next);
            next = (frame){0};
        }
    }
    if (status == 0 && !append_byte(&bytes, 0x3b)) status = -1;
    DGifCloseFile(in, &error);
    if (global) GifFreeMapObject(global);
    for (int bits = 0; bits < 9; bits++) {
        if (r.lzw[bits]) EGifCloseFile(r.lzw[bits], &error);
        free(r.lzw_bytes[bits].bytes);
    }
    free(r.canvas);
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
