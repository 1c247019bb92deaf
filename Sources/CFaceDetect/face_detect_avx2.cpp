// The face search (face_search.h) built with AVX2 and FMA, for pm_detect_faces to run on CPUs
// that have them: dlib's vector types (simd8f) then use 256-bit registers, and the search takes
// about a third fewer instructions (docs/benchmarks/faces.md). The package builds for any x86-64,
// so this file is compiled with the target's flags and only its own code asks for AVX2: how is
// face_avx2_begin.h's.
#if defined(__x86_64__)

#include "face_avx2_begin.h"

#define PM_FACE_SEARCH_ENTRY search_avx2
#define PM_FACE_REGIONS_ENTRY search_regions_avx2
#include "face_search.h"

#include "face_avx2_end.h"

#endif
