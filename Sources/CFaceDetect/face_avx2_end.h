// Closes the AVX2 region face_avx2_begin.h opened.
#pragma clang attribute pop
