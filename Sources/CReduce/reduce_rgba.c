// A Lanczos3 reduction of RGBA words computed a rectangle at a time (CReduce.h): what an
// animation's frames need when each frame changes only part of the picture. The weights and the
// order of the sums are pm_reduce_area's (reduce_lanczos.c), down then across, so a rectangle's
// bytes are the bytes the whole reduction has there.
//
// Why not libvips: its thumbnail premultiplies alpha into floats and reduces those, about 17 MP
// of source a second on this kind of machine, and it reduces every pixel of every frame; a
// 2048×2048 GIF of 120 frames spent 29 of its 31 s there.
#include "CReduce.h"
#include "reduce_internal.h"

#include <stdlib.h>
#include <string.h>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

/// One side of the reduction: which input pixels and weights make each output pixel (none when
/// the side keeps its size).
typedef struct {
    int size, out_size, taps;
    int *first;
    int16_t *weights;
} side_plan;

struct pm_reduce_plan {
    side_plan across, down;
    uint8_t *row;               // a row reduced down, before it is reduced across
    const uint8_t **rows;       // the input rows of one output row
    int vector_rows;            // pm_reduce_rows' vector loop
    int vector_across;          // whether the SSSE3 loop reduces rows across
};

int pm_reduce_plan_fits(int width, int height, int out_width, int out_height) {
    return width >= 1 && height >= 1 && out_width >= 1 && out_height >= 1 && out_width <= width &&
           out_height <= height && width <= out_width * PM_REDUCE_MOST && height <= out_height * PM_REDUCE_MOST;
}

static int side_init(side_plan *side, int size, int out_size) {
    *side = (side_plan){size, out_size, 1, NULL, NULL};
    if (out_size == size) return 0;
    side->taps = pm_reduce_taps(size, out_size);
    side->first = malloc(sizeof *side->first * (size_t)out_size);
    side->weights = malloc(sizeof *side->weights * (size_t)out_size * (size_t)side->taps);
    if (!side->first || !side->weights) return -1;
    pm_reduce_weights(size, out_size, side->taps, side->first, side->weights);
    return 0;
}

pm_reduce_plan *pm_reduce_plan_new(int width, int height, int out_width, int out_height, int allow_vector) {
    if (!pm_reduce_plan_fits(width, height, out_width, out_height)) return NULL;
    pm_reduce_plan *plan = calloc(1, sizeof *plan);
    if (!plan) return NULL;
    if (side_init(&plan->across, width, out_width) || side_init(&plan->down, height, out_height)) {
        pm_reduce_plan_free(plan);
        return NULL;
    }
    plan->row = malloc((size_t)width * 4);
    plan->rows = malloc(sizeof *plan->rows * (size_t)plan->down.taps);
    if (!plan->row || !plan->rows) {
        pm_reduce_plan_free(plan);
        return NULL;
    }
    plan->vector_rows = pm_reduce_rows_vector(allow_vector);
#if defined(__x86_64__)
    plan->vector_across = allow_vector && plan->across.taps % 2 == 0 && __builtin_cpu_supports("ssse3");
#endif
    return plan;
}

void pm_reduce_plan_free(pm_reduce_plan *plan) {
    if (!plan) return;
    free(plan->across.first), free(plan->across.weights);
    free(plan->down.first), free(plan->down.weights);
    free(plan->row), free(plan->rows);
    free(plan);
}

/// The output pixels [*from, *to) of one side whose windows hold any input pixel of [in_from, in_to).
static void side_reach(const side_plan *side, int in_from, int in_to, int *from, int *to) {
    if (!side->first) {
        *from = in_from, *to = in_to;
        return;
    }
    int a = 0, b = side->out_size; // windows only move forward
    while (a < b && side->first[a] + side->taps <= in_from) a++;
    while (b > a && side->first[b - 1] >= in_to) b--;
    *from = a, *to = b;
}

void pm_reduce_plan_reach(const pm_reduce_plan *plan, int left, int top, int width, int height, int *out_left,
                          int *out_top, int *out_width, int *out_height) {
    *out_left = *out_top = *out_width = *out_height = 0;
    if (width < 1 || height < 1) return;
    int x0, x1, y0, y1;
    side_reach(&plan->across, left, left + width, &x0, &x1);
    side_reach(&plan->down, top, top + height, &y0, &y1);
    if (x1 <= x0 || y1 <= y0) return;
    *out_left = x0, *out_top = y0, *out_width = x1 - x0, *out_height = y1 - y0;
}

