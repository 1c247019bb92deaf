// The horizontal half of a Lanczos3 reduction of 8-bit pixels held in memory. libvips'
// reduceh has no vector path: taking a 12 MP photo's 2000×900 shrink-on-load decode (already
// reduced vertically by libvips' reducev, whose liborc path takes ~6 ms) to 1200×900 took it
// 31–35 ms, more than the subject search, both crops and both encodes together. This is the same
// filter (taps centred on each output pixel, the kernel stretched by the shrink, weights
// normalised) in 14-bit fixed point, with an SSSE3 loop for 3-band pixels: ~6 ms (docs/benchmarks/still-images.md).
#include "CReduce.h"
#include "reduce_internal.h"

#include "CResample.h"

#include <math.h>
#include <string.h>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

int pm_reduce_taps(int size, int out_size) {
    int taps = pm_resample_most_taps(PM_RESAMPLE_LANCZOS3, size, out_size);
    taps += taps & 1;
    return taps > size ? size : taps;
}

void pm_reduce_weights(int width, int out_width, int taps, int *first, int16_t *weights) {
    double *w = g_new(double, pm_resample_most_taps(PM_RESAMPLE_LANCZOS3, width, out_width));
    for (int x = 0; x < out_width; x++) {
        int start;
        const int count = pm_resample_taps(PM_RESAMPLE_LANCZOS3, width, out_width, x, &start, w);
        const int window = start > width - taps ? width - taps : start;
        int16_t *row = weights + (size_t)x * taps;
        memset(row, 0, sizeof *row * (size_t)taps);
        int total = 0, largest = 0;
        for (int t = 0; t < count; t++) {
            row[start - window + t] = (int16_t)lrint(w[t] * (1 << pm_weight_bits));
            total += row[start - window + t];
        }
        for (int t = 1; t < taps; t++) {
            if (row[t] > row[largest]) largest = t;
        }
        // Rounding must not brighten or darken a flat area.
        row[largest] = (int16_t)(row[largest] + (1 << pm_weight_bits) - total);
        first[x] = window;
    }
    g_free(w);
}

// The vertical half: one output row summed from `taps` input rows (JPEG path and pm_reduce_area).
#if defined(__x86_64__)
// The vector loop, written once for both widths: V the vector type, P the intrinsics' prefix
// (_mm or _mm256), S the load/store suffix, W the bytes a step. The bytes of two rows are
// interleaved, widened to 16 bits and multiplied by the pair of weights (pmaddwd), summed in 32
// bits: the same integers as the plain loop, so the same bytes. AVX2's unpacks and packs work
// within each 128-bit half, so each half comes back in its own order. An odd tap count (a
// window as tall as a short image) pairs the last row with zeros. Starts at byte `from`;
// returns where the steps stopped.
#define PM_REDUCE_ROWS_VECTOR(V, P, S, W)                                                                  \
    const V zero = P##_setzero_##S();                                                                      \
    const V round = P##_set1_epi32(1 << (pm_weight_bits - 1));                                             \
    int x = from;                                                                                          \
    for (; x + (W) <= n; x += (W)) {                                                                       \
        V sum0 = round, sum1 = round, sum2 = round, sum3 = round;                                          \
        for (int t = 0; t < taps; t += 2) {                                                                \
            const int pair = t + 1 < taps;                                                                 \
            const V a = P##_loadu_##S((const V *)(const void *)(rows[t] + x));                             \
            const V b = pair ? P##_loadu_##S((const V *)(const void *)(rows[t + 1] + x)) : zero;           \
            const uint16_t second = pair ? (uint16_t)w[t + 1] : 0;                                         \
            const V weights = P##_set1_epi32((int32_t)(((uint32_t)second << 16) | (uint16_t)w[t]));        \
            const V low = P##_unpacklo_epi8(a, b), high = P##_unpackhi_epi8(a, b);                         \
            sum0 = P##_add_epi32(sum0, P##_madd_epi16(P##_unpacklo_epi8(low, zero), weights));             \
            sum1 = P##_add_epi32(sum1, P##_madd_epi16(P##_unpackhi_epi8(low, zero), weights));             \
            sum2 = P##_add_epi32(sum2, P##_madd_epi16(P##_unpacklo_epi8(high, zero), weights));            \
            sum3 = P##_add_epi32(sum3, P##_madd_epi16(P##_unpackhi_epi8(high, zero), weights));            \
        }                                                                                                  \
        const V first = P##_packs_epi32(P##_srai_epi32(sum0, pm_weight_bits), P##_srai_epi32(sum1, pm_weight_bits)); \
        const V second = P##_packs_epi32(P##_srai_epi32(sum2, pm_weight_bits), P##_srai_epi32(sum3, pm_weight_bits)); \
        P##_storeu_##S((V *)(void *)(out + x), P##_packus_epi16(first, second));                           \
    }                                                                                                      \
    return x;

