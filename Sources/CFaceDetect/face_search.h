// The face search (the proxy it reads, then dlib's detector), compiled twice from this one
// text: for any x86-64 (or other) CPU in face_detect.cpp, and with AVX2 and FMA in
// face_detect_avx2.cpp, where `dlib` is renamed so the two builds of dlib's templates cannot be
// merged by the linker. pm_detect_faces (face_detect.cpp) picks one per process from what the
// CPU has. Include it after dlib's headers; it defines everything in an unnamed namespace except
// PM_FACE_SEARCH_ENTRY, the function named by the includer.
#ifndef PUSHMEDIA_FACE_SEARCH_H
#define PUSHMEDIA_FACE_SEARCH_H

#include "CFaceDetect.h"

#include <string>

namespace pm_face_search {

/// dlib's frontal-face model, serialised (decoded once from frontal_face_model.h).
const std::string &serialized_model();

/// The search as one build: the faces in `image` (the checks of pm_detect_faces already made),
/// as pm_detect_faces reports them. Throws what dlib or the allocator throws.
int search_portable(const pm_face_image &image, long search_area, pm_face_box *faces, int capacity,
                    int *searched_width, int *searched_height);
#if defined(__x86_64__)
int search_avx2(const pm_face_image &image, long search_area, pm_face_box *faces, int capacity,
                int *searched_width, int *searched_height);
#endif

/// The search of given regions at a scale, as pm_detect_faces_in_regions reports it (its checks
/// already made). Throws what dlib or the allocator throws.
int search_regions_portable(const pm_face_image &image, const pm_face_region *regions, int region_count,
                            double scale, int levels, pm_face_box *faces, int capacity);
#if defined(__x86_64__)
int search_regions_avx2(const pm_face_image &image, const pm_face_region *regions, int region_count,
                        double scale, int levels, pm_face_box *faces, int capacity);
#endif

/// For tests (pm_face_filters_compare): the window scores of the features of `image`'s band, as
/// this build's filter step computes them and as dlib's own step does. Returns the scores
/// compared; writes the largest difference and the largest score's magnitude.
long compare_filters_portable(const pm_face_image &image, double *largest_difference, double *largest_score);
#if defined(__x86_64__)
long compare_filters_avx2(const pm_face_image &image, double *largest_difference, double *largest_score);
#endif

/// For tests (pm_face_features_compare): the HOG features of `image`'s band in cells of
/// `cell_size` pixels, with several paddings, as this build makes them (face_features.h) and as
/// dlib's own step does. Returns the features compared (-1 when the two differ in shape); writes
/// the largest difference and the largest feature.
long compare_features_portable(const pm_face_image &image, int cell_size, double *largest_difference,
                               double *largest_feature);
#if defined(__x86_64__)
long compare_features_avx2(const pm_face_image &image, int cell_size, double *largest_difference,
                           double *largest_feature);
#endif

} // namespace pm_face_search

#endif

#ifdef PM_FACE_SEARCH_ENTRY
#include "CResample.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <sstream>
#include <vector>

