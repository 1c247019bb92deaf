// The test entry points of the face search (CPushMediaTestSupport.h), and the portable build of
// its comparisons with dlib (face_compare.h). Every exception stops here and becomes -1 with its
// message.
#include "CPushMediaTestSupport.h"

#include "../../Sources/CFaceDetect/face_dlib.h"
#include "../../Sources/CFaceDetect/face_entry.h"

#include <exception>

#define PM_FACE_FILTERS_ENTRY compare_filters_portable
#define PM_FACE_FEATURES_ENTRY compare_features_portable
#include "face_compare.h"

namespace {

using pm_face_entry::guarded;
using pm_face_entry::readable;
using pm_face_entry::set_error;

/// `portable` or `avx2` as the build `choice` picks, with failures (-1, or C++ exceptions) turned
/// into -1 and a message.
template <typename Portable, typename AVX2>
long in_build(pm_face_search_choice choice, const char *differ, char *error, size_t error_size, Portable portable,
              AVX2 avx2) {
    return guarded(error, error_size, [&]() -> long {
        long compared;
        switch (pm_face_search_build(choice)) {
        case PM_FACE_SEARCH_AVX2: compared = avx2(); break;
        case PM_FACE_SEARCH_PORTABLE: compared = portable(); break;
        default: set_error(error, error_size, "this CPU lacks AVX2 or FMA"); return -1;
        }
        if (compared < 0) set_error(error, error_size, differ);
        return compared;
    });
}

#if defined(__x86_64__)
#define PM_AVX2_BUILD(call) (call)
#else
#define PM_AVX2_BUILD(call) (-1)
#endif

} // namespace

extern "C" long pm_face_filters_compare(pm_face_search_choice choice, const pm_face_image *image,
                                       double *largest_difference, double *largest_score, char *error,
                                       size_t error_size) {
    if (!readable(image) || !largest_difference || !largest_score) {
        set_error(error, error_size, "invalid arguments");
        return -1;
    }
    return in_build(
        choice, "the two steps scored different areas", error, error_size,
        [&] { return pm_face_test::compare_filters_portable(*image, largest_difference, largest_score); },
        [&] { return PM_AVX2_BUILD(pm_face_test::compare_filters_avx2(*image, largest_difference, largest_score)); });
}

extern "C" long pm_face_features_compare(pm_face_search_choice choice, const pm_face_image *image, int cell_size,
                                         double *largest_difference, double *largest_feature, char *error,
                                         size_t error_size) {
    if (!readable(image) || cell_size < 1 || !largest_difference || !largest_feature) {
        set_error(error, error_size, "invalid arguments");
        return -1;
    }
    return in_build(
        choice, "the two steps made features of different shapes", error, error_size,
        [&] { return pm_face_test::compare_features_portable(*image, cell_size, largest_difference, largest_feature); },
        [&] {
            return PM_AVX2_BUILD(
                pm_face_test::compare_features_avx2(*image, cell_size, largest_difference, largest_feature));
        });
}

extern "C" int pm_face_model_is_dlibs(void) {
    try {
        return pm_face_search::serialized_model() == dlib::get_serialized_frontal_faces() ? 1 : 0;
    } catch (...) {
        return -1;
    }
}
