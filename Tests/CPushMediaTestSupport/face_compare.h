// The face search's two replaced steps compared with dlib's own, in one build (face_compare.cpp,
// and face_compare_avx2.cpp with AVX2 and FMA): the filter step (CFaceDetect's face_filters.h)
// and the HOG features (face_features.h), each against the dlib step it replaces, on the
// product's model. Include after dlib's headers, with PM_FACE_FILTERS_ENTRY and
// PM_FACE_FEATURES_ENTRY naming the build's functions.
#ifndef PUSHMEDIA_FACE_COMPARE_H
#define PUSHMEDIA_FACE_COMPARE_H

#include "CFaceDetect.h"

#include <string>

namespace pm_face_search {
/// dlib's frontal-face model, serialised (CFaceDetect: decoded once from frontal_face_model.h).
const std::string &serialized_model();
} // namespace pm_face_search

namespace pm_face_test {
/// The window scores of the features of `image`'s band, as this build's filter step computes
/// them and as dlib's own step does. Returns the scores compared (-1 when the two score
/// different areas); writes the largest difference and the largest score's magnitude.
long compare_filters_portable(const pm_face_image &image, double *largest_difference, double *largest_score);
/// The HOG features of `image`'s band in cells of `cell_size` pixels, with several paddings, as
/// this build makes them and as dlib's own step does. Returns the features compared (-1 when
/// the two differ in shape); writes the largest difference and the largest feature.
long compare_features_portable(const pm_face_image &image, int cell_size, double *largest_difference,
                               double *largest_feature);
#if defined(__x86_64__)
long compare_filters_avx2(const pm_face_image &image, double *largest_difference, double *largest_score);
long compare_features_avx2(const pm_face_image &image, int cell_size, double *largest_difference,
                           double *largest_feature);
#endif
} // namespace pm_face_test

#endif

#ifdef PM_FACE_FILTERS_ENTRY
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <sstream>
#include <utility>

#include "../../Sources/CFaceDetect/face_features.h"
#include "../../Sources/CFaceDetect/face_filters.h"

namespace {

using face_detector = dlib::object_detector<dlib::scan_fhog_pyramid<dlib::pyramid_down<PM_FACE_PYRAMID_DOWN>>>;

// The product's model (pm_face_search::serialized_model), deserialised once for the comparisons.
const face_detector &test_model() {
    static const face_detector &instance = *new face_detector([] {
        face_detector detector;
        std::istringstream model(pm_face_search::serialized_model());
        dlib::deserialize(detector, model);
        return detector;
    }());
    return instance;
}

// `image`'s band as dlib's image type (for the comparisons, which read it at its own size).
dlib::array2d<unsigned char> band_of(const pm_face_image &image) {
    dlib::array2d<unsigned char> grey(image.height, image.width);
    for (int y = 0; y < image.height; y++)
        for (int x = 0; x < image.width; x++)
            grey[y][x] = image.pixels[static_cast<size_t>(y) * static_cast<size_t>(image.stride) +
                                      static_cast<size_t>(x) * static_cast<size_t>(image.bands) +
                                      static_cast<size_t>(image.band)];
    return grey;
}
} // namespace

long pm_face_test::PM_FACE_FEATURES_ENTRY(const pm_face_image &image, int cell_size, double *largest_difference,
                                            double *largest_feature) {
    const dlib::array2d<unsigned char> grey = band_of(image);
    // dlib's own step, reached through an image type face_features.h does not replace.
    const dlib::matrix<unsigned char> same = dlib::mat(grey);
    long compared = 0;
    *largest_difference = 0;
    *largest_feature = 0;
    const std::pair<int, int> paddings[] = {{10, 10}, {1, 1}, {3, 6}};
    for (const auto &[rows, columns] : paddings) {
        dlib::array<dlib::array2d<float>> ours, dlibs;
        dlib::extract_fhog_features(grey, ours, cell_size, rows, columns);
        dlib::extract_fhog_features(same, dlibs, cell_size, rows, columns);
        if (ours.size() != dlibs.size()) return -1;
        for (unsigned long plane = 0; plane < ours.size(); plane++) {
            if (ours[plane].nr() != dlibs[plane].nr() || ours[plane].nc() != dlibs[plane].nc()) return -1;
            for (long r = 0; r < ours[plane].nr(); r++)
                for (long c = 0; c < ours[plane].nc(); c++) {
                    *largest_difference = std::max(
                        *largest_difference, static_cast<double>(std::fabs(ours[plane][r][c] - dlibs[plane][r][c])));
                    *largest_feature = std::max(*largest_feature, static_cast<double>(std::fabs(dlibs[plane][r][c])));
                    compared++;
                }
        }
    }
    return compared;
}

long pm_face_test::PM_FACE_FILTERS_ENTRY(const pm_face_image &image, double *largest_difference,
                                           double *largest_score) {
    const dlib::array2d<unsigned char> grey = band_of(image);
    const face_detector &model = test_model();
    long compared = 0;
    *largest_difference = 0;
    *largest_score = 0;
    auto compare = [&](const auto &bank, const dlib::array<dlib::array2d<float>> &features) -> bool {
        dlib::array2d<float> ours, dlibs;
        const dlib::rectangle ours_area = dlib::impl::apply_filters_to_fhog(bank, features, ours);
        const dlib::rectangle dlibs_area = dlib::impl::dlibs_separable_step(bank, features, dlibs);
        if (ours_area != dlibs_area || ours.nr() != dlibs.nr() || ours.nc() != dlibs.nc()) return false;
        for (long r = 0; r < ours.nr(); r++)
            for (long c = 0; c < ours.nc(); c++) {
                *largest_difference = std::max(*largest_difference, static_cast<double>(std::fabs(ours[r][c] - dlibs[r][c])));
                *largest_score = std::max(*largest_score, static_cast<double>(std::fabs(dlibs[r][c])));
                compared++;
            }
        return true;
    };
    for (unsigned long d = 0; d < model.num_detectors(); d++) {
        const auto &bank = model.get_processed_w(d).fb;
        // The features as the scanner makes them for one level: padded by the filter's size.
        dlib::array<dlib::array2d<float>> features;
        dlib::extract_fhog_features(grey, features, static_cast<int>(model.get_scanner().get_cell_size()),
                                    static_cast<int>(bank.filters[0].nr()), static_cast<int>(bank.filters[0].nc()));
        if (features.size() > 0 && !compare(bank, features)) return -1;
        // Seeded planes with no zero border: every weight of a short row meets a value (real
        // features are zero-padded by the filter's size, so a row of 1-3 columns never reaches
        // its outer weights).
        uint64_t state = 0x2545F4914F6CDD1DULL + d;
        const std::pair<long, long> sizes[] = {{10, 10}, {11, 12}, {13, 17}, {19, 10}, {24, 30}, {10, 25}};
        for (const auto &[rows, columns] : sizes) {
            dlib::array<dlib::array2d<float>> planes;
            planes.resize(bank.row_filters.size());
            for (unsigned long i = 0; i < planes.size(); i++) {
                planes[i].set_size(rows, columns);
                for (long r = 0; r < rows; r++)
                    for (long c = 0; c < columns; c++) {
                        state = state * 6364136223846793005ULL + 1442695040888963407ULL;
                        planes[i][r][c] = static_cast<float>(state >> 40) / static_cast<float>(1 << 24) - 0.5f;
                    }
            }
            if (!compare(bank, planes)) return -1;
        }
    }
    return compared;
}
#endif
