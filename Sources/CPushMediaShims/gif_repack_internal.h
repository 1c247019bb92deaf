// Shared by the GIF re-packing pass (gif_repack.c, gif_bytes.c, gif_palette.c): giflib's input
// and output in memory, a frame as read and a way to write it. Private to CPushMediaShims.
#ifndef PUSHMEDIA_GIF_REPACK_INTERNAL_H
#define PUSHMEDIA_GIF_REPACK_INTERNAL_H

#include <gif_lib.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define GIFR_HIDDEN __attribute__((visibility("hidden")))

typedef struct {
    const unsigned char *bytes;
    size_t length, offset;
} gif_input;

typedef struct {
    unsigned char *bytes;
    size_t length, capacity;
    bool failed;
} gif_output;

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

#define GIFR_LZW_SLOT_BITS 13
#define GIFR_LZW_SLOTS (1u << GIFR_LZW_SLOT_BITS)

/// LZW's dictionary (gif_lzw.c), open addressing: each entry is its key (prefix code << 8 |
/// pixel, 20 bits) << 12 | its code (258…4094, so 0 is an empty slot).
typedef struct {
    uint32_t entries[GIFR_LZW_SLOTS];
} gifr_lzw_table;

/// The decoder's strings: where each code's string was last written, and its length.
typedef struct {
    uint32_t offsets[4096];
    uint16_t lengths[4096];
} gifr_lzw_strings;

/// Decodes LZW `data` (a frame's sub-blocks without their headers, `bytes` long, 8 readable
/// bytes after them) of minimum code size `min_size` into at most `capacity` indices (`indices`
/// has 8 bytes spare after them). Returns the indices decoded (fewer when the data or an end
/// code comes first), or -1 for data libnsgif fails on.
GIFR_HIDDEN long gifr_lzw_decode(const unsigned char *data, size_t bytes, int min_size, unsigned char *indices,
                                 size_t capacity, gifr_lzw_strings *strings);

/// An LZW encoder for the re-packing pass's candidates, with the output of the last one.
typedef struct {
    gifr_lzw_table *table; // allocated on first use
    gif_output bytes;
} gifr_lzw_encoders;

static inline uint32_t gifr_opaque(const ColorMapObject *map, GifPixelType i) {
    const GifColorType c = map->Colors[i < map->ColorCount ? i : 0];
    return 0xff000000u | ((uint32_t)c.Red << 16) | ((uint32_t)c.Green << 8) | c.Blue;
}

/// Colour → the first index of a table with that colour (open addressing), leaving out the
/// index reserved for transparency.
typedef struct {
    uint32_t colours[1024];
    int16_t indices[1024]; // -1: empty
} gifr_colour_index;

static inline size_t gifr_colour_slot(uint32_t colour) { return (colour * 2654435761u) >> 22; }

/// The index of an opaque colour, or -1 (not in the table, or nothing shown: alpha 0).
static inline int gifr_colour_index_find(const gifr_colour_index *lookup, uint32_t colour) {
    if (!(colour >> 24)) return -1;
    for (size_t slot = gifr_colour_slot(colour);; slot = (slot + 1) & 1023) {
        if (lookup->indices[slot] < 0) return -1;
        if (lookup->colours[slot] == colour) return lookup->indices[slot];
    }
}


// gif_bytes.c: reading and writing in memory, the GIF structure, giflib's LZW encoder.
GIFR_HIDDEN int gifr_read_input(GifFileType *gif, GifByteType *into, int count);
GIFR_HIDDEN int gifr_write_output(GifFileType *gif, const GifByteType *bytes, int count);
GIFR_HIDDEN bool gifr_append(gif_output *out, const void *bytes, size_t count);
GIFR_HIDDEN bool gifr_append_byte(gif_output *out, unsigned char byte);
GIFR_HIDDEN bool gifr_append_word(gif_output *out, int word);
/// The image data (code size byte, sub-blocks, terminator) of a candidate's pixels, whose
/// largest index is below 2^bits, in *data (valid until the next call): 0. 1 when it would take
/// `limit` bytes or more (given up part way), -1 on failure.
GIFR_HIDDEN int gifr_lzw_encode(gifr_lzw_encoders *r, int bits, const candidate *c, size_t limit, const gif_output **data);
GIFR_HIDDEN void gifr_lzw_close(gifr_lzw_encoders *r);
/// What gifr_read_frames calls with each frame, its indices read and checked; 0 to go on.
typedef int (*gifr_frame_handler)(void *context, gifr_frame *frame);
/// Reads the GIF a frame at a time into `pixels` (a screen's worth): a graphics control goes with
/// the frame after it, other extensions are copied to `extensions` as they come (skipped when
/// NULL). A frame's `colours` is its own table, else the global one. 0 at the end; 1 at the first
/// frame the pass cannot re-pack exactly (disposed without a transparent index, a first frame
/// restored, interlaced, a partial first frame, two
/// graphics controls before one image, an index past its table); -1 when giflib cannot read it;
/// else the handler's non-zero status.
GIFR_HIDDEN int gifr_read_frames(GifFileType *in, GifPixelType *pixels, gif_output *extensions,
                                 gifr_frame_handler handle, void *context);
/// A graphic control extension (transparent -1: none, its byte then `unused_index`).
GIFR_HIDDEN bool gifr_put_control(gif_output *out, int disposal, bool user_input, int delay, int transparent,
                                  unsigned char unused_index);
/// An image descriptor, with a local table of 2^table_bits entries to follow when table_bits > 0.
GIFR_HIDDEN bool gifr_put_descriptor(gif_output *out, int left, int top, int width, int height, int table_bits);
/// The header and logical screen.
GIFR_HIDDEN bool gifr_put_screen(const GifFileType *in, const ColorMapObject *map, unsigned char background,
                                 gif_output *out);

// gif_lzw.c: LZW.
/// Appends the image data (minimum code size byte, LZW codes in sub-blocks, terminator) of
/// `height` rows of `width` indices, `stride` apart, each below 2^min_size (at least 2): the
/// bytes giflib's encoder writes for them. 0; 1 when they reach `limit` bytes (SIZE_MAX: no
/// limit), checked a sub-block at a time, so that a candidate that cannot be the smallest is
/// given up part way (out then holds part of them); -1 when out of memory.
GIFR_HIDDEN int gifr_lzw_write(gifr_lzw_table *t, gif_output *out, int min_size, const GifPixelType *pixels, int width,
                               int height, size_t stride, size_t limit);

// gif_palette.c: colour tables.
GIFR_HIDDEN int gifr_bits_for(int count);
/// The candidate with the same pixels under a local table holding only the colours they use,
/// when that table is smaller than the frame's own. Returns false when it would not be.
GIFR_HIDDEN bool gifr_shrink_table(const gifr_frame *f, const candidate *from, candidate *into, GifPixelType *pixels);
GIFR_HIDDEN void gifr_colour_index_build(gifr_colour_index *lookup, const ColorMapObject *map, int reserved);
/// A new order for the global table: the colours the frames after the first draw most come
/// first, so those frames' indices are small and their LZW codes can start narrower.
/// order[old index] = new index. 0, 1 when an index is outside the table (not re-packed), -1
/// when giflib cannot read the input.
GIFR_HIDDEN int gifr_global_order(const unsigned char *gif, size_t length, GifPixelType *pixels,
                                  GifPixelType order[256]);

#endif