static int pm_reduce_rows_sse2(const uint8_t *const *rows, const int16_t *w, int taps, int from, int n, uint8_t *out) {
    PM_REDUCE_ROWS_VECTOR(__m128i, _mm, si128, 16)
}

__attribute__((target("avx2"))) static int pm_reduce_rows_avx2(const uint8_t *const *rows, const int16_t *w, int taps,
                                                                int from, int n, uint8_t *out) {
    PM_REDUCE_ROWS_VECTOR(__m256i, _mm256, si256, 32)
}
#undef PM_REDUCE_ROWS_VECTOR
#endif

// One output row: the weighted sum of `taps` input rows of `n` bytes each (reduce_internal.h). `vector`: 0 the plain
// loop alone, 1 SSE2, 2 AVX2 then SSE2 for what is left (the same integers, so the same bytes).
void pm_reduce_rows(const uint8_t *const *rows, const int16_t *w, int taps, int n, uint8_t *out, int vector) {
    int x = 0;
#if defined(__x86_64__)
    if (vector >= 2) x = pm_reduce_rows_avx2(rows, w, taps, x, n, out);
    if (vector >= 1) x = pm_reduce_rows_sse2(rows, w, taps, x, n, out);
#endif
    for (; x < n; x++) {
        int32_t sum = 0;
        for (int t = 0; t < taps; t++) sum += rows[t][x] * w[t];
        out[x] = pm_clamp_u8(sum);
    }
}

int pm_reduce_rows_vector(int allow_vector) {
#if defined(__x86_64__)
    return !allow_vector ? 0 : __builtin_cpu_supports("avx2") ? 2 : 1;
#else
    (void)allow_vector;
    return 0;
#endif
}

// One row of 3-band pixels, output columns [from, to), in plain C.
static void pm_reduce_row3(const uint8_t *p, uint8_t *q, int from, int to, int taps, const int *first,
                           const int16_t *weights) {
    for (int x = from; x < to; x++) {
        const uint8_t *s = p + (size_t)first[x] * 3;
        const int16_t *w = weights + (size_t)x * taps;
        int32_t r = 0, g = 0, b = 0;
        for (int t = 0; t < taps; t++) {
            r += s[3 * t] * w[t];
            g += s[3 * t + 1] * w[t];
            b += s[3 * t + 2] * w[t];
        }
        q[3 * x] = pm_clamp_u8(r);
        q[3 * x + 1] = pm_clamp_u8(g);
        q[3 * x + 2] = pm_clamp_u8(b);
    }
}

