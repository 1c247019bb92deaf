// A lossless second pass over the GIF libvips' saver (cgif) writes, with giflib: each frame is
// cut down to the rectangle of pixels that change what is shown, unchanged pixels inside it may
// become transparent or the colour already shown, the global table is ordered so that later
// frames use low indices (gif_palette.c), and a frame that uses few colours may get a small
// local colour table: LZW codes start at the fewest bits that hold a frame's largest index
// (gif_bytes.c). Of the candidates for a frame the smallest is written. What is shown after
// every frame stays exactly the same (the decoded canvas is compared, colour by colour).
//
// Memory: the canvas (width × height × 4 bytes), one frame's indices and the candidates' pixels;
// never frames × pixels. The input is read frame by frame.
#include "PushMediaShims.h"
#include "gif_repack_internal.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
    gif_output *bytes;
    uint32_t *canvas; // what is shown, 0 where nothing is
    int width, height;
    bool first;
    GifPixelType *changed; // per pixel of the frame's rectangle: 1 where the canvas changes
    GifPixelType *scratch[2];
    GifPixelType *shrunk;
    gifr_lzw_encoders lzw;
} repacker;

/// Appends the candidate to out: its graphics control (when the frame had one or it needs
/// transparency), image descriptor, local table and LZW data, starting at the fewest bits that
/// hold its largest index. false on failure.
static bool put_candidate(repacker *r, const gifr_frame *f, const candidate *c, gif_output *out) {
    if (f->has_control || c->transparent >= 0) {
        GraphicsControlBlock control = f->has_control ? f->control
            : (GraphicsControlBlock){DISPOSAL_UNSPECIFIED, false, 0, NO_TRANSPARENT_COLOR};
        control.TransparentColor = c->transparent;
        GifByteType bytes[4];
        size_t length = EGifGCBToExtension(&control, bytes);
        if (!gifr_append_byte(out, 0x21) || !gifr_append_byte(out, GRAPHICS_EXT_FUNC_CODE) || !gifr_append_byte(out, (unsigned char)length)
            || !gifr_append(out, bytes, length) || !gifr_append_byte(out, 0))
            return false;
    }
    int largest = 0;
    size_t n = (size_t)c->width * (size_t)c->height;
    for (size_t i = 0; i < n; i++)
        if (c->pixels[i] > largest) largest = c->pixels[i];
    int bits = gifr_bits_for(largest + 1);
    if (bits < 2) bits = 2;
    const gif_output *data = gifr_lzw_encode(&r->lzw, bits, c);
    if (!data) return false;
    const ColorMapObject *local = c->local ? c->local : f->local;
    unsigned char flags = local ? (unsigned char)(0x80 | ((local->BitsPerPixel - 1) & 7)) : 0;
    if (!gifr_append_byte(out, 0x2c) || !gifr_append_word(out, c->left) || !gifr_append_word(out, c->top)
        || !gifr_append_word(out, c->width) || !gifr_append_word(out, c->height) || !gifr_append_byte(out, flags))
        return false;
    if (local && !gifr_append(out, local->Colors, (size_t)3 << local->BitsPerPixel)) return false;
    return gifr_append(out, data->bytes, data->length);
}

/// Keeps the candidate's bytes in *best when they are fewer. -1 on failure.
static int try_candidate(repacker *r, const gifr_frame *f, const candidate *c, gif_output *best) {
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
static int try_both_tables(repacker *r, const gifr_frame *f, const candidate *c, gif_output *best) {
    if (try_candidate(r, f, c, best) != 0) return -1;
    candidate small = {0};
    if (!gifr_shrink_table(f, c, &small, r->shrunk)) return 0;
    int status = try_candidate(r, f, &small, best);
    GifFreeMapObject(small.local);
    return status;
}

static int put_frame(repacker *r, const gifr_frame *f) {
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
            uint32_t colour = gifr_opaque(f->colours, in[x]);
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
        gifr_colour_index lookup;
        gifr_colour_index_build(&lookup, f->colours, fill_clear);
        candidate filled = own;
        filled.pixels = r->scratch[1];
        filled.transparent = -1;
        for (int y = 0; y < h && status == 0; y++) {
            const GifPixelType *in = own.pixels + (size_t)y * (size_t)w;
            const GifPixelType *changed = r->changed + (size_t)(y0 + y) * (size_t)f->width + x0;
            const uint32_t *shown = r->canvas + (size_t)(f->top + y0 + y) * (size_t)r->width + f->left + x0;
            GifPixelType *o = filled.pixels + (size_t)y * (size_t)w;
            for (int x = 0; x < w; x++) {
                int index = changed[x] ? in[x] : gifr_colour_index_find(&lookup, shown[x]);
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
    if (status == 0 && !gifr_append(r->bytes, best.bytes, best.length)) status = -1;
    free(best.bytes);
    return status;
}

int pm_gif_repack(const unsigned char *gif, size_t length, unsigned char **repacked, size_t *repacked_length) {
    *repacked = NULL;
    *repacked_length = 0;
    gif_input input = {gif, length, 0};
    int error = 0;
    GifFileType *in = DGifOpen(&input, gifr_read_input, &error);
    if (!in) return -1;
    gif_output bytes = {0};
    repacker r = {.bytes = &bytes, .width = in->SWidth, .height = in->SHeight, .first = true,
                  .lzw = {.width = in->SWidth, .height = in->SHeight}};
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
        status = gifr_global_order(gif, length, pixels, area, order);
        global = status == 0 ? GifMakeMapObject(in->SColorMap->ColorCount, in->SColorMap->Colors) : NULL;
        if (status == 0 && !global) status = -1;
        for (int i = 0; global && i < in->SColorMap->ColorCount; i++)
            if (order[i] < global->ColorCount) global->Colors[order[i]] = in->SColorMap->Colors[i];
    }
    unsigned char background = (unsigned char)(global ? order[in->SBackGroundColor & 0xff] : in->SBackGroundColor);
    if (status == 0 && !gifr_put_screen(in, global, background, &bytes)) status = -1;
    gifr_frame next = {0};
    GifRecordType record = UNDEFINED_RECORD_TYPE;
    while (status == 0 && record != TERMINATE_RECORD_TYPE) {
        if (DGifGetRecordType(in, &record) != GIF_OK) {
            status = -1;
            break;
        }
        if (record == EXTENSION_RECORD_TYPE) {
            status = gifr_copy_extension(in, &bytes, &next);
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
            next = (gifr_frame){0};
        }
    }
    if (status == 0 && !gifr_append_byte(&bytes, 0x3b)) status = -1;
    DGifCloseFile(in, &error);
    if (global) GifFreeMapObject(global);
    gifr_lzw_close(&r.lzw);
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
