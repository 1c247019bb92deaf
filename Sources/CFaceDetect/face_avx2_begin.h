// The start of a translation unit of dlib's templates built with AVX2 and FMA (face_detect_avx2.cpp,
// and the tests' comparison of the two steps this build replaces), to be closed by
// face_avx2_end.h. Include it first, on x86-64 only:
// - Every library header dlib needs is included first, outside the AVX2 region, so the C++
//   library's inline functions and templates keep the flags of the rest of the binary. Were one
//   compiled with AVX2 here, the linker could keep that copy for all callers, and a CPU without
//   AVX2 would fault in it.
// - Inside the region, `dlib` is a macro for `pm_dlib_avx2`: this build of dlib's templates has
//   names of its own, so the linker never merges it with the portable build's. dlib's C-linkage
//   build checks (test_for_odr_violations.h) keep their names and still reach libdlib.a.
// - Everything declared in the region is compiled for AVX2 and FMA (clang's attribute pragma);
//   dlib's headers see DLIB_HAVE_AVX as they would under -mavx2.
// scripts/check-face-avx2 fails if AVX code lands outside the build's own names.
#ifndef PUSHMEDIA_FACE_AVX2_BEGIN_H
#define PUSHMEDIA_FACE_AVX2_BEGIN_H

// What dlib's detector headers include from outside dlib (clang++ -H).
#include <algorithm>
#include <array>
#include <cassert>
#include <cctype>
#include <chrono>
#include <climits>
#include <cmath>
#include <complex>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <deque>
#include <forward_list>
#include <fstream>
#include <functional>
#include <future>
#include <iomanip>
#include <iostream>
#include <iterator>
#include <limits>
#include <list>
#include <map>
#include <memory>
#include <numeric>
#include <optional>
#include <queue>
#include <set>
#include <sstream>
#include <stack>
#include <string>
#include <thread>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <variant>
#include <vector>
#include <cpuid.h>
#include <immintrin.h>
#include <stddef.h>
#include <sys/time.h>

// The shared tap tables (plain C, compiled once): declared outside the AVX2 region too.
#include "CResample.h"

#define DLIB_HAVE_SSE2
#define DLIB_HAVE_SSE3
#define DLIB_HAVE_SSE41
#define DLIB_HAVE_AVX
#define DLIB_HAVE_AVX2
#define dlib pm_dlib_avx2

#pragma clang attribute push(__attribute__((target("avx2,fma"))), apply_to = function)

#include "face_dlib.h"

#endif
