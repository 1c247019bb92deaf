// The Lanczos3 reduction of 8-bit pixels shared by vips_reduce.c (across, in memory) and
// jpeg_reduce.c (down, as a JPEG is decoded); not part of the public header.
#ifndef PUSHMEDIA_REDUCE_INTERNAL_H
#define PUSHMEDIA_REDUCE_INTERNAL_H

#include <stdint.h>

enum { pm_weight_bits = 14 };

/// An even number of taps (the vector loops sum them in pairs), at most `size`, for a reduction
/// from `size` to `out_size` pixels.
int pm_reduce_taps(int size, int out_size);

/// For each output pixel: the first input pixel of its window of `taps` (moved back to stay inside
/// `size`, for the vector loops' fixed width), and its weights in that window, summing to
/// 1 << pm_weight_bits; pixels outside the kernel's support weigh 0 (CResample).
void pm_reduce_weights(int size, int out_size, int taps, int *first, int16_t *weights);

/// A weighted sum rounded back to a byte, as every reduction loop rounds.
static inline uint8_t pm_clamp_u8(int32_t sum) {
    int32_t v = (sum + (1 << (pm_weight_bits - 1))) >> pm_weight_bits;
    return (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
}

#endif
