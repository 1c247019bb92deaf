// The Lanczos3 reduction of 8-bit pixels shared by reduce_lanczos.c (across, in memory) and
// jpeg_reduce.c (down, as a JPEG is decoded); private to CReduce.
#ifndef PUSHMEDIA_REDUCE_INTERNAL_H
#define PUSHMEDIA_REDUCE_INTERNAL_H

#include <stdint.h>

#include <vips/vips.h>

enum { pm_weight_bits = 14 };

/// An even number of taps (the vector loops sum them in pairs), at most `size`, for a reduction
/// from `size` to `out_size` pixels.
int pm_reduce_taps(int size, int out_size);

/// For each output pixel: the first input pixel of its window of `taps` (moved back to stay inside
/// `size`, for the vector loops' fixed width), and its weights in that window, summing to
/// 1 << pm_weight_bits; pixels outside the kernel's support weigh 0 (CResample).
void pm_reduce_weights(int size, int out_size, int taps, int *first, int16_t *weights);

/// Which input columns and weights make each output column of a row reduced across, and whether
/// the SSSE3 loop runs (columns below `vector_end`).
typedef struct {
    int width, out_width, bands, taps, vector_end;
    int *first;
    int16_t *weights;
} pm_width_plan;

/// The plan for rows of `width` pixels of `bands` 8-bit bands reduced to `out_width` (at most
/// 16 times fewer); allow_vector 0 keeps to the plain C loop. Free with pm_width_plan_free.
void pm_width_plan_init(pm_width_plan *plan, int width, int out_width, int bands, int allow_vector);
void pm_width_plan_free(pm_width_plan *plan);
/// One row `p` (`width` pixels) reduced across into `q` (`out_width` pixels).
void pm_reduce_width_row(const pm_width_plan *plan, const uint8_t *p, uint8_t *q);

/// One output row: the weighted sum (weights `w`) of `taps` input rows of `n` bytes each, into
/// `out`. `vector`: 0 the plain loop alone, 1 SSE2, 2 AVX2 then SSE2 (the same bytes).
void pm_reduce_rows(const uint8_t *const *rows, const int16_t *w, int taps, int n, uint8_t *out, int vector);
/// The `vector` for pm_reduce_rows on this CPU (0 when allow_vector is 0).
int pm_reduce_rows_vector(int allow_vector);

/// A new memory image with `like`'s fields, `out_width`×`out_height`, its resolution scaled
/// with the size, its memory allocated for the rows to be written: what every reduction here
/// returns. NULL when libvips could not make it (the error is in libvips' buffer).
VipsImage *pm_reduced_image_new(const VipsImage *like, int out_width, int out_height);

/// A weighted sum rounded back to a byte, as every reduction loop rounds.
static inline uint8_t pm_clamp_u8(int32_t sum) {
    int32_t v = (sum + (1 << (pm_weight_bits - 1))) >> pm_weight_bits;
    return (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
}

#endif
