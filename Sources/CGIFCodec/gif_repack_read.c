// The GIF re-packing pass's input (gif_repack.c): giflib reading the blocks from memory a frame
// at a time, a frame's codes decoded by gif_lzw_decode (gifr_read_frames, the one reader of
// both passes: the palette count and the re-packing), a candidate's LZW, and the header.
#include "gif_repack.h"

#include <stdlib.h>
#include <string.h>

GIF_HIDDEN int gifr_read_input(GifFileType *gif, GifByteType *into, int count) {
    gif_input *in = gif->UserData;
    size_t n = (size_t)count;
    if (n > in->length - in->offset) n = in->length - in->offset;
    memcpy(into, in->bytes + in->offset, n);
    in->offset += n;
    return (int)n;
}

GIF_HIDDEN int gifr_lzw_encode(gifr_lzw_encoders *r, int bits, const candidate *c, size_t limit, const gif_buffer **data) {
    if (!r->table && !(r->table = calloc(1, sizeof *r->table))) return -1;
    r->bytes.length = 0;
    int status = gif_lzw_write(r->table, &r->bytes, bits, c->pixels, c->width, c->height, (size_t)c->width, limit);
    if (r->bytes.failed) return -1;
    *data = &r->bytes;
    return status;
}

void gifr_lzw_close(gifr_lzw_encoders *r) {
    free(r->table);
    free(r->bytes.bytes);
}

/// Reads one extension (all its sub-blocks): a graphics control is kept for the next frame,
/// anything else copied to `out` as it is (skipped when `out` is NULL). 1: a second graphics
/// control before one image (decoders disagree on which counts: giflib the first, most the last).
static int read_extension(GifFileType *in, gif_buffer *out, gifr_frame *next) {
    int code;
    GifByteType *block;
    if (DGifGetExtension(in, &code, &block) != GIF_OK) return -1;
    bool control = code == GRAPHICS_EXT_FUNC_CODE;
    if (control) {
        if (next->has_control) return 1;
        if (!block || DGifExtensionToGCB(block[0], block + 1, &next->control) != GIF_OK) return -1;
        next->has_control = true;
    } else if (out && (!gif_buffer_put_byte(out, 0x21) || !gif_buffer_put_byte(out, (unsigned char)code))) {
        return -1;
    }
    while (block) {
        if (!control && out && !gif_buffer_append(out, block, (size_t)block[0] + 1)) return -1;
        if (DGifGetExtensionNext(in, &block) != GIF_OK) return -1;
    }
    return control || !out || gif_buffer_put_byte(out, 0) ? 0 : -1;
}

/// Whether the pass can re-pack the frame whose descriptor giflib just read exactly: inside the
/// screen, the first one covering it (decoders differ on what shows where it does not), not
/// interlaced, with a colour table; left in place (disposal 0 or 1), cleared to see-through
/// (disposal 2 with a transparent index, as PushMedia's writer disposes frames; without one,
/// decoders differ: the background colour or see-through), or restored to what was shown before
/// it (3), from the second frame on (as the writer restores: decoders differ on what restoring
/// the first shows).
static bool repackable(const GifFileType *in, const gifr_frame *f) {
    const GifImageDesc *d = &in->Image;
    bool partial_first = f->index == 0 && (d->Left != 0 || d->Top != 0 || d->Width != in->SWidth || d->Height != in->SHeight);
    return f->colours && !partial_first && !d->Interlace && d->Left >= 0 && d->Top >= 0 && d->Width > 0 && d->Height > 0
        && d->Left + d->Width <= in->SWidth && d->Top + d->Height <= in->SHeight
        && (!f->has_control || f->control.DisposalMode <= DISPOSE_DO_NOT
            || (f->control.DisposalMode == DISPOSE_BACKGROUND && f->control.TransparentColor >= 0)
            || (f->control.DisposalMode == DISPOSE_PREVIOUS && f->index > 0));
}

