// libvips for Swift: non-variadic entry points for its variadic operations (optional arguments
// are NULL-terminated varargs, which Swift cannot pass), PushMedia's process-wide set-up of it
// (settings, modules, the loaders it may run), the only ways an image is opened, and an image
// of frames made one at a time. A function returning int returns 0 on success and -1 on
// failure with libvips' message in its error buffer (see pm_vips_error_take); one returning an
// image returns NULL on failure.
#ifndef PUSHMEDIA_VIPS_SHIMS_H
#define PUSHMEDIA_VIPS_SHIMS_H

#include <stddef.h>
#include <vips/vips.h>

#include "CDeadline.h"

// ---- set-up and errors (vips_startup.c) -----------------------------------------------------

/// The process-wide libvips settings PushMedia decides (Vips.Settings in Swift).
typedef struct pm_vips_settings {
    /// Threads libvips may use per operation (vips_concurrency_set); 0 leaves libvips' choice
    /// (VIPS_CONCURRENCY, else one per core).
    int threads_per_operation;
    /// 1: libvips may compile loops at run time with liborc (vips_vector_set_enabled); 0: it
    /// runs its plain C loops.
    int run_time_code;
    /// 1: libvips' warnings go to standard error; 0: they are dropped.
    int warnings;
} pm_vips_settings;

/// vips_init plus PushMedia's process-wide settings (`settings`, no operation cache, every
/// loader but PushMedia's six blocked); safe to call more than once: the first call's settings
/// hold, later calls return its result.
int pm_vips_startup(const char *argv0, const pm_vips_settings *settings);
/// 1 when libvips compiles loops at run time (liborc) in this process, else 0.
int pm_vips_run_time_code(void);
/// Takes the text of vips' error buffer and clears it. Free with g_free. Never NULL.
char *pm_vips_error_take(void);
/// Sets libvips' error (for errors raised while making a frame).
void pm_vips_error(const char *domain, const char *message);
/// Points VIPSHOME at a prefix without modules unless the environment sets it (what
/// pm_vips_startup does first), so that a caller can do it on its main thread, before other
/// threads read the environment.
void pm_vips_set_environment(void);
/// Opens libvips' HEIF module if PushMedia loads it itself and has not yet (once per process,
/// thread-safe); the HEIF loaders call it, so a process that meets no HEIF or AVIF file never
/// maps libheif and its codecs.
void pm_vips_load_heif(void);
/// 1 when the operation (e.g. "svgload_buffer") is blocked, 0 when it may run, -1 when libvips
/// has no such operation.
int pm_vips_operation_blocked(const char *nickname);

// ---- loading (vips_loaders.c) ---------------------------------------------------------------

/// The image formats PushMedia loads, each with its own libvips loader.
typedef enum {
    PM_LOADER_JPEG = 0,
    PM_LOADER_PNG = 1,
    PM_LOADER_GIF = 2,
    PM_LOADER_WEBP = 3,
    PM_LOADER_HEIF = 4, ///< HEIC and AVIF (libheif)
    PM_LOADER_TIFF = 5,
} pm_image_loader;

/// Opens an image with the given loader (never libvips' guess), reading only its header;
/// pixels come on demand, sequentially. fail_on: a VipsFailOn value. n: pages for GIF and WebP
/// (1, or -1 for all; TIFF and HEIF always give their first or primary image). shrink: JPEG's
/// shrink-on-load (1, 2, 4, 8) or WebP's scale (1/shrink, any factor >= 1); other loaders ignore it.
VipsImage *pm_load_source(VipsSource *source, pm_image_loader loader, int fail_on, int n, double shrink);
/// Opens an image held in memory with the given loader (cover art, re-reading outputs).
VipsImage *pm_load_buffer(const void *buf, size_t len, pm_image_loader loader);
/// vips_thumbnail_image on an image opened with pm_load_source: auto-orient, colour-manage to
/// sRGB (colour_manage: through the ICC profile, for tagged or CMYK images), downsize only to fit
/// width x height; every page of a multi-page image is resized (page-height kept in step).
int pm_thumbnail_image(VipsImage *in, VipsImage **out, int width, int height, int colour_manage);

