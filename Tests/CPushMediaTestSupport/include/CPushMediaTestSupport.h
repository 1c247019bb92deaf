// Entry points for PushMedia's tests only: checks of the C against references (giflib's LZW
// encoder, a scan of every palette entry, dlib's own steps and model) and test images. Only
// test targets depend on this target, so the product does not ship them.
#ifndef PUSHMEDIA_TEST_SUPPORT_H
#define PUSHMEDIA_TEST_SUPPORT_H

#include <stddef.h>
#include <stdint.h>

#include "CFaceDetect.h"

/// libvips' image (vips/vips.h, through the CVips module): declared, not included, so that
/// libvips' declarations reach Swift from CVips alone.
typedef struct _VipsImage VipsImage;

#ifdef __cplusplus
extern "C" {
#endif

// ---- the GIF codec (gif_checks.c) ------------------------------------------------------------

/// For the test of the writer's nearest-colour search: `palettes` palettes (`counts[k]` RGB
/// colours from rgb + k × 768, `see_through[k]` the index never chosen or -1), each in turn; every
/// colour (0x00RRGGBB) of `colours` is mapped under each, and compared with a scan of every entry
/// in index order (the nearest, the lowest index among equals). `vector`: 1 the vector search
/// (AVX2), 0 the search outwards by r + g + b. Returns how many differ; -1 when out of memory, -2
/// when this processor has no AVX2 for the vector search.
int pm_gif_nearest_mismatches(const unsigned char *rgb, const int *counts, const int *see_through, int palettes,
                              const uint32_t *colours, int colour_count, int vector);
/// For the test of the writer's quantiser: how many threads libimagequant's OpenMP regions
/// would use on the calling thread (the writer sets 1 where it quantises); -1 when libgomp is
/// not loaded.
int pm_gif_quantiser_threads(void);
/// Whether PushMedia's LZW encoder (gif_lzw.c) writes for `width` × `height` indices (each
/// below 2^bits, 2…8) exactly the bytes giflib's encoder writes. 0 the same; 2 it gave up at
/// `limit` bytes (within a sub-block past it) having written the same bytes until then; 1 not;
/// -1 failed.
int pm_gif_lzw_matches_giflib(const unsigned char *pixels, int width, int height, int bits, size_t limit);

// ---- the face net's convolution (face_net_compare.cpp) ---------------------------------------

/// For the test of CFaceNet's convolution: random (`seed`) data of `channels` × `rows` ×
/// `columns`, `count` filters of `filter_rows` × `filter_columns` and biases (added when `biased`),
/// convolved by dlib's own CPU code (as its `con_` layer) and by pm_face_net::convolve with the
/// strides and padding given. Returns how many output floats differ in any bit, with the number
/// of outputs in `outputs` (may be NULL); -1 with a message in `error` when dlib refused.
long pm_face_net_convolution_differences(int channels, int rows, int columns, int count, int filter_rows,
                                         int filter_columns, int stride_y, int stride_x, int padding_y,
                                         int padding_x, int biased, unsigned seed, long *outputs, char *error,
                                         size_t error_size);

// ---- test images (noise.c) -------------------------------------------------------------------

/// Seeded RGB noise (sRGB, 8-bit): worst-case content for budgets and timeouts. 0, or -1 with a
/// libvips error.
int pm_noise_rgb(VipsImage **out, int width, int height, double sigma, int seed);

// ---- the face search (face_compare.cpp) ------------------------------------------------------

/// Scores every window of `image`'s band at its own size (dlib's HOG features, no proxy, no
/// blur) with each of the model's filter banks twice, through the build `choice`'s filter step
/// (face_filters.h's, which replaces dlib's for this model) and through dlib's own. Writes the
/// largest difference between the two and the largest score's magnitude, and returns how many
/// scores were compared, or -1 with a message (also when the two score different areas).
long pm_face_filters_compare(pm_face_search_choice choice, const pm_face_image *image, double *largest_difference,
                             double *largest_score, char *error, size_t error_size);
/// The HOG features of `image`'s band at its own size, in cells of `cell_size` pixels, with the
/// scanner's padding and two others, made by the build `choice`'s feature step (face_features.h,
/// which replaces dlib's for the images the search reads) and by dlib's own. Writes the largest
/// difference between the two and the largest feature, and returns how many features were
/// compared, or -1 with a message (also when the two differ in shape).
long pm_face_features_compare(pm_face_search_choice choice, const pm_face_image *image, int cell_size,
                              double *largest_difference, double *largest_feature, char *error, size_t error_size);
/// 1 when the model compiled into CFaceDetect (frontal_face_model.h) is byte for byte the one
/// dlib's header ships, 0 when not (regenerate it with scripts/make-face-model), -1 on error.
/// Slow: it undoes dlib's own compression.
int pm_face_model_is_dlibs(void);

#ifdef __cplusplus
}
#endif

#endif