#if defined(__x86_64__)
// The same sums two taps at a time with SSSE3: the bytes of two pixels are shuffled to
// (R0 R1 G0 G1 B0 B1) as 16-bit lanes and multiplied by (w0 w1) pairwise (pmaddwd). Each load
// reads 8 bytes, 2 past the pair: only columns whose window ends a pixel before the row's end
// come here. Same rounding as pm_clamp_u8, so both paths give the same bytes.
__attribute__((target("ssse3"))) static void pm_reduce_row3_ssse3(const uint8_t *p, uint8_t *q, int to, int taps,
                                                                   const int *first, const int16_t *weights) {
    const __m128i shuffle = _mm_setr_epi8(0, -1, 3, -1, 1, -1, 4, -1, 2, -1, 5, -1, -1, -1, -1, -1);
    const __m128i round = _mm_set1_epi32(1 << (pm_weight_bits - 1));
    for (int x = 0; x < to; x++) {
        const uint8_t *s = p + (size_t)first[x] * 3;
        const int16_t *w = weights + (size_t)x * taps;
        __m128i sum = round;
        for (int t = 0; t < taps; t += 2) {
            __m128i pair = _mm_shuffle_epi8(_mm_loadl_epi64((const __m128i *)(const void *)(s + 3 * t)), shuffle);
            int32_t w01;
            memcpy(&w01, w + t, sizeof w01);
            sum = _mm_add_epi32(sum, _mm_madd_epi16(pair, _mm_set1_epi32(w01)));
        }
        sum = _mm_srai_epi32(sum, pm_weight_bits);
        uint32_t rgb = (uint32_t)_mm_cvtsi128_si32(_mm_packus_epi16(_mm_packs_epi32(sum, sum), sum));
        q[3 * x] = (uint8_t)rgb;
        q[3 * x + 1] = (uint8_t)(rgb >> 8);
        q[3 * x + 2] = (uint8_t)(rgb >> 16);
    }
}
#endif

void pm_width_plan_init(pm_width_plan *plan, int width, int out_width, int bands, int allow_vector) {
    plan->width = width;
    plan->out_width = out_width;
    plan->bands = bands;
    plan->taps = pm_reduce_taps(width, out_width);
    plan->first = g_new(int, out_width);
    plan->weights = g_new(int16_t, (size_t)out_width * (size_t)plan->taps);
    pm_reduce_weights(width, out_width, plan->taps, plan->first, plan->weights);
    plan->vector_end = 0;
#if defined(__x86_64__)
    const int vector = allow_vector && bands == 3 && plan->taps % 2 == 0 && __builtin_cpu_supports("ssse3");
    // Columns whose 8-byte loads stay inside the row (windows only move right).
    while (vector && plan->vector_end < out_width && plan->first[plan->vector_end] + plan->taps < width) plan->vector_end++;
#else
    (void)allow_vector;
#endif
}

void pm_width_plan_free(pm_width_plan *plan) {
    g_free(plan->first);
    g_free(plan->weights);
    plan->first = NULL;
    plan->weights = NULL;
}

void pm_reduce_width_row(const pm_width_plan *plan, const uint8_t *p, uint8_t *q) {
    const int taps = plan->taps, bands = plan->bands, out_width = plan->out_width;
    const int *first = plan->first;
    const int16_t *weights = plan->weights;
    if (bands == 3) {
        int from = 0;
#if defined(__x86_64__)
        if (plan->vector_end > 0) {
            pm_reduce_row3_ssse3(p, q, plan->vector_end, taps, first, weights);
            from = plan->vector_end;
        }
#endif
        pm_reduce_row3(p, q, from, out_width, taps, first, weights);
        return;
    }
    for (int x = 0; x < out_width; x++) {
        const uint8_t *s = p + (size_t)first[x] * bands;
        const int16_t *w = weights + (size_t)x * taps;
        for (int band = 0; band < bands; band++) {
            int32_t sum = 0;
            for (int t = 0; t < taps; t++) sum += s[bands * t + band] * w[t];
            q[bands * x + band] = pm_clamp_u8(sum);
        }
    }
}

VipsImage *pm_reduced_image_new(const VipsImage *like, int out_width, int out_height) {
    VipsImage *result = vips_image_new_memory();
    if (vips_image_pipelinev(result, VIPS_DEMAND_STYLE_THINSTRIP, (VipsImage *)like, NULL)) {
        g_object_unref(result);
        return NULL;
    }
    result->Xres = like->Xres * out_width / like->Xsize;
    result->Yres = like->Yres * out_height / like->Ysize;
    result->Xsize = out_width;
    result->Ysize = out_height;
    if (vips_image_write_prepare(result)) {
        g_object_unref(result);
        return NULL;
    }
    return result;
}