// ---- deadlines (vips_operations.c) ----------------------------------------------------------

/// Makes evaluation of `image` (and of everything computed from it, which signals its progress
/// to it) stop with an error once `deadline` passes (none: nothing is set): libvips' eval
/// signal sets the kill flag.
void pm_image_set_deadline(VipsImage *image, pm_deadline deadline);

// ---- operations (vips_operations.c) ---------------------------------------------------------

int pm_colourspace(VipsImage *in, VipsImage **out, VipsInterpretation space);
int pm_cast(VipsImage *in, VipsImage **out, VipsBandFormat format);
int pm_extract_area(VipsImage *in, VipsImage **out, int left, int top, int width, int height);
int pm_extract_band(VipsImage *in, VipsImage **out, int band, int n);
/// libvips' vertical Lanczos3 reduction to `height` rows (vips_reducev).
int pm_reduce_height(VipsImage *in, VipsImage **out, int height);
/// Turns the image upright by its EXIF orientation and drops the tag (vips_autorot).
int pm_autorot(VipsImage *in, VipsImage **out);
/// Resize by hscale, vscale; `kernel` does the whole reduction down to 1/16 (box pre-shrink below).
int pm_resize(VipsImage *in, VipsImage **out, double hscale, double vscale, VipsKernel kernel);
/// Box shrink by whole factors (vips_shrink): each output pixel the mean of a factor × factor block.
int pm_shrink(VipsImage *in, VipsImage **out, int hshrink, int vshrink);
/// libvips' resize with its defaults (Lanczos3, box pre-shrink with gap 2), the call
/// vips_smartcrop's attention makes its 32x32 map with.
int pm_resize_default(VipsImage *in, VipsImage **out, double hscale, double vscale);
/// Smartcrop returning the crop and the attention centre it used.
int pm_smartcrop(VipsImage *in, VipsImage **out, int width, int height,
                 VipsInteresting interesting, int *attention_x, int *attention_y);
int pm_min(VipsImage *in, double *out);
int pm_deviate(VipsImage *in, double *out);
/// A new header around the same pixels, so metadata can be set without touching the input.
int pm_copy(VipsImage *in, VipsImage **out);
/// Rotates by a multiple of 90° clockwise.
int pm_rot(VipsImage *in, VipsImage **out, VipsAngle angle);
/// Reads one pixel; values is caller-allocated with room for max_bands doubles.
int pm_getpoint(VipsImage *in, int x, int y, double *values, int max_bands, int *n);

// ---- frames made when read (vips_frames.c) --------------------------------------------------

/// Makes frame `index` of an animation: a new reference, or NULL with a libvips error set.
typedef VipsImage *(*pm_frame_maker)(int index, void *context);
/// `count` frames of one size stacked top to bottom, each made by `make` when its rows are first
/// read and released when reading moves on, so memory holds one frame's pipeline per thread,
/// whatever the count. Frame 0 is made at once. `release(context)` runs when the image is freed
/// (or at once on failure).
int pm_join_frames(int count, pm_frame_maker make, void *context, void (*release)(void *context), VipsImage **out);

// ---- savers (vips_savers.c); metadata is always stripped ------------------------------------

int pm_jpegsave_buffer(VipsImage *in, void **buf, size_t *len, int quality, int optimize_coding, int interlace);
/// True-colour PNG.
int pm_pngsave_buffer(VipsImage *in, void **buf, size_t *len, int compression);
/// PNG quantised by libimagequant to 2^bitdepth colours, with its quality (0…100) and effort
/// (1…10).
int pm_pngsave_palette_buffer(VipsImage *in, void **buf, size_t *len, int compression, int bitdepth, int quality,
                              int effort);
/// libvips' own GIF saver (cgif), which dithers: an animation (frames stacked vertically,
/// page-height, delay and loop set on the image), read a frame at a time.
int pm_gifsave_buffer(VipsImage *in, void **buf, size_t *len, int bitdepth, int effort, double dither,
                      double interframe_maxerror, int reuse, double interpalette_maxerror);

#endif
