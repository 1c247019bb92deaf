// The vector types of the two dlib steps the search replaces (face_search.h's filter step,
// face_features.h's HOG features): a register's lanes of floats, 32-bit integers or bytes, eight
// in the AVX2 build and four (SSE) in the portable one, through GCC's and clang's vector
// extension. Inside namespace dlib, so each build (face_detect_avx2.cpp renames dlib) has its own.
#ifndef PUSHMEDIA_FACE_VECTORS_H
#define PUSHMEDIA_FACE_VECTORS_H

#include <cstdint>
#include <cstring>

namespace dlib {
namespace pm_vectors {
#ifdef DLIB_HAVE_AVX
constexpr int width = 8;
#else
constexpr int width = 4;
#endif
typedef float floats __attribute__((vector_size(width * sizeof(float)), aligned(alignof(float))));
typedef int32_t ints __attribute__((vector_size(width * sizeof(int32_t)), aligned(alignof(int32_t))));
typedef uint8_t bytes __attribute__((vector_size(width), aligned(1)));

/// `width` floats from `p` (any alignment).
inline floats load(const float *p) {
    floats v;
    std::memcpy(&v, p, sizeof v);
    return v;
}
/// `width` bytes from `p`, widened to integers.
inline ints load_bytes(const uint8_t *p) {
    bytes b;
    std::memcpy(&b, p, sizeof b);
    return __builtin_convertvector(b, ints);
}
inline void store(float *p, floats v) { std::memcpy(p, &v, sizeof v); }
inline floats broadcast(float f) { return floats{} + f; }
} // namespace pm_vectors
} // namespace dlib

#endif
