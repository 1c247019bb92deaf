// GIF's LZW encoder, for the GIF writer (gif_write.c) and the re-packing pass (gif_repack.c).
//
// The same codes, byte for byte, as giflib's encoder (EGifPutLine): a clear code first, codes
// one bit wider than the minimum code size, one bit more once the next code to assign needs it,
// and a clear code instead of a new entry when the table holds 4,095 codes; sub-blocks of 255
// bytes. What differs is the dictionary's lookup. giflib packs key and code into 8,192 32-bit
// slots too, but slots them by (key >> 12) ^ key, which puts one prefix's keys in neighbouring
// slots, so linear probing walks long runs, and looks each pixel up through a function call;
// here a multiplicative hash spreads them, inlined (the table is 32 KB, in L1 cache: each
// pixel's lookup waits on the one before). giflib's encoder was a quarter of an animation's CPU once the GIF
// writer no longer remapped every pixel.
#include "gif_repack_internal.h"

#include <string.h>

#define LZW_MAX_CODE 4095
#define SLOT_MASK (GIFR_LZW_SLOTS - 1)

static void new_dictionary(gifr_lzw_table *t) { memset(t->entries, 0, sizeof t->entries); }

static inline uint32_t slot_of(uint32_t key) { return (key * 2654435761u) >> (32 - GIFR_LZW_SLOT_BITS); }

typedef struct {
    gif_output *out;
    size_t end;                // stop once out reaches this length
    int status;                // 1: stopped there; -1: out of memory
    unsigned char block[256];  // [0]: length
    uint64_t bits;
    int count;
} code_writer;

/// false when writing stops (w->status says why).
static inline bool put_byte(code_writer *w, unsigned char byte) {
    w->block[++w->block[0]] = byte;
    if (w->block[0] == 255) {
        if (!gifr_append(w->out, w->block, 256)) return w->status = -1, false;
        w->block[0] = 0;
        if (w->out->length >= w->end) return w->status = 1, false;
    }
    return true;
}

static inline bool put_code(code_writer *w, int code, int width) {
    w->bits |= (uint64_t)code << w->count;
    w->count += width;
    while (w->count >= 8) {
        if (!put_byte(w, (unsigned char)(w->bits & 0xff))) return false;
        w->bits >>= 8;
        w->count -= 8;
    }
    return true;
}

GIFR_HIDDEN int gifr_lzw_write(gifr_lzw_table *t, gif_output *out, int min_size, const GifPixelType *pixels, int width,
                               int height, size_t stride, size_t limit) {
    if (min_size < 2) min_size = 2;
    const int clear = 1 << min_size, end = clear + 1;
    code_writer w = {.out = out, .end = limit > SIZE_MAX - out->length ? SIZE_MAX : out->length + limit};
    if (!gifr_append_byte(out, (unsigned char)min_size)) return -1;
    int size = min_size + 1, next = end + 1, widen_at = 1 << size;
    new_dictionary(t);
    // giflib's order: a code is written at the current width, then the width grows if the next
    // code to assign no longer fits, then that code is assigned (or the table cleared).
#define PUT(code)                                                                                             \
    do {                                                                                                      \
        if (!put_code(&w, (code), size)) return w.status;                                                     \
        if (next >= widen_at && (code) <= LZW_MAX_CODE) size++, widen_at <<= 1;                               \
    } while (0)
    PUT(clear);
    int current = pixels[0];
    for (int y = 0; y < height; y++) {
        const GifPixelType *row = pixels + (size_t)y * stride;
        for (int x = y == 0 ? 1 : 0; x < width; x++) {
            const uint32_t key = ((uint32_t)current << 8) | row[x];
            uint32_t slot = slot_of(key), entry;
            while ((entry = t->entries[slot]) && entry >> 12 != key) slot = (slot + 1) & SLOT_MASK;
            if (entry) {
                current = (int)(entry & 0xfff);
                continue;
            }
            PUT(current);
            current = row[x];
            if (next >= LZW_MAX_CODE) {
                PUT(clear);
                size = min_size + 1, next = end + 1, widen_at = 1 << size;
                new_dictionary(t);
            } else {
                t->entries[slot] = key << 12 | (uint32_t)next++;
            }
        }
    }
    PUT(current);
    PUT(end);
#undef PUT
    while (w.count > 0) {
        if (!put_byte(&w, (unsigned char)(w.bits & 0xff))) return w.status;
        w.bits >>= 8;
        w.count -= 8;
    }
    if (w.block[0] && !gifr_append(out, w.block, (size_t)w.block[0] + 1)) return -1;
    if (!gifr_append_byte(out, 0)) return -1;
    return out->length >= w.end ? 1 : 0;
}