int pm_reduce_width(VipsImage *in, VipsImage **out, int out_width, int allow_vector) {
    if (vips_image_wio_input(in)) return -1;
    const int width = in->Xsize, height = in->Ysize, bands = in->Bands;
    if (in->BandFmt != VIPS_FORMAT_UCHAR || in->Coding != VIPS_CODING_NONE || out_width < 1 || out_width > width ||
        (double)width / out_width > PM_REDUCE_MOST) {
        vips_error("reduce_width", "8-bit pixels and a width from %d to %d expected",
                   (width + PM_REDUCE_MOST - 1) / PM_REDUCE_MOST, width);
        return -1;
    }
    VipsImage *result = pm_reduced_image_new(in, out_width, height);
    if (!result) return -1;
    pm_width_plan plan;
    pm_width_plan_init(&plan, width, out_width, bands, allow_vector);
    for (int y = 0; y < height; y++) pm_reduce_width_row(&plan, VIPS_IMAGE_ADDR(in, 0, y), VIPS_IMAGE_ADDR(result, 0, y));
    pm_width_plan_free(&plan);
    *out = result;
    return 0;
}

int pm_reduce_area(VipsImage *in, int left, int top, int width, int height, int out_width, int out_height,
                   pm_deadline deadline, int allow_vector, VipsImage **out) {
    if (!in->data || in->BandFmt != VIPS_FORMAT_UCHAR || in->Coding != VIPS_CODING_NONE) {
        vips_error("reduce_area", "8-bit pixels in memory expected");
        return -1;
    }
    if (left < 0 || top < 0 || width < 1 || height < 1 || left > in->Xsize - width || top > in->Ysize - height ||
        out_width < 1 || out_width > width || out_height < 1 || out_height > height ||
        width > out_width * PM_REDUCE_MOST || height > out_height * PM_REDUCE_MOST) {
        vips_error("reduce_area", "an area inside the image, reduced by at most %d on a side, expected", PM_REDUCE_MOST);
        return -1;
    }
    if (pm_deadline_passed(deadline)) {
        vips_error("reduce_area", "the time ran out");
        return -1;
    }
    const int bands = in->Bands;
    const size_t row_bytes = (size_t)width * (size_t)bands;
    VipsImage *result = pm_reduced_image_new(in, out_width, out_height);
    if (!result) return -1;
    const int taps = out_height < height ? pm_reduce_taps(height, out_height) : 1;
    int *first = g_new(int, out_height);
    int16_t *weights = g_new(int16_t, (size_t)out_height * (size_t)taps);
    if (out_height < height) pm_reduce_weights(height, out_height, taps, first, weights);
    const uint8_t **rows = g_new(const uint8_t *, taps);
    uint8_t *down = out_width < width ? g_malloc(row_bytes) : NULL;
    pm_width_plan across;
    if (down) pm_width_plan_init(&across, width, out_width, bands, allow_vector);
    const int vector = pm_reduce_rows_vector(allow_vector);
    int status = 0;
    for (int y = 0; y < out_height; y++) {
        if ((y & 15) == 0 && pm_deadline_passed(deadline)) {
            vips_error("reduce_area", "the time ran out");
            status = -1;
            break;
        }
        uint8_t *to = down ? down : VIPS_IMAGE_ADDR(result, 0, y);
        if (out_height < height) {
            for (int t = 0; t < taps; t++) rows[t] = VIPS_IMAGE_ADDR(in, left, top + first[y] + t);
            pm_reduce_rows(rows, weights + (size_t)y * (size_t)taps, taps, (int)row_bytes, to, vector);
        } else {
            memcpy(to, VIPS_IMAGE_ADDR(in, left, top + y), row_bytes);
        }
        if (down) pm_reduce_width_row(&across, down, VIPS_IMAGE_ADDR(result, 0, y));
    }
    if (down) pm_width_plan_free(&across);
    g_free(down);
    g_free(rows);
    g_free(weights);
    g_free(first);
    if (status) {
        g_object_unref(result);
        return -1;
    }
    *out = result;
    return 0;
}
