// The BLAS routines libdlib.a's neural-network code references (Debian builds dlib with BLAS; its
// tensor_tools and cpu_dlib objects reference cblas_*), implemented here so the binary links no
// BLAS library (the reasons are face_dlib.h's in CFaceDetect). The net's convolutions run through
// face_net_conv.cpp, whose dot products sgemm shares; sgemm, saxpy and sscal serve whatever else of
// dlib's net code calls them. strsm and sgetrf are referenced by dlib's matrix inverse, which that
// net never calls: they stop the process with a message rather than return a wrong result.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "face_net_conv.h"

namespace {

enum { row_major = 101, col_major = 102 };
enum { no_trans = 111, trans = 112, conj_trans = 113 };

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
            pm_face_net::dots(a, lda, m, b + static_cast<size_t>(j0) * ldb, ldb, count, k, out.data());
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
