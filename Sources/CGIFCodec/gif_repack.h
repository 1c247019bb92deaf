// Shared by the GIF re-packing pass (gif_repack.c: the candidates of each frame, the smallest
// written; gif_repack_read.c: giflib reading the input a frame at a time; gif_repack_palette.c:
// colour tables): a frame as read and a way to write it. Private to CGIFCodec.
#ifndef PUSHMEDIA_GIF_REPACK_H
#define PUSHMEDIA_GIF_REPACK_H

#include "gif_core.h"

#include <gif_lib.h>

/// giflib's input: a GIF in memory.
typedef struct {
    const unsigned char *bytes;
    size_t length, offset;
} gif_input;

/// A frame as read: its rectangle, indices, colour table and graphics control.
typedef struct {
    int index;                     // 0 for the first frame
    int left, top, width, height;
    GifPixelType *pixels;          // width × height indices
    const ColorMapObject *colours; // the local table, else the global one
    const ColorMapObject *local;   // the frame's own table, written again unless replaced
    bool has_control;
    GraphicsControlBlock control;
} gifr_frame;

/// One way to write a frame: a rectangle, its indices and (when not NULL) a local table.
typedef struct {
    int left, top, width, height;
    GifPixelType *pixels;
    ColorMapObject *local;
    int transparent; // -1: none
} candidate;

/// An LZW encoder for the re-packing pass's candidates, with the output of the last one.
typedef struct {
    gif_lzw_table *table; // allocated on first use
    gif_buffer bytes;
} gifr_lzw_encoders;

static inline uint32_t gifr_opaque(const ColorMapObject *map, GifPixelType i) {
    const GifColorType c = map->Colors[i < map->ColorCount ? i : 0];
    return 0xff000000u | ((uint32_t)c.Red << 16) | ((uint32_t)c.Green << 8) | c.Blue;
}

// gif_repack_read.c: the input through giflib, the LZW of a candidate, the header.
/// giflib's read function over a gif_input.
GIF_HIDDEN int gifr_read_input(GifFileType *gif, GifByteType *into, int count);
/// The image data (code size byte, sub-blocks, terminator) of a candidate's pixels, whose
/// largest index is below 2^bits, in *data (valid until the next call): 0. 1 when it would take
/// `limit` bytes or more (given up part way), -1 on failure.
GIF_HIDDEN int gifr_lzw_encode(gifr_lzw_encoders *r, int bits, const candidate *c, size_t limit, const gif_buffer **data);
GIF_HIDDEN void gifr_lzw_close(gifr_lzw_encoders *r);
/// What gifr_read_frames calls with each frame, its indices read and checked; 0 to go on.
typedef int (*gifr_frame_handler)(void *context, gifr_frame *frame);
/// Reads the GIF a frame at a time into `pixels` (a screen's worth): a graphics control goes with
/// the frame after it, other extensions are copied to `extensions` as they come (skipped when
/// NULL). A frame's `colours` is its own table, else the global one. 0 at the end; 1 at the first
/// frame the pass cannot re-pack exactly (disposed without a transparent index, a first frame
/// restored, interlaced, a partial first frame, two
/// graphics controls before one image, an index past its table); -1 when giflib cannot read it;
/// else the handler's non-zero status.
GIF_HIDDEN int gifr_read_frames(GifFileType *in, GifPixelType *pixels, gif_buffer *extensions,
                                gifr_frame_handler handle, void *context);
/// The header and logical screen.
GIF_HIDDEN bool gifr_put_screen(const GifFileType *in, const ColorMapObject *map, unsigned char background,
                                gif_buffer *out);

// gif_repack_palette.c: colour tables.
GIF_HIDDEN int gifr_bits_for(int count);
/// The candidate with the same pixels under a local table holding only the colours they use,
/// when that table is smaller than the frame's own. Returns false when it would not be.
GIF_HIDDEN bool gifr_shrink_table(const gifr_frame *f, const candidate *from, candidate *into, GifPixelType *pixels);
GIF_HIDDEN void gifr_colour_index_build(gif_colour_index *lookup, const ColorMapObject *map, int reserved);
/// A new order for the global table: the colours the frames after the first draw most come
/// first, so those frames' indices are small and their LZW codes can start narrower.
/// order[old index] = new index. 0, 1 when an index is outside the table (not re-packed), -1
/// when giflib cannot read the input.
GIF_HIDDEN int gifr_global_order(const unsigned char *gif, size_t length, GifPixelType *pixels,
                                 GifPixelType order[256]);

#endif
