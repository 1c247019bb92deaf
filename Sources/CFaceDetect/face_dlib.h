// dlib's frontal-face detector headers, without BLAS and LAPACK, for every translation unit of
// the face search (face_detect.cpp, face_avx2_begin.h's region, the tests' comparisons).
// Debian's dlib/config.h turns on BLAS and LAPACK for every program that includes dlib. The face
// detector needs neither: its one matrix routine, an SVD when the model's filters are loaded, has
// dlib's own implementation, which gives the same filters (the same boxes and scores, checked on
// the face benchmark set). Without them the binary does not load liblapack/libblas, which on a
// machine whose BLAS is OpenBLAS started threads at start-up (about 25 ms per process) that then
// spun beside the search. config.h has no include guard, so the two headers that include it
// (both guarded) come first, then the switches go.
#ifndef PUSHMEDIA_FACE_DLIB_H
#define PUSHMEDIA_FACE_DLIB_H

#include <dlib/assert.h>
#include <dlib/test_for_odr_violations.h>
#undef DLIB_USE_BLAS
#undef DLIB_USE_LAPACK

#include <dlib/image_processing/frontal_face_detector.h>

#endif
