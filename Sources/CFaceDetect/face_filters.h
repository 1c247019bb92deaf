// dlib's step that scores every window of one pyramid level, replaced for the face model's
// filters (face_search.h includes it; the tests' comparison with dlib's own step too). Include
// it after dlib's headers; inside namespace dlib, so each build (face_detect_avx2.cpp renames
// dlib) has its own. The replacement is an inline explicit specialisation: every translation
// unit that includes it has the same definition.
#ifndef PUSHMEDIA_FACE_FILTERS_H
#define PUSHMEDIA_FACE_FILTERS_H

#include <algorithm>
#include <cstring>
#include <vector>

#include "CFaceDetect.h"
#include "face_vectors.h"

// dlib's step that scores every window of one pyramid level (apply_filters_to_fhog), replaced for
// this detector's filter bank. dlib runs each of a detector's ~60 separable filters as two passes
// over a feature plane (a row pass into a scratch image, then a column pass added into the
// scores), reading each weight again inside its inner loops and summing separate multiplies and
// adds in three partial sums: 6 % of a case-1 photo's CPU with `crop: smart`, a third of it after
// this (docs/benchmarks/still-images.md, "The face search's filters"). Here the ten weights of a pass stay in vector
// registers, multiplies and adds fuse where the build has FMA, and rows are padded to whole
// vectors. The same sums in another order: scores differ from dlib's by float rounding
// (FaceTests compares every score with dlib's step; the faces found are the same).
namespace dlib {
namespace impl {

namespace pm_filters {
using namespace pm_vectors;

// The filters' length across and down in dlib's face model (its 80 px window in 8 px cells, with
// dlib's padding). A bank of another size is scored by dlib's own step.
constexpr long taps = 10;

// One row filtered across: to[c] = sum over n of in[c + n] * weights[n], for c < cols (the row
// has cols + taps - 1 floats). The last vector is moved back to end at `cols` (the overlap's sums
// are made again, the same), so nothing past the row is read.
inline void across(const float *in, float *to, long cols, const float *weights) {
    if (cols < width) {
        for (long c = 0; c < cols; c++) {
            float sum = in[c] * weights[0];
            for (long n = 1; n < taps; n++) sum += in[c + n] * weights[n];
            to[c] = sum;
        }
        return;
    }
    floats w[taps];
    for (long n = 0; n < taps; n++) w[n] = broadcast(weights[n]);
    auto vector_at = [&](long c) {
        floats sum = load(in + c) * w[0];
        for (long n = 1; n < taps; n++) sum += load(in + c + n) * w[n];
        store(to + c, sum);
    };
    long c = 0;
    for (; c + width <= cols; c += width) vector_at(c);
    if (c < cols) vector_at(cols - width);
}

// The rows of `rowed` (out_rows + taps - 1 of them, `stride` floats apart) filtered down and
// added to `sums` (out_rows rows, the same stride): whole vectors, `stride` a multiple of `width`.
inline void down_add(const float *rowed, float *sums, long out_rows, long stride, const float *weights) {
    floats w[taps];
    for (long m = 0; m < taps; m++) w[m] = broadcast(weights[m]);
    for (long r = 0; r < out_rows; r++) {
        float *to = sums + r * stride;
        const float *from = rowed + r * stride;
        for (long c = 0; c < stride; c += width) {
            floats sum = load(to + c);
            for (long m = 0; m < taps; m++) sum += load(from + m * stride + c) * w[m];
            store(to + c, sum);
        }
    }
}
} // namespace pm_filters

// dlib's own step for separable filters (scan_fhog_pyramid.h), unchanged: for a bank whose
// filters are not the model's size, and as the reference FaceTests compares with.
template <typename bank_type>
rectangle dlibs_separable_step(const bank_type &w, const array<array2d<float>> &feats, array2d<float> &saliency_image) {
    rectangle area;
    saliency_image.clear();
    array2d<float> scratch;
    unsigned long i = 0;
    while (i < w.row_filters.size() && w.row_filters[i].size() == 0) ++i;
    for (; i < w.row_filters.size(); ++i)
        for (unsigned long j = 0; j < w.row_filters[i].size(); ++j)
            area = float_spatially_filter_image_separable(feats[i], saliency_image, w.row_filters[i][j],
                                                          w.col_filters[i][j], scratch, saliency_image.size() != 0);
    if (saliency_image.size() == 0) {
        saliency_image.set_size(feats[0].nr(), feats[0].nc());
        assign_all_pixels(saliency_image, 0);
    }
    return area;
}

template <>
inline rectangle apply_filters_to_fhog<scan_fhog_pyramid<pyramid_down<PM_FACE_PYRAMID_DOWN>>::fhog_filterbank>(
    const scan_fhog_pyramid<pyramid_down<PM_FACE_PYRAMID_DOWN>>::fhog_filterbank &w, const array<array2d<float>> &feats,
    array2d<float> &saliency_image) {
    using namespace pm_filters;
    // As dlib: the full filters when separating them would not save work (never with this model).
    if (w.num_separable_filters() > w.filters.size() * std::min(w.filters[0].nr(), w.filters[0].nc()) / 3.0) {
        rectangle area = spatially_filter_image(feats[0], saliency_image, w.filters[0]);
        for (unsigned long i = 1; i < w.filters.size(); ++i)
            spatially_filter_image(feats[i], saliency_image, w.filters[i], 1, false, true);
        return area;
    }
    unsigned long first_plane = 0;
    while (first_plane < w.row_filters.size() && w.row_filters[first_plane].size() == 0) ++first_plane;
    const long nr = feats[0].nr(), nc = feats[0].nc();
    if (first_plane == w.row_filters.size() || nr == 0 || nc == 0 || w.filters[0].nr() != taps ||
        w.filters[0].nc() != taps)
        return dlibs_separable_step(w, feats, saliency_image);
    saliency_image.set_size(nr, nc);
    assign_all_pixels(saliency_image, 0);
    // dlib's valid area for filters of this size: the scores outside it stay 0.
    const long first_row = taps / 2, first_col = taps / 2;
    const long last_row = nr - (taps - 1) / 2, last_col = nc - (taps - 1) / 2;
    const rectangle area(first_col, first_row, last_col - 1, last_row - 1);
    const long cols = last_col - first_col, out_rows = last_row - first_row;
    if (cols <= 0 || out_rows <= 0) return area;
    // Rows padded to whole vectors: the columns past `cols` stay zero (nothing writes them),
    // summed into columns of `sums` that are never read.
    const long stride = (cols + width - 1) / width * width;
    std::vector<float> rowed(static_cast<size_t>(nr * stride), 0.0f);
    std::vector<float> sums(static_cast<size_t>(out_rows * stride), 0.0f);
    for (unsigned long i = first_plane; i < w.row_filters.size(); ++i) {
        for (unsigned long t = 0; t < w.row_filters[i].size(); ++t) {
            for (long r = 0; r < nr; r++)
                across(&feats[i][r][0], &rowed[static_cast<size_t>(r * stride)], cols, &w.row_filters[i][t](0));
            down_add(rowed.data(), sums.data(), out_rows, stride, &w.col_filters[i][t](0));
        }
    }
    for (long r = 0; r < out_rows; r++)
        std::memcpy(&saliency_image[first_row + r][first_col], &sums[static_cast<size_t>(r * stride)],
                    static_cast<size_t>(cols) * sizeof(float));
    return area;
}

} // namespace impl
} // namespace dlib

#endif
