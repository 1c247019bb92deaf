// The net's convolutions (face_net_conv.h), and the BLAS routines libdlib.a's neural-network code
// references (Debian builds dlib with BLAS; its tensor_tools and cpu_dlib objects reference
// cblas_*), implemented here so the binary links no BLAS library (the reasons are face_dlib.h's in
// CFaceDetect). The convolutions of face_net.cpp run through `convolve`, which shares sgemm's dot
// products; sgemm, saxpy and sscal serve whatever else of dlib's net code calls them. strsm and
// sgetrf are referenced by dlib's matrix inverse, which that net never calls: they stop the
// process with a message rather than return a wrong result.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "face_net_conv.h"

namespace {

enum { row_major = 101, col_major = 102 };
enum { no_trans = 111, trans = 112, conj_trans = 113 };

// Eight floats: GCC/clang vector extensions, two SSE registers on any x86-64, one AVX register in
// the AVX2 build of the kernel below.
typedef float lanes __attribute__((vector_size(32)));

// Eight floats from `p` (unaligned), and the sum of a vector's lanes. Macros, not functions: a
// function taking or returning 32-byte vectors would have a different ABI in each build below.
#define PM_LOAD(v, p) __builtin_memcpy(&(v), (p), sizeof(lanes))
#define PM_TOTAL(v) ((((v)[0] + (v)[1]) + ((v)[2] + (v)[3])) + (((v)[4] + (v)[5]) + ((v)[6] + (v)[7])))

// dot(A row i, B row j) for rows i..i+3 of A and j..j+1 of B, each `k` long: the product the
// net's convolutions are made of (filters × im2col rows, both contiguous). Built for AVX2
// and for any CPU, picked when first called (target_clones).
__attribute__((target_clones("avx2", "default"))) void dots(const float *a, int lda, int rows_a,
                                                                 const float *b, int ldb, int rows_b, int k,
                                                                 float *out /* rows_a × rows_b */) {
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

// C (m×n, row-major, ldc) = alpha · op(A) · op(B) + beta · C, where op(A) is m×k and op(B) k×n.
// With A as it is and B transposed (the convolutions' case) every element is a dot product of two
// contiguous rows (dots), taken in blocks of B's rows that stay in cache while all of A passes;
// otherwise the inner loop runs along contiguous rows of op(B) and C.
void gemm_row_major(bool ta, bool tb, int m, int n, int k, float alpha, const float *a, int lda, const float *b,
                    int ldb, float beta, float *c, int ldc) {
    auto scaled = [&](float &to, float product) { to = (beta == 0 ? 0.0f : beta * to) + alpha * product; };
    if (!ta && tb) {
        const int block = std::max(2, std::min(n, (96 * 1024) / std::max(1, k * 4)));
        std::vector<float> out(static_cast<size_t>(m) * static_cast<size_t>(block));
        for (int j0 = 0; j0 < n; j0 += block) {
            const int count = std::min(block, n - j0);
            dots(a, lda, m, b + static_cast<size_t>(j0) * ldb, ldb, count, k, out.data());
            for (int i = 0; i < m; i++)
                for (int j = 0; j < count; j++)
                    scaled(c[static_cast<size_t>(i) * ldc + j0 + j], out[static_cast<size_t>(i) * count + j]);
        }
        return;
    }
    std::vector<float> packed;
    const float *rows = b;
    int stride = ldb;
    if (tb) {
        packed.resize(static_cast<size_t>(k) * static_cast<size_t>(n));
        for (int j = 0; j < n; j++)
            for (int p = 0; p < k; p++) packed[static_cast<size_t>(p) * n + j] = b[static_cast<size_t>(j) * ldb + p];
        rows = packed.data();
        stride = n;
    }
    std::vector<float> sum(static_cast<size_t>(n));
    for (int i = 0; i < m; i++) {
        std::fill(sum.begin(), sum.end(), 0.0f);
        float *__restrict s = sum.data();
        for (int p = 0; p < k; p++) {
            const float aip = ta ? a[static_cast<size_t>(p) * lda + i] : a[static_cast<size_t>(i) * lda + p];
            if (aip == 0) continue;
            const float *__restrict bp = rows + static_cast<size_t>(p) * stride;
            for (int j = 0; j < n; j++) s[j] += aip * bp[j];
        }
        float *ci = c + static_cast<size_t>(i) * ldc;
        for (int j = 0; j < n; j++) scaled(ci[j], s[j]);
    }
}

[[noreturn]] void unsupported(const char *name) {
    std::fprintf(stderr, "pushmedia: %s called; the face net's BLAS (face_net_blas.cpp) does not provide it\n", name);
    std::abort();
}

} // namespace

void pm_face_net::convolve(const float *input, long channels, long rows, long columns, const float *filters,
                           const float *biases, long count, long filter_rows, long filter_columns, long stride_y,
                           long stride_x, long padding_y, long padding_x, float *output) {
    const long out_rows = 1 + (rows + 2 * padding_y - filter_rows) / stride_y;
    const long out_columns = 1 + (columns + 2 * padding_x - filter_columns) / stride_x;
    const long positions = out_rows * out_columns, length = channels * filter_rows * filter_columns;
    if (positions <= 0 || length <= 0 || count <= 0) return;
    // As many im2col rows as gemm_row_major takes B's rows at a time: they stay in cache while
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

extern "C" {

void cblas_sgemm(int order, int trans_a, int trans_b, int m, int n, int k, float alpha, const float *a, int lda,
                 const float *b, int ldb, float beta, float *c, int ldc) {
    const bool ta = trans_a != no_trans, tb = trans_b != no_trans;
    if (order == row_major)
        gemm_row_major(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
    else // Column-major C is row-major Cᵀ = op(B)ᵀ · op(A)ᵀ.
        gemm_row_major(tb, ta, n, m, k, alpha, b, ldb, a, lda, beta, c, ldc);
}

void cblas_saxpy(int n, float alpha, const float *x, int incx, float *y, int incy) {
    for (int i = 0; i < n; i++) y[static_cast<size_t>(i) * incy] += alpha * x[static_cast<size_t>(i) * incx];
}

void cblas_sscal(int n, float alpha, float *x, int incx) {
    for (int i = 0; i < n; i++) x[static_cast<size_t>(i) * incx] *= alpha;
}

void cblas_strsm(int, int, int, int, int, int, int, float, const float *, int, float *, int) { unsupported("cblas_strsm"); }

void sgetrf_(const int *, const int *, float *, const int *, int *, int *) { unsupported("sgetrf_"); }
}
