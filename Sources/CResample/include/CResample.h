// Which input pixels make one output pixel of a one-dimensional reduction, and their weights.
// Shared by the face search's proxy (a triangle, CFaceDetect) and the still decode's horizontal
// reduce (Lanczos3, CPushMediaShims/vips_reduce.c), so both centre and clip as libvips does:
// output pixel o sits at input (o + 0.5) * in / out - 0.5, the kernel is stretched by in / out,
// taps outside its support or past the image's edge are dropped and the rest renormalised.
#ifndef PUSHMEDIA_RESAMPLE_H
#define PUSHMEDIA_RESAMPLE_H

#ifdef __cplusplus
extern "C" {
#endif

/// The kernels, by their half-width in output pixels.
typedef enum {
    PM_RESAMPLE_TRIANGLE = 1,
    PM_RESAMPLE_LANCZOS3 = 3,
} pm_resample_kernel;

/// The most taps one output pixel can have when `in` pixels become `out` (1 <= out <= in).
int pm_resample_most_taps(pm_resample_kernel kernel, int in, int out);

/// Output pixel `o`'s taps: input pixels `*first` to `*first + count - 1`, with weights summing
/// to 1 written to `weights` (room for pm_resample_most_taps). Returns count (at least 1).
int pm_resample_taps(pm_resample_kernel kernel, int in, int out, int o, int *first, double *weights);

#ifdef __cplusplus
}
#endif

#endif
