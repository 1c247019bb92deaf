// The face search, compiled twice from this one text: for any x86-64 (or other) CPU in
// face_detect.cpp, and with AVX2 and FMA in face_detect_avx2.cpp, where `dlib` is renamed so the
// two builds of dlib's templates cannot be merged by the linker. pm_detect_faces (face_detect.cpp)
// picks one per process from what the CPU has. Include it after dlib's headers; it defines
// everything in an unnamed namespace except PM_FACE_SEARCH_ENTRY, the function named by the
// includer.
#ifndef PUSHMEDIA_FACE_SEARCH_H
#define PUSHMEDIA_FACE_SEARCH_H

#include "CFaceDetect.h"

#include <string>

namespace pm_face_search {

/// dlib's frontal-face model, serialised (decoded once from frontal_face_model.h).
const std::string &serialized_model();

/// The search as one build: the faces in `pixels` (the checks of pm_detect_faces already made),
/// as pm_detect_faces reports them. Throws what dlib or the allocator throws.
int search_portable(const uint8_t *pixels, int width, int height, int stride, pm_face_box *faces, int capacity);
#if defined(__x86_64__)
int search_avx2(const uint8_t *pixels, int width, int height, int stride, pm_face_box *faces, int capacity);
#endif

} // namespace pm_face_search

#endif

#ifdef PM_FACE_SEARCH_ENTRY
#include <algorithm>
#include <sstream>
#include <vector>

namespace {

// dlib's frontal-face filters on a pyramid that shrinks by 3/4 a level instead of dlib's 5/6:
// 2.3 times the image's pixels searched instead of 3.3 (BENCHMARKS.md, "Faces"). The filters and
// the 80 px window are dlib's model as it ships; only the spacing of the scales differs.
using face_detector = dlib::object_detector<dlib::scan_fhog_pyramid<dlib::pyramid_down<4>>>;

// Once per process (thread-safe static initialisation; retried if it threw).
const face_detector &prototype() {
    static const face_detector instance = [] {
        face_detector detector;
        std::istringstream model(pm_face_search::serialized_model());
        dlib::deserialize(detector, model);
        return detector;
    }();
    return instance;
}

// A search changes the detector's scanner, so each thread searches with its own copy (~0.1 ms).
face_detector &detector() {
    thread_local face_detector instance = prototype();
    return instance;
}

// dlib reports windows scoring above 0. On the face set (Benchmarks/faces.py) every true face
// scores at least 0.35 and the few false ones (a sleeve, a flag patch) stay under 0.1, where
// rounding in the blur decides whether they show: they are dropped.
constexpr double minimum_score = 0.1;

// The image blurred with the 3-tap Gaussian mask for sigma 1 (12, 20, 12 over 44; libvips'
// gaussmat), across then down, edges repeated, rounded after each pass. dlib's model was trained
// on soft, upsampled faces: on a sharp image it takes a flag patch or a sleeve for a face
// (BENCHMARKS.md, "Faces"). Done here rather than with libvips' gaussblur, whose run-time
// compiled (orc) convolution crashed a worker thread once under parallel tests.
void soften(const uint8_t *pixels, int width, int height, int stride, dlib::array2d<unsigned char> &out) {
    auto tap = [](int a, int b, int c) { return static_cast<unsigned char>((12 * a + 20 * b + 12 * c + 22) / 44); };
    std::vector<unsigned char> across(static_cast<size_t>(width) * static_cast<size_t>(height));
    for (int y = 0; y < height; y++) {
        const uint8_t *row = pixels + static_cast<size_t>(y) * static_cast<size_t>(stride);
        unsigned char *to = &across[static_cast<size_t>(y) * static_cast<size_t>(width)];
        for (int x = 0; x < width; x++)
            to[x] = tap(row[x > 0 ? x - 1 : 0], row[x], row[x + 1 < width ? x + 1 : width - 1]);
    }
    out.set_size(height, width);
    for (int y = 0; y < height; y++) {
        const unsigned char *above = &across[static_cast<size_t>(y > 0 ? y - 1 : 0) * static_cast<size_t>(width)];
        const unsigned char *here = &across[static_cast<size_t>(y) * static_cast<size_t>(width)];
        const unsigned char *below =
            &across[static_cast<size_t>(y + 1 < height ? y + 1 : height - 1) * static_cast<size_t>(width)];
        for (int x = 0; x < width; x++) out[y][x] = tap(above[x], here[x], below[x]);
    }
}

} // namespace

int pm_face_search::PM_FACE_SEARCH_ENTRY(const uint8_t *pixels, int width, int height, int stride,
                                         pm_face_box *faces, int capacity) {
    dlib::array2d<unsigned char> image;
    soften(pixels, width, height, stride, image);
    std::vector<dlib::rect_detection> found;
    detector()(image, found, minimum_score);
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
#endif
