// The codec's output: bytes appended to a buffer in memory, and the two GIF blocks both the
// writer (gif_write_emit.c) and the re-packing pass (gif_repack.c) put.
#include "gif_core.h"

#include <stdlib.h>
#include <string.h>

GIF_HIDDEN bool gif_buffer_append(gif_buffer *out, const void *bytes, size_t count) {
    size_t need = out->length + count;
    if (need > out->capacity) {
        size_t capacity = out->capacity ? out->capacity : 64 * 1024;
        while (capacity < need) capacity *= 2;
        unsigned char *grown = realloc(out->bytes, capacity);
        if (!grown) {
            out->failed = true;
            return false;
        }
        out->bytes = grown;
        out->capacity = capacity;
    }
    if (count) memcpy(out->bytes + out->length, bytes, count);
    out->length = need;
    return true;
}

GIF_HIDDEN bool gif_buffer_put_byte(gif_buffer *out, unsigned char byte) { return gif_buffer_append(out, &byte, 1); }

GIF_HIDDEN bool gif_buffer_put_word(gif_buffer *out, int word) {
    unsigned char bytes[2] = {(unsigned char)(word & 0xff), (unsigned char)((word >> 8) & 0xff)};
    return gif_buffer_append(out, bytes, 2);
}

GIF_HIDDEN bool gif_put_control(gif_buffer *out, int disposal, bool user_input, int delay, int transparent,
                                unsigned char unused_index) {
    unsigned char flags = (unsigned char)((disposal & 7) << 2 | (user_input ? 2 : 0) | (transparent >= 0 ? 1 : 0));
    return gif_buffer_put_byte(out, 0x21) && gif_buffer_put_byte(out, 0xf9) && gif_buffer_put_byte(out, 4)
        && gif_buffer_put_byte(out, flags) && gif_buffer_put_word(out, delay)
        && gif_buffer_put_byte(out, transparent >= 0 ? (unsigned char)transparent : unused_index)
        && gif_buffer_put_byte(out, 0);
}

GIF_HIDDEN bool gif_put_descriptor(gif_buffer *out, int left, int top, int width, int height, int table_bits) {
    unsigned char flags = table_bits > 0 ? (unsigned char)(0x80 | ((table_bits - 1) & 7)) : 0;
    return gif_buffer_put_byte(out, 0x2c) && gif_buffer_put_word(out, left) && gif_buffer_put_word(out, top)
        && gif_buffer_put_word(out, width) && gif_buffer_put_word(out, height) && gif_buffer_put_byte(out, flags);
}