// Output pixels [from, to) of a row of RGBA pixels reduced across, in plain C (the sums of
// pm_reduce_width_row's loop for four bands).
static void across_plain(const side_plan *side, const uint8_t *p, uint8_t *q, int from, int to) {
    const int taps = side->taps;
    for (int x = from; x < to; x++) {
        const uint8_t *s = p + (size_t)side->first[x] * 4;
        const int16_t *w = side->weights + (size_t)x * taps;
        for (int band = 0; band < 4; band++) {
            int32_t sum = 0;
            for (int t = 0; t < taps; t++) sum += s[4 * t + band] * w[t];
            q[4 * x + band] = pm_clamp_u8(sum);
        }
    }
}

#if defined(__x86_64__)
// The same sums two taps at a time: the 8 bytes of two pixels shuffled to (R0 R1 G0 G1 B0 B1 A0
// A1) as 16-bit lanes and multiplied by (w0 w1) pairwise (pmaddwd); an even tap count, so every
// load stays inside the window. Rounded and clamped as pm_clamp_u8: the same bytes.
__attribute__((target("ssse3"))) static void across_ssse3(const side_plan *side, const uint8_t *p, uint8_t *q, int from,
                                                           int to) {
    const __m128i shuffle = _mm_setr_epi8(0, -1, 4, -1, 1, -1, 5, -1, 2, -1, 6, -1, 3, -1, 7, -1);
    const __m128i round = _mm_set1_epi32(1 << (pm_weight_bits - 1));
    const int taps = side->taps;
    for (int x = from; x < to; x++) {
        const uint8_t *s = p + (size_t)side->first[x] * 4;
        const int16_t *w = side->weights + (size_t)x * taps;
        __m128i sum = round;
        for (int t = 0; t < taps; t += 2) {
            __m128i pair = _mm_shuffle_epi8(_mm_loadl_epi64((const __m128i *)(const void *)(s + 4 * t)), shuffle);
            int32_t w01;
            memcpy(&w01, w + t, sizeof w01);
            sum = _mm_add_epi32(sum, _mm_madd_epi16(pair, _mm_set1_epi32(w01)));
        }
        sum = _mm_srai_epi32(sum, pm_weight_bits);
        const uint32_t rgba = (uint32_t)_mm_cvtsi128_si32(_mm_packus_epi16(_mm_packs_epi32(sum, sum), sum));
        memcpy(q + 4 * (size_t)x, &rgba, 4);
    }
}
#endif

void pm_reduce_plan_rect(pm_reduce_plan *plan, const uint32_t *in, size_t in_stride, uint32_t *out, size_t out_stride,
                         int left, int top, int width, int height) {
    const side_plan *across = &plan->across, *down = &plan->down;
    // The input columns the output columns read.
    const int c0 = across->first ? across->first[left] : left;
    const int c1 = across->first ? across->first[left + width - 1] + across->taps : left + width;
    for (int y = top; y < top + height; y++) {
        uint32_t *to = out + (size_t)y * out_stride;
        const uint8_t *row;
        if (down->first) {
            for (int t = 0; t < down->taps; t++) plan->rows[t] = (const uint8_t *)(in + (size_t)(down->first[y] + t) * in_stride + c0);
            uint8_t *reduced = across->first ? plan->row + (size_t)c0 * 4 : (uint8_t *)(to + c0);
            pm_reduce_rows(plan->rows, down->weights + (size_t)y * (size_t)down->taps, down->taps, (c1 - c0) * 4, reduced,
                           plan->vector_rows);
            row = across->first ? plan->row : NULL;
        } else {
            row = (const uint8_t *)(in + (size_t)y * in_stride);
            if (!across->first) memcpy(to + left, row + (size_t)left * 4, (size_t)width * 4);
        }
        if (!across->first) continue;
#if defined(__x86_64__)
        if (plan->vector_across) {
            across_ssse3(across, row, (uint8_t *)to, left, left + width);
            continue;
        }
#endif
        across_plain(across, row, (uint8_t *)to, left, left + width);
    }
}