#include "face_features.h"
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
rectangle apply_filters_to_fhog<scan_fhog_pyramid<pyramid_down<PM_FACE_PYRAMID_DOWN>>::fhog_filterbank>(
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

namespace {

// dlib's frontal-face filters on a pyramid that shrinks by 3/4 a level instead of dlib's 5/6:
// 2.3 times the image's pixels searched instead of 3.3 (docs/benchmarks/faces.md). The filters and
// the 80 px window are dlib's model as it ships; only the spacing of the scales differs.
using face_detector = dlib::object_detector<dlib::scan_fhog_pyramid<dlib::pyramid_down<PM_FACE_PYRAMID_DOWN>>>;

// Once per process (thread-safe static initialisation; retried if it threw), with the feature
// step's table of orientations, so a process that loads the model before it forks (the item
// processes' fork server) makes both once. Never freed, like the table and the serialised model:
// `exit` runs the destructors of function-local statics on the thread that calls it, while other
// threads may still search or load (an item process told to stop while it loads the model, an
// item past its deadline in `process --in-process`); they would read freed memory.
const face_detector &prototype() {
    static const face_detector &instance = *new face_detector([] {
        dlib::impl_fhog::pm_features::bins_table();
        face_detector detector;
        std::istringstream model(pm_face_search::serialized_model());
        dlib::deserialize(detector, model);
        return detector;
    }());
    return instance;
}

// A search changes the detector's scanner, so each thread searches with its own copy (~0.1 ms).
face_detector &detector() {
    thread_local face_detector instance = prototype();
    return instance;
}

// The thread's detector (detector()) searching at most `levels` levels of its pyramid, the finest
// first (0: every level that holds the window), for as long as this lives; its own count after.
struct levelled {
    face_detector &detector = ::detector();
    using scanner_type = std::remove_const_t<std::remove_reference_t<decltype(detector.get_scanner())>>;
    // The detector's own scanner: a search loads its image there, so it is not const in use.
    scanner_type &scanner = const_cast<scanner_type &>(detector.get_scanner());
    const unsigned long all = scanner.get_max_pyramid_levels();
    explicit levelled(int levels) {
        if (levels > 0) scanner.set_max_pyramid_levels(static_cast<unsigned long>(levels));
    }
    ~levelled() { scanner.set_max_pyramid_levels(all); }
    levelled(const levelled &) = delete;
    levelled &operator=(const levelled &) = delete;
};

// dlib reports windows scoring above 0. On the face set (Benchmarks/faces.py) every true face
// scores at least 0.35 and the few false ones (a sleeve, a flag patch) stay under 0.1, where
// rounding in the blur decides whether they show: they are dropped.
constexpr double minimum_score = 0.1;

// Which input pixels make one output pixel of the proxy's reduction, and their weights: libvips'
// linear kernel, a triangle as wide as two output pixels (CResample). Each output pixel has `most`
// weights, those past its own taps zero (adding 0 × a pixel leaves a sum as it was, so summing all
// `most` gives the same float as summing its own taps).
struct triangle_taps {
    std::vector<int> first;
    std::vector<int> count;
    std::vector<float> weights; // `most` for each output pixel
    int most = 0;

    triangle_taps(int in, int out) {
        most = pm_resample_most_taps(PM_RESAMPLE_TRIANGLE, in, out);
        first.resize(static_cast<size_t>(out));
        count.resize(static_cast<size_t>(out));
        weights.assign(static_cast<size_t>(out) * static_cast<size_t>(most), 0.0f);
        std::vector<double> w(static_cast<size_t>(most));
        for (int o = 0; o < out; o++) {
            const size_t at = static_cast<size_t>(o);
            count[at] = pm_resample_taps(PM_RESAMPLE_TRIANGLE, in, out, o, &first[at], w.data());
            for (int k = 0; k < count[at]; k++)
                weights[at * static_cast<size_t>(most) + static_cast<size_t>(k)] = static_cast<float>(w[static_cast<size_t>(k)]);
        }
    }
};

// The searched band of `image` reduced to `width`×`height` (down, then across), rounded to bytes.
// Each input row's band is copied out as floats once, into a ring of `down.most` rows (the rows
// one output row reads), so no image-sized buffer of floats is made; each output row first sums
// its input rows at the input's full width (contiguous: vectorised), then that one row is reduced
// across. Summing across first did the scalar, gathered step on every input row instead of every
// output row: 1.5x the CPU for a 2000x1500 image to 775x581, for the same bytes but for a few
// pixels 1 level apart (float sums in another order).
std::vector<unsigned char> reduce(const pm_face_image &image, int width, int height) {
    const triangle_taps across(image.width, width), down(image.height, height);
    const size_t bands = static_cast<size_t>(image.bands), w = static_cast<size_t>(width);
    const size_t in = static_cast<size_t>(image.width);
    const size_t ring_rows = static_cast<size_t>(down.most), most = static_cast<size_t>(across.most);
    std::vector<float> ring(ring_rows * in);
    // One output row summed down, at the input's width; zeros after it, for the zero weights past
    // the last taps across.
    std::vector<float> summed(in + most, 0.0f);
    std::vector<unsigned char> out(w * static_cast<size_t>(height));
    int next_row = 0; // the next input row to copy into the ring
    for (int y = 0; y < height; y++) {
        const size_t o = static_cast<size_t>(y);
        const int last = down.first[o] + down.count[o] - 1;
        for (; next_row <= last; next_row++) {
            const uint8_t *row =
                image.pixels + static_cast<size_t>(next_row) * static_cast<size_t>(image.stride) + image.band;
            float *to = &ring[(static_cast<size_t>(next_row) % ring_rows) * in];
            for (size_t x = 0; x < in; x++) to[x] = row[x * bands];
        }
        std::fill(summed.begin(), summed.begin() + static_cast<std::ptrdiff_t>(in), 0.0f);
        const float *weights = &down.weights[o * ring_rows];
        for (int k = 0; k < down.count[o]; k++) {
            const float *row = &ring[(static_cast<size_t>(down.first[o] + k) % ring_rows) * in];
            const float weight = weights[k];
            for (size_t x = 0; x < in; x++) summed[x] += weight * row[x];
        }
        unsigned char *to = &out[o * w];
        for (size_t x = 0; x < w; x++) {
            const float *weight = &across.weights[x * most];
            const float *from = &summed[static_cast<size_t>(across.first[x])];
            float sum = 0;
            for (size_t k = 0; k < most; k++) sum += weight[k] * from[k];
            to[x] = static_cast<unsigned char>(std::min(255.0f, sum + 0.5f));
        }
    }
    return out;
}

// The 3-tap Gaussian mask for sigma 1 (12, 20, 12 over 44; libvips' gaussmat), rounded.
inline unsigned char blur_tap(int a, int b, int c) { return static_cast<unsigned char>((12 * a + 20 * b + 12 * c + 22) / 44); }

// The image blurred with that mask, across then down, edges repeated, rounded after each pass.
// dlib's model was trained on soft, upsampled faces: on a sharp image it takes a flag patch or a
// sleeve for a face (docs/benchmarks/faces.md). Done here rather than with libvips' gaussblur, whose
// run-time compiled (orc) convolution crashed a worker thread once under parallel tests.
// `step` is the distance in bytes from one pixel's byte to the next one's in a row.
void soften(const uint8_t *pixels, int width, int height, int stride, int step, dlib::array2d<unsigned char> &out) {
    const size_t w = static_cast<size_t>(width), s = static_cast<size_t>(step);
    std::vector<unsigned char> across(w * static_cast<size_t>(height));
    for (int y = 0; y < height; y++) {
        const uint8_t *row = pixels + static_cast<size_t>(y) * static_cast<size_t>(stride);
        unsigned char *to = &across[static_cast<size_t>(y) * w];
        if (width == 1) {
            to[0] = blur_tap(row[0], row[0], row[0]);
            continue;
        }
        to[0] = blur_tap(row[0], row[0], row[s]);
        if (step == 1) {
            for (size_t x = 1; x + 1 < w; x++) to[x] = blur_tap(row[x - 1], row[x], row[x + 1]);
        } else {
            for (size_t x = 1; x + 1 < w; x++) to[x] = blur_tap(row[(x - 1) * s], row[x * s], row[(x + 1) * s]);
        }
        to[w - 1] = blur_tap(row[(w - 2) * s], row[(w - 1) * s], row[(w - 1) * s]);
    }
    out.set_size(height, width);
    for (int y = 0; y < height; y++) {
        const unsigned char *above = &across[static_cast<size_t>(y > 0 ? y - 1 : 0) * w];
        const unsigned char *here = &across[static_cast<size_t>(y) * w];
        const unsigned char *below = &across[static_cast<size_t>(y + 1 < height ? y + 1 : height - 1) * w];
        unsigned char *to = &out[y][0];
        for (size_t x = 0; x < w; x++) to[x] = blur_tap(above[x], here[x], below[x]);
    }
}

/// `found` surest first, the first `capacity` written into `faces` (image pixels); returns how
/// many were found (which may exceed `capacity`).
inline int write_faces(std::vector<dlib::rect_detection> &found, pm_face_box *faces, int capacity) {
    std::sort(found.begin(), found.end(), [](const dlib::rect_detection &a, const dlib::rect_detection &b) {
        return a.detection_confidence > b.detection_confidence;
    });
    const int count = static_cast<int>(found.size());
    for (int i = 0; i < std::min(count, capacity); i++) {
        const dlib::rectangle &r = found[static_cast<size_t>(i)].rect;
        faces[i].x = static_cast<int>(r.left());
        faces[i].y = static_cast<int>(r.top());
        faces[i].width = static_cast<int>(r.width());
        faces[i].height = static_cast<int>(r.height());
        faces[i].score = found[static_cast<size_t>(i)].detection_confidence;
    }
    return count;
}

} // namespace

namespace {
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

long pm_face_search::PM_FACE_FEATURES_ENTRY(const pm_face_image &image, int cell_size, double *largest_difference,
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

long pm_face_search::PM_FACE_FILTERS_ENTRY(const pm_face_image &image, double *largest_difference,
                                           double *largest_score) {
    const dlib::array2d<unsigned char> grey = band_of(image);
    const face_detector &model = prototype();
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

int pm_face_search::PM_FACE_SEARCH_ENTRY(const pm_face_image &image, long search_area, pm_face_box *faces,
                                         int capacity, int *searched_width, int *searched_height) {
    // The proxy: ~search_area pixels of the band (the shape kept), or the image as it is when it
    // is no larger (upscaling brought back false faces; docs/benchmarks/faces.md).
    const double scale =
        std::sqrt(static_cast<double>(search_area) / (static_cast<double>(image.width) * image.height));
    dlib::array2d<unsigned char> proxy;
    if (scale < 1) {
        const int width = std::max(1, static_cast<int>(std::lround(image.width * scale)));
        const int height = std::max(1, static_cast<int>(std::lround(image.height * scale)));
        soften(reduce(image, width, height).data(), width, height, width, 1, proxy);
    } else {
        soften(image.pixels + image.band, image.width, image.height, image.stride, image.bands, proxy);
    }
    *searched_width = static_cast<int>(proxy.nc());
    *searched_height = static_cast<int>(proxy.nr());
    std::vector<dlib::rect_detection> found;
    detector()(proxy, found, minimum_score);
    return write_faces(found, faces, capacity);
}

namespace {

// The band of `region` of `image` enlarged `scale` times (> 1) by bilinear interpolation, pixel
// centres aligned (as PIL's and libvips' bilinear upsampling), rounded to bytes.
std::vector<unsigned char> enlarge(const pm_face_image &image, const pm_face_region &region, int width, int height) {
    const double sx = static_cast<double>(region.width) / width, sy = static_cast<double>(region.height) / height;
    std::vector<int> x0(static_cast<size_t>(width)), x1(static_cast<size_t>(width));
    std::vector<float> fx(static_cast<size_t>(width));
    for (int x = 0; x < width; x++) {
        const double at = std::min(std::max((x + 0.5) * sx - 0.5, 0.0), static_cast<double>(region.width - 1));
        const int left = static_cast<int>(at);
        x0[static_cast<size_t>(x)] = (region.x + left) * image.bands + image.band;
        x1[static_cast<size_t>(x)] = (region.x + std::min(left + 1, region.width - 1)) * image.bands + image.band;
        fx[static_cast<size_t>(x)] = static_cast<float>(at - left);
    }
    std::vector<unsigned char> out(static_cast<size_t>(width) * static_cast<size_t>(height));
    std::vector<float> above(static_cast<size_t>(width)), below(static_cast<size_t>(width));
    for (int y = 0; y < height; y++) {
        const double at = std::min(std::max((y + 0.5) * sy - 0.5, 0.0), static_cast<double>(region.height - 1));
        const int top = static_cast<int>(at);
        const float fy = static_cast<float>(at - top);
        const uint8_t *a = image.pixels + static_cast<size_t>(region.y + top) * static_cast<size_t>(image.stride);
        const uint8_t *b = image.pixels + static_cast<size_t>(region.y + std::min(top + 1, region.height - 1)) *
                                              static_cast<size_t>(image.stride);
        unsigned char *to = &out[static_cast<size_t>(y) * static_cast<size_t>(width)];
        for (size_t x = 0; x < static_cast<size_t>(width); x++) {
            const float up = a[x0[x]] + (a[x1[x]] - a[x0[x]]) * fx[x];
            const float down = b[x0[x]] + (b[x1[x]] - b[x0[x]]) * fx[x];
            to[x] = static_cast<unsigned char>(std::min(255.0f, up + (down - up) * fy + 0.5f));
        }
    }
    return out;
}

} // namespace

int pm_face_search::PM_FACE_REGIONS_ENTRY(const pm_face_image &image, const pm_face_region *regions, int region_count,
                                          double scale, int levels, pm_face_box *faces, int capacity) {
    levelled searcher(levels);
    // Collected as dlib's type, not pm_face_box: a std::vector of a type both builds share would
    // be one template instance compiled twice, the AVX2 copy possibly kept for both.
    std::vector<dlib::rect_detection> all;
    for (int i = 0; i < region_count; i++) {
        pm_face_region region = regions[i];
        const int left = std::max(0, region.x), top = std::max(0, region.y);
        const int right = std::min(image.width, region.x + region.width);
        const int bottom = std::min(image.height, region.y + region.height);
        if (right <= left || bottom <= top) continue;
        region = {left, top, right - left, bottom - top};
        const int width = std::max(1, static_cast<int>(std::lround(region.width * scale)));
        const int height = std::max(1, static_cast<int>(std::lround(region.height * scale)));
        dlib::array2d<unsigned char> proxy;
        if (scale > 1) {
            soften(enlarge(image, region, width, height).data(), width, height, width, 1, proxy);
        } else {
            pm_face_image part = image;
            part.pixels = image.pixels + static_cast<size_t>(region.y) * static_cast<size_t>(image.stride) +
                          static_cast<size_t>(region.x) * static_cast<size_t>(image.bands);
            part.width = region.width;
            part.height = region.height;
            if (width < region.width || height < region.height)
                soften(reduce(part, width, height).data(), width, height, width, 1, proxy);
            else
                soften(part.pixels + part.band, part.width, part.height, part.stride, part.bands, proxy);
        }
        std::vector<dlib::rect_detection> found;
        searcher.detector(proxy, found, minimum_score);
        const double across = static_cast<double>(region.width) / width, down = static_cast<double>(region.height) / height;
        for (dlib::rect_detection d : found) {
            const dlib::rectangle r = d.rect;
            // In pixels of the image; right and bottom exclusive, as dlib's width() counts.
            d.rect = dlib::rectangle(std::lround(region.x + r.left() * across), std::lround(region.y + r.top() * down),
                                     std::lround(region.x + (r.right() + 1) * across) - 1,
                                     std::lround(region.y + (r.bottom() + 1) * down) - 1);
            all.push_back(d);
        }
    }
    return write_faces(all, faces, capacity);
}
#endif
