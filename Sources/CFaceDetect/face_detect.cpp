// dlib's HOG frontal-face detector behind the C interface in CFaceDetect.h. Every exception
// stops here and becomes -1 with its message: C++ never unwinds into Swift.
#include "CFaceDetect.h"

#include "frontal_face_model.h"

// Debian's dlib/config.h turns on BLAS and LAPACK for every program that includes dlib. The face
// detector needs neither: its one matrix routine, an SVD when the model's filters are loaded, has
// dlib's own implementation, which gives the same filters (the same boxes and scores, checked on
// the face benchmark set). Without them the binary does not load liblapack/libblas, which on a
// machine whose BLAS is OpenBLAS started threads at start-up (about 25 ms per process) that then
// spun beside the search. config.h has no include guard, so the two headers that include it
// (both guarded) come first, then the switches go.
#include <dlib/assert.h>
#include <dlib/test_for_odr_violations.h>
#undef DLIB_USE_BLAS
#undef DLIB_USE_LAPACK

#include <dlib/base64.h>
#include <dlib/image_processing/frontal_face_detector.h>

#include <algorithm>
#include <cstdio>
#include <exception>
#include <new>
#include <sstream>
#include <string>
#include <vector>

namespace {

void set_error(char *error, size_t size, const char *message) {
    if (error && size > 0) std::snprintf(error, size, "%s", message);
}

// dlib's model, serialised, from the base64 in frontal_face_model.h (~3 ms). dlib's own
// get_frontal_face_detector() first undoes an arithmetic-coder compression, 0.5-1.4 s of CPU.
std::string embedded_model() {
    std::istringstream text(pm_frontal_face_model_base64);
    std::ostringstream plain;
    dlib::base64 coder;
    coder.decode(text, plain);
    return plain.str();
}

// dlib's frontal-face filters on a pyramid that shrinks by 3/4 a level instead of dlib's 5/6:
// 2.3 times the image's pixels searched instead of 3.3 (BENCHMARKS.md, "Faces"). The filters and
// the 80 px window are dlib's model as it ships; only the spacing of the scales differs.
using face_detector = dlib::object_detector<dlib::scan_fhog_pyramid<dlib::pyramid_down<4>>>;

// Once per process (thread-safe static initialisation; retried if it threw).
const face_detector &prototype() {
    static const face_detector instance = [] {
        face_detector detector;
        std::istringstream model(embedded_model());
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

extern "C" int pm_detect_faces(const uint8_t *pixels, int width, int height, int stride, pm_face_box *faces,
                               int capacity, char *error, size_t error_size) {
    if (!pixels || width <= 0 || height <= 0 || stride < width || capacity < 0 || (capacity > 0 && !faces)) {
        set_error(error, error_size, "invalid arguments");
        return -1;
    }
    try {
        dlib::array2d<unsigned char> image;
        soften(pixels, width, height, stride, image);
        std::vector<dlib::rect_detection> found;
        detector()(image, found, minimum_score);
        std::sort(found.begin(), found.end(),
                  [](const dlib::rect_detection &a, const dlib::rect_detection &b) {
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
    } catch (const std::bad_alloc &) {
        set_error(error, error_size, "out of memory");
    } catch (const std::exception &e) {
        set_error(error, error_size, e.what());
    } catch (...) {
        set_error(error, error_size, "unknown error");
    }
    return -1;
}

extern "C" int pm_face_model_is_dlibs(void) {
    try {
        return embedded_model() == dlib::get_serialized_frontal_faces() ? 1 : 0;
    } catch (...) {
        return -1;
    }
}
