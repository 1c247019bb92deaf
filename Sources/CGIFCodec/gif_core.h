// What every part of the GIF codec shares: a growing byte buffer, the GIF blocks both writers
// put (graphic control, image descriptor), LZW (the encoder the writer and the re-packing pass
// write with, the decoder the decoder and the re-packing pass read with) and a colour → index
// lookup. Nothing here knows giflib. Private to CGIFCodec.
#ifndef PUSHMEDIA_GIF_CORE_H
#define PUSHMEDIA_GIF_CORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/// The codec's functions are not exported from the binary (it exports its symbols for
/// backtraces); only the entry points of CGIFCodec.h are.
#define GIF_HIDDEN __attribute__((visibility("hidden")))

/// Bytes written in memory (gif_buffer.c): grown as needed; `failed` once an allocation failed
/// (what was written before stays).
typedef struct {
    unsigned char *bytes;
    size_t length, capacity;
    bool failed;
} gif_buffer;

GIF_HIDDEN bool gif_buffer_append(gif_buffer *out, const void *bytes, size_t count);
GIF_HIDDEN bool gif_buffer_put_byte(gif_buffer *out, unsigned char byte);
/// A 16-bit little-endian word.
GIF_HIDDEN bool gif_buffer_put_word(gif_buffer *out, int word);

/// A graphic control extension: disposal, user input flag, delay (centiseconds) and transparent
/// index (-1: none; then `unused_index` fills its byte: giflib writes 0xff, the GIF writer 0).
GIF_HIDDEN bool gif_put_control(gif_buffer *out, int disposal, bool user_input, int delay, int transparent,
                                unsigned char unused_index);
/// An image descriptor; `table_bits` > 0 announces a local table of 2^table_bits entries (the
/// caller writes it next).
GIF_HIDDEN bool gif_put_descriptor(gif_buffer *out, int left, int top, int width, int height, int table_bits);

#define GIF_LZW_SLOT_BITS 13
#define GIF_LZW_SLOTS (1u << GIF_LZW_SLOT_BITS)

/// LZW's dictionary (gif_lzw.c), open addressing: each entry is its key (prefix code << 8 |
/// pixel, 20 bits) << 12 | its code (258…4094, so 0 is an empty slot).
typedef struct {
    uint32_t entries[GIF_LZW_SLOTS];
} gif_lzw_table;

/// The decoder's strings: where each code's string was last written, and its length.
typedef struct {
    uint32_t offsets[4096];
    uint16_t lengths[4096];
} gif_lzw_strings;

/// Appends the image data (minimum code size byte, LZW codes in sub-blocks, terminator) of
/// `height` rows of `width` indices, `stride` apart, each below 2^min_size (at least 2): the
/// bytes giflib's encoder writes for them. 0; 1 when they reach `limit` bytes (SIZE_MAX: no
/// limit), checked a sub-block at a time, so that a candidate that cannot be the smallest is
/// given up part way (out then holds part of them); -1 when out of memory.
GIF_HIDDEN int gif_lzw_write(gif_lzw_table *t, gif_buffer *out, int min_size, const uint8_t *pixels, int width,
                             int height, size_t stride, size_t limit);

/// Decodes LZW `data` (a frame's sub-blocks without their headers, `bytes` long, 8 readable
/// bytes after them) of minimum code size `min_size` into at most `capacity` indices (`indices`
/// has 8 bytes spare after them). Returns the indices decoded (fewer when the data or an end
/// code comes first), or -1 for data libnsgif fails on.
GIF_HIDDEN long gif_lzw_decode(const unsigned char *data, size_t bytes, int min_size, unsigned char *indices,
                               size_t capacity, gif_lzw_strings *strings);

/// Colour → the first index of a table with that colour (open addressing), leaving out the
/// index reserved for transparency.
typedef struct {
    uint32_t colours[1024];
    int16_t indices[1024]; // -1: empty
} gif_colour_index;

static inline size_t gif_colour_slot(uint32_t colour) { return (colour * 2654435761u) >> 22; }

/// The index of an opaque colour, or -1 (not in the table, or nothing shown: alpha 0).
static inline int gif_colour_index_find(const gif_colour_index *lookup, uint32_t colour) {
    if (!(colour >> 24)) return -1;
    for (size_t slot = gif_colour_slot(colour);; slot = (slot + 1) & 1023) {
        if (lookup->indices[slot] < 0) return -1;
        if (lookup->colours[slot] == colour) return lookup->indices[slot];
    }
}

#endif
