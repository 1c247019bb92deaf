// Frontal faces in an 8-bit greyscale image: dlib's HOG detector (compiled in, its model in
// frontal_face_model.h, no file read at run time),
// behind plain C so Swift sees no C++ (face_detect.cpp).
#ifndef PUSHMEDIA_FACE_DETECT_H
#define PUSHMEDIA_FACE_DETECT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// One face, in pixels of the image passed in (origin top-left), and the detector's score
/// (higher is surer; faces scoring under 0.1 are not reported).
typedef struct {
    int x;
    int y;
    int width;
    int height;
    double score;
} pm_face_box;

/// Finds frontal faces in `pixels` (8-bit grey, `height` rows of `stride` bytes, `width` used),
/// blurred slightly first (sigma 1, as dlib's model expects). Faces from about 80 px (dlib's window) up to the whole image are found; the search costs about
/// 70 ns of CPU per pixel of the image (BENCHMARKS.md, "Faces"), so callers pass a small one.
/// Writes up to `capacity` faces, largest score first, into `faces` and returns how many were
/// found (which may exceed `capacity`), or -1 with a message in `error` (NUL-terminated,
/// at most `error_size` bytes). Thread-safe: each thread keeps its own detector.
int pm_detect_faces(const uint8_t *pixels, int width, int height, int stride, pm_face_box *faces,
                    int capacity, char *error, size_t error_size);

/// 1 when the model compiled in (frontal_face_model.h) is byte for byte the one dlib's header
/// ships, 0 when not (regenerate it with scripts/make-face-model), -1 on error. Slow (it decodes
/// dlib's compressed copy): for tests.
int pm_face_model_is_dlibs(void);

#ifdef __cplusplus
}
#endif

#endif
