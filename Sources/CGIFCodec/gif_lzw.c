// GIF's LZW encoder, for the GIF writer (gif_write.c) and the re-packing pass (gif_repack.c),
// and its decoder, for PushMedia's GIF decoder (gif_read.c) and the re-packing pass's reading.
//
// The decoder reads a frame's data gathered without its sub-block headers, so a code is one
// unaligned load, and copies a string from where it was last written (8 bytes at a time when it
// does not overlap its copy) instead of walking a prefix chain. It fails where libnsgif (libvips'
// loader) fails: a code the table does not hold yet, an end code first after a clear; and
// like libnsgif it drops a last code that ends exactly where the data ends.
//
// The same codes, byte for byte, as giflib's encoder (EGifPutLine): a clear code first, codes
// one bit wider than the minimum code size, one bit more once the next code to assign needs it,
// and a clear code instead of a new entry when the table holds 4,095 codes; sub-blocks of 255
// bytes. What differs is the dictionary's lookup. giflib packs key and code into 8,192 32-bit
// slots too, but slots them by (key >> 12) ^ key, which puts one prefix's keys in neighbouring
// slots, so linear probing walks long runs, and looks each pixel up through a function call;
// here a multiplicative hash spreads them, inlined (the table is 32 KB, in L1 cache: each
// pixel's lookup waits on the one before). With the writer mapping only the pixels that change,
// giflib's encoder was a quarter of an animation's CPU.
#include "gif_core.h"

#include <string.h>

#define LZW_MAX_CODE 4095
#define SLOT_MASK (GIF_LZW_SLOTS - 1)

static void new_dictionary(gif_lzw_table *t) { memset(t->entries, 0, sizeof t->entries); }

static inline uint32_t slot_of(uint32_t key) { return (key * 2654435761u) >> (32 - GIF_LZW_SLOT_BITS); }

typedef struct {
    gif_buffer *out;
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
        if (!gif_buffer_append(w->out, w->block, 256)) return w->status = -1, false;
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

GIF_HIDDEN int gif_lzw_write(gif_lzw_table *t, gif_buffer *out, int min_size, const uint8_t *pixels, int width,
                               int height, size_t stride, size_t limit) {
    if (min_size < 2) min_size = 2;
    const int clear = 1 << min_size, end = clear + 1;
    code_writer w = {.out = out, .end = limit > SIZE_MAX - out->length ? SIZE_MAX : out->length + limit};
    if (!gif_buffer_put_byte(out, (unsigned char)min_size)) return -1;
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
        const uint8_t *row = pixels + (size_t)y * stride;
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
    if (w.block[0] && !gif_buffer_append(out, w.block, (size_t)w.block[0] + 1)) return -1;
    if (!gif_buffer_put_byte(out, 0)) return -1;
    return out->length >= w.end ? 1 : 0;
}

// ---- decoding ----------------------------------------------------------------------------------

GIF_HIDDEN long gif_lzw_decode(const unsigned char *data, size_t bytes, int min_size, unsigned char *indices,
                                 size_t capacity, gif_lzw_strings *strings) {
    // Locals (restrict): stores through the byte pointers would otherwise reload every field.
    const unsigned char *restrict packed = data;
    unsigned char *restrict out = indices;
    uint32_t *restrict offsets = strings->offsets;
    uint16_t *restrict lengths = strings->lengths;
    // libnsgif reads one byte past a code that ends on a byte boundary: a last code ending
    // exactly where the data ends is lost, like one cut short.
    const uint64_t total = (uint64_t)bytes * 8;
    const unsigned clear = 1u << min_size, end = clear + 1;
    int size = min_size + 1;
    uint64_t position = 0;
    unsigned next = clear + 2, previous = UINT32_MAX;
    size_t written = 0;
    while (written < capacity) {
        if (position + (uint64_t)size >= total) return (long)written; // the data ended
        uint64_t word;
        memcpy(&word, packed + (position >> 3), 8);
        unsigned code = (unsigned)(word >> (position & 7)) & ((1u << size) - 1);
        position += (uint64_t)size;
        if (code == clear) {
            size = min_size + 1, next = clear + 2, previous = UINT32_MAX;
            continue;
        }
        if (code == end) return previous == UINT32_MAX ? -1 : (long)written; // libnsgif: no end code first
        size_t start = written, length;
        if (code < clear) {
            out[written++] = (unsigned char)code;
            length = 1;
        } else if (previous != UINT32_MAX && code <= next) {
            // An entry, or (code == next) the previous string and its own first index.
            unsigned from_code = code < next ? code : previous;
            length = (size_t)lengths[from_code] + (code == next);
            size_t from = offsets[from_code], n = length < capacity - written ? length : capacity - written;
            if (written - from >= 8) {
                for (size_t i = 0; i < n; i += 8) memcpy(out + written + i, out + from + i, 8);
            } else {
                for (size_t i = 0; i < n; i++) out[written + i] = out[from + i]; // overlaps: byte by byte
            }
            written += n;
        } else {
            return -1;
        }
        if (previous != UINT32_MAX && next < 4096) { // previous string + this one's first index
            offsets[next] = offsets[previous];
            lengths[next] = (uint16_t)(lengths[previous] + 1);
            next++;
            if (next == (1u << size) && size < 12) size++;
        }
        // Where this code's string was just written: the next entry is it plus the next index.
        offsets[code] = (uint32_t)start;
        lengths[code] = (uint16_t)length;
        previous = code;
    }
    return (long)written;
}