/// A frame's indices, all width × height of them: its compressed sub-blocks as giflib reads them
/// (DGifGetCode), gathered into `data` and decoded by gif_lzw_decode. 0; 1 for a code size the
/// pass does not take; -1 when the data does not decode to every index.
static int read_indices(GifFileType *in, GifPixelType *pixels, size_t count, gif_buffer *data, gif_lzw_strings *strings) {
    int code_size = 0;
    GifByteType *block = NULL;
    data->length = 0;
    if (DGifGetCode(in, &code_size, &block) != GIF_OK) return -1;
    while (block) {
        if (!gif_buffer_append(data, block + 1, block[0])) return -1;
        if (DGifGetCodeNext(in, &block) != GIF_OK) return -1;
    }
    static const unsigned char spare[8] = {0};
    if (code_size < 2 || code_size > 8) return 1;
    size_t bytes = data->length;
    if (!gif_buffer_append(data, spare, sizeof spare)) return -1;
    return gif_lzw_decode(data->bytes, bytes, code_size, pixels, count, strings) == (long)count ? 0 : -1;
}

static int read_frames(GifFileType *in, GifPixelType *pixels, gif_buffer *extensions, gifr_frame_handler handle,
                       void *context, gif_buffer *data, gif_lzw_strings *strings) {
    gifr_frame next = {0};
    int index = 0, status = 0;
    GifRecordType record = UNDEFINED_RECORD_TYPE;
    while (status == 0 && record != TERMINATE_RECORD_TYPE) {
        if (DGifGetRecordType(in, &record) != GIF_OK) return -1;
        if (record == EXTENSION_RECORD_TYPE) {
            status = read_extension(in, extensions, &next);
        } else if (record == IMAGE_DESC_RECORD_TYPE) {
            if (DGifGetImageDesc(in) != GIF_OK) return -1;
            const GifImageDesc *d = &in->Image;
            next.index = index++;
            next.colours = d->ColorMap ? d->ColorMap : in->SColorMap;
            next.local = d->ColorMap;
            if (!repackable(in, &next)) return 1;
            next.left = d->Left, next.top = d->Top, next.width = d->Width, next.height = d->Height;
            next.pixels = pixels;
            size_t n = (size_t)d->Width * (size_t)d->Height;
            if ((status = read_indices(in, pixels, n, data, strings)) != 0) return status;
            int t = next.has_control ? next.control.TransparentColor : -1;
            for (size_t i = 0; i < n; i++) // decoders differ on indices past the table, unless transparent
                if (pixels[i] >= next.colours->ColorCount && pixels[i] != t) return 1;
            status = handle(context, &next);
            next = (gifr_frame){0};
        }
    }
    return status;
}

GIF_HIDDEN int gifr_read_frames(GifFileType *in, GifPixelType *pixels, gif_buffer *extensions,
                                 gifr_frame_handler handle, void *context) {
    gif_buffer data = {0};
    gif_lzw_strings *strings = malloc(sizeof *strings);
    int status = strings ? read_frames(in, pixels, extensions, handle, context, &data, strings) : -1;
    free(strings);
    free(data.bytes);
    return status;
}

/// The header and logical screen.
GIF_HIDDEN bool gifr_put_screen(const GifFileType *in, const ColorMapObject *map, unsigned char background,
                       gif_buffer *out) {
    unsigned char flags = (unsigned char)(((in->SColorResolution - 1) & 7) << 4);
    if (map) flags |= (unsigned char)(0x80 | (map->SortFlag ? 0x08 : 0) | ((map->BitsPerPixel - 1) & 7));
    return gif_buffer_append(out, "GIF89a", 6) && gif_buffer_put_word(out, in->SWidth) && gif_buffer_put_word(out, in->SHeight)
        && gif_buffer_put_byte(out, flags) && gif_buffer_put_byte(out, background)
        && gif_buffer_put_byte(out, in->AspectByte)
        && (!map || gif_buffer_append(out, map->Colors, (size_t)3 << map->BitsPerPixel));
}

