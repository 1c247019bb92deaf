// Frontal faces in an 8-bit image: dlib's HOG detector (compiled in, its model in
// frontal_face_model.h, no file read at run time), behind plain C so Swift sees no C++
// (face_detect.cpp), and the cell statistics a search is planned from. The proxy's size, the
// regions and the lowest score reported are the caller's plan.
#ifndef PUSHMEDIA_FACE_DETECT_H
#define PUSHMEDIA_FACE_DETECT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// One face, in pixels of the image passed in (origin top-left), and the detector's score
/// (higher is surer; faces scoring under the caller's minimum are not reported).
typedef struct {
    int x;
    int y;
    int width;
    int height;
    double score;
} pm_face_box;

/// The detector's pyramid: each level is (N - 1) / N the size of the one before (dlib's
/// `pyramid_down<N>`, face_search.h; dlib's own model uses 6). The second look's plan counts its
/// levels with this step (FaceSearchPlan.pyramidStep, which a test holds to it).
#define PM_FACE_PYRAMID_DOWN 4

/// Which build of the search runs: dlib's templates compiled for any CPU of the architecture, or
/// (x86-64) with AVX2 and FMA, about a third fewer instructions (docs/benchmarks/faces.md). The two
/// find the same faces; scores may differ in the last digits (float sums in another order).
typedef enum {
    /// AVX2 when the CPU has it (checked once per process), else portable.
    PM_FACE_SEARCH_AUTOMATIC = 0,
    PM_FACE_SEARCH_PORTABLE = 1,
    PM_FACE_SEARCH_AVX2 = 2,
} pm_face_search_choice;

/// The build `choice` runs on this CPU (PM_FACE_SEARCH_PORTABLE or PM_FACE_SEARCH_AVX2), or -1
/// when it asks for AVX2 on a CPU without it.
int pm_face_search_build(pm_face_search_choice choice);

/// An 8-bit image to search: `height` rows of `stride` bytes, each pixel `bands` interleaved
/// bytes, of which the search reads `band` (an RGB image's green: most of its luminance).
typedef struct {
    const uint8_t *pixels;
    int width;
    int height;
    int stride;
    int bands;
    int band;
} pm_face_image;

/// Finds frontal faces in `image`, with the build PM_FACE_SEARCH_AUTOMATIC picks. The search
/// reads a proxy of `proxy_width`×`proxy_height` (at most the image's size; the image as it is
/// at its own size): the band reduced with a triangle filter (libvips' linear kernel), then
/// blurred with a 3-tap Gaussian (sigma 1), as dlib's model expects. Faces from about 80 px of
/// the proxy (dlib's window) up to all of it are found; the CPU grows with the proxy's area
/// (docs/benchmarks/faces.md). Writes up to `capacity` faces scoring over `minimum_score`,
/// in the proxy's pixels, largest score first, into `faces`, and returns how many were found
/// (which may exceed `capacity`), or -1 with a message in `error` (NUL-terminated, at most
/// `error_size` bytes). Thread-safe: each thread keeps its own detector.
int pm_detect_faces(const pm_face_image *image, int proxy_width, int proxy_height, double minimum_score,
                    pm_face_box *faces, int capacity, char *error, size_t error_size);

/// pm_detect_faces with the build chosen (see pm_face_search_build; -1 and a message when the
/// CPU cannot run it). For tests and benchmarks that compare the builds.
int pm_detect_faces_with(pm_face_search_choice choice, const pm_face_image *image, int proxy_width, int proxy_height,
                         double minimum_score, pm_face_box *faces, int capacity, char *error, size_t error_size);

/// A rectangle of an image, in its pixels (origin top-left).
typedef struct {
    int x;
    int y;
    int width;
    int height;
} pm_face_region;

/// Finds frontal faces inside given regions of `image` (each clamped to it), each read at `scale`
/// times its size: upsampled bilinearly (pixel centres aligned) when `scale` > 1, else reduced as
/// pm_detect_faces reduces, then blurred as there and searched with the same model. For a second
/// look at faces too small for the whole image's proxy: a face of `w` pixels of the image is
/// found once `w * scale` reaches dlib's window (~80 px). Each region is searched on at most
/// `levels` levels of the detector's pyramid, the finest first, each PM_FACE_PYRAMID_DOWN's step
/// the size of the one before (0: every level that holds the window): a face larger than the window on the finest
/// level is found only on a coarser one. The regions, the scale and the levels (so the pixels
/// searched, and the CPU) are the caller's plan. Writes up to `capacity` faces, in pixels of
/// `image`, largest score first, into `faces`, and returns how many were found (which may exceed
/// `capacity`; scoring over `minimum_score`), or -1 with a message in `error`. Built as
/// pm_detect_faces picks.
int pm_detect_faces_in_regions(const pm_face_image *image, const pm_face_region *regions, int region_count,
                               double scale, int levels, double minimum_score, pm_face_box *faces, int capacity,
                               char *error, size_t error_size);

/// pm_detect_faces_in_regions with the build chosen (see pm_face_search_build).
int pm_detect_faces_in_regions_with(pm_face_search_choice choice, const pm_face_image *image,
                                    const pm_face_region *regions, int region_count, double scale, int levels,
                                    double minimum_score, pm_face_box *faces, int capacity, char *error,
                                    size_t error_size);

/// Means over one cell of an image (pm_face_cells), in 8-bit levels: what Swift plans the search
/// from (FaceSearchPlan), deciding nothing here.
typedef struct {
    float red;
    float green;
    float blue;
    /// The mean of max(r, g, b) - min(r, g, b) over the cell's pixels: high on vivid graphics,
    /// also where two vivid colours meet and their mean looks like a skin tone.
    float chroma;
    /// The standard deviation of the band the search reads (`band`): about 0 on flat areas.
    float deviation;
} pm_face_cell;

/// Writes the statistics of `image`'s cells of `cell`×`cell` pixels (1-64), row by row, into
/// `cells`: `columns` must be ceil(width / cell) and `rows` ceil(height / cell); the last column
/// and row hold what remains. Each cell is sampled at every second pixel of every fourth row,
/// from its first (an eighth of the pixels: ~0.6 ms for a megapixel). Red, green and blue are bands
/// 0-2 when `bands` >= 3, else all three the band `band` (a grey image has no chroma). Returns 0,
/// or -1 with a message in `error` when the arguments do not fit.
int pm_face_cells(const pm_face_image *image, int cell, pm_face_cell *cells, int columns, int rows, char *error,
                  size_t error_size);

#ifdef __cplusplus
}
#endif

#endif
