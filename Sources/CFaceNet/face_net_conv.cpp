// The net's convolutions (face_net_conv.h): dlib's img2col, a block of output positions at a time
// into a buffer each thread keeps, then the filters' dot products over that block. The dot
// products are sgemm's too (face_net_blas.cpp), so the sums are the ones dlib's im2col product makes.
#include <algorithm>
#include <vector>

#include "face_net_conv.h"

namespace {

// Eight floats: GCC/clang vector extensions, two SSE registers on any x86-64, one AVX register in
// the AVX2 build of the kernel below.
typedef float lanes __attribute__((vector_size(32)));

// Eight floats from `p` (unaligned), and the sum of a vector's lanes. Macros, not functions: a
// function taking or returning 32-byte vectors would have a different ABI in each build below.
#define PM_LOAD(v, p) __builtin_memcpy(&(v), (p), sizeof(lanes))
#define PM_TOTAL(v) ((((v)[0] + (v)[1]) + ((v)[2] + (v)[3])) + (((v)[4] + (v)[5]) + ((v)[6] + (v)[7])))

} // namespace

// Rows i..i+3 of A against rows j..j+1 of B at a time: eight sums in registers.
PM_FACE_NET_CLONES void pm_face_net::dots(const float *a, int lda, int rows_a, const float *b, int ldb, int rows_b,
                                           int k, float *out) {
    int i = 0;
    for (; i < rows_a; i += 4) {
        const int ia = std::min(4, rows_a - i);
        for (int j = 0; j < rows_b; j += 2) {
            const int jb = std::min(2, rows_b - j);
            const float *ar[4], *br[2];
            for (int r = 0; r < 4; r++) ar[r] = a + static_cast<size_t>(i + std::min(r, ia - 1)) * lda;
            for (int r = 0; r < 2; r++) br[r] = b + static_cast<size_t>(j + std::min(r, jb - 1)) * ldb;
            lanes s00 = {}, s01 = {}, s10 = {}, s11 = {}, s20 = {}, s21 = {}, s30 = {}, s31 = {};
            int p = 0;
            for (; p + 8 <= k; p += 8) {
                lanes a0, a1, a2, a3, b0, b1;
                PM_LOAD(b0, br[0] + p);
                PM_LOAD(b1, br[1] + p);
                PM_LOAD(a0, ar[0] + p);
                PM_LOAD(a1, ar[1] + p);
                PM_LOAD(a2, ar[2] + p);
                PM_LOAD(a3, ar[3] + p);
                s00 += a0 * b0;
                s01 += a0 * b1;
                s10 += a1 * b0;
                s11 += a1 * b1;
                s20 += a2 * b0;
                s21 += a2 * b1;
                s30 += a3 * b0;
                s31 += a3 * b1;
            }
            float t[4][2] = {{PM_TOTAL(s00), PM_TOTAL(s01)}, {PM_TOTAL(s10), PM_TOTAL(s11)},
                             {PM_TOTAL(s20), PM_TOTAL(s21)}, {PM_TOTAL(s30), PM_TOTAL(s31)}};
            for (; p < k; p++)
                for (int r = 0; r < 4; r++)
                    for (int q = 0; q < 2; q++) t[r][q] += ar[r][p] * br[q][p];
            for (int r = 0; r < ia; r++)
                for (int q = 0; q < jb; q++) out[static_cast<size_t>(i + r) * rows_b + j + q] = t[r][q];
        }
    }
}

void pm_face_net::convolve(const float *input, long channels, long rows, long columns, const float *filters,
                           const float *biases, long count, long filter_rows, long filter_columns, long stride_y,
                           long stride_x, long padding_y, long padding_x, float *output) {
    const long out_rows = output_length(rows, filter_rows, stride_y, padding_y);
    const long out_columns = output_length(columns, filter_columns, stride_x, padding_x);
    const long positions = out_rows * out_columns, length = channels * filter_rows * filter_columns;
    if (positions <= 0 || length <= 0 || count <= 0) return;
    // As many im2col rows as sgemm (face_net_blas.cpp) takes B's rows at a time: they stay in cache while
    // every filter passes over them.
    const long block = std::max(2L, std::min(positions, (96L * 1024) / std::max(1L, length * 4)));
    thread_local std::vector<float> unrolled, products;
    unrolled.resize(static_cast<size_t>(block * length));
    products.resize(static_cast<size_t>(block * count));
    for (long first = 0; first < positions; first += block) {
        const long taken = std::min(block, positions - first);
        // dlib's img2col, for output positions first..first+taken.
        float *to = unrolled.data();
        for (long at = first; at < first + taken; at++) {
            const long top = (at / out_columns) * stride_y - padding_y, left = (at % out_columns) * stride_x - padding_x;
            for (long k = 0; k < channels; k++) {
                const float *plane = input + k * rows * columns;
                for (long y = top; y < top + filter_rows; y++) {
                    const bool row_inside = y >= 0 && y < rows;
                    for (long x = left; x < left + filter_columns; x++)
                        *to++ = row_inside && x >= 0 && x < columns ? plane[y * columns + x] : 0.0f;
                }
            }
        }
        dots(filters, static_cast<int>(length), static_cast<int>(count), unrolled.data(), static_cast<int>(length),
             static_cast<int>(taken), static_cast<int>(length), products.data());
        // As sgemm's `beta` 0, `alpha` 1, then dlib's bias add: the same floats.
        for (long c = 0; c < count; c++) {
            float *out = output + c * positions + first;
            const float *sum = products.data() + c * taken;
            for (long j = 0; j < taken; j++) out[j] = biases ? (0.0f + sum[j]) + biases[c] : 0.0f + sum[j];
        }
    }
}

