// The comparisons of face_compare.h in the AVX2 build (as CFaceDetect's face_detect_avx2.cpp
// builds the search: face_avx2_begin.h says how).
#if defined(__x86_64__)

#include "../../Sources/CFaceDetect/face_avx2_begin.h"

#define PM_FACE_FILTERS_ENTRY compare_filters_avx2
#define PM_FACE_FEATURES_ENTRY compare_features_avx2
#include "face_compare.h"

#include "../../Sources/CFaceDetect/face_avx2_end.h"

#endif
