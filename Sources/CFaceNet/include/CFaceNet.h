// Faces the frontal HOG search (CFaceDetect) misses: dlib's CNN face detector
// (mmod_human_face_detector, CC0; its weights compiled in from face_net_model.h, no file read at
// run time), behind plain C so Swift sees no C++ (face_net.cpp). It costs about 2–2.4 µs of CPU
// per pixel searched (docs/benchmarks/faces.md), so it only reads the regions the caller plans,
// each at the caller's scale, and stops at the caller's deadline.
#ifndef PUSHMEDIA_FACE_NET_H
#define PUSHMEDIA_FACE_NET_H

#include <stddef.h>

#include "CDeadline.h"
#include "CFaceDetect.h"

#ifdef __cplusplus
extern "C" {
#endif

/// Finds faces in `regions` of `image` (each clamped to it; `region_count` of them, searched in
/// order), region `i` read at `scales[i]` times its size (bilinear, pixel centres aligned; 1/16 to
/// 16) on the net's own pyramid (each level 5/6 the size of the one before, down to its 40 px
/// window). Reads bands 0-2 as RGB when `bands` >= 3, else the band `band` as grey. Before each
/// region, stops when `deadline` has passed: `searched` (may be NULL) is set to how many regions
/// were read. Writes up to `capacity` faces scoring over `minimum_score` (the net's own score: 0
/// is its threshold), in pixels of `image`, largest score first, into `faces`, and returns how many
/// were found (which may exceed `capacity`), or -1 with a message in `error` (NUL-terminated, at
/// most `error_size` bytes). Overlapping faces of different regions are all reported. Thread-safe:
/// each thread keeps its own net.
int pm_detect_faces_net(const pm_face_image *image, const pm_face_region *regions, const double *scales,
                        int region_count, double minimum_score, pm_deadline deadline, pm_face_box *faces,
                        int capacity, int *searched, char *error, size_t error_size);

/// Decodes the weights compiled in (once per process; the first search would otherwise). Returns
/// 0, or -1 with a message in `error`.
int pm_face_net_load(char *error, size_t error_size);

#ifdef __cplusplus
}
#endif

#endif
