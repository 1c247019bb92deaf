#define _GNU_SOURCE // dladdr
#include "PushMediaShims.h"

#include <math.h>
#include <dlfcn.h>
#include <gmodule.h>
#include <stdlib.h>
#include <string.h>

static GOnce startup_once = G_ONCE_INIT;
static int startup_result = 0;

static void drop_vips_warning(const gchar *domain, GLogLevelFlags level, const gchar *message,
                              gpointer data) {
    // Decoder warnings (e.g. "premature end of JPEG") go to stderr by default. PushMedia turns
    // the ones that matter into errors with fail_on; the rest are noise in batch output.
    (void)domain; (void)level; (void)message; (void)data;
}

// When it starts, libvips loads every module in its vips-modules-X.Y folder: ImageMagick, poppler
// (PDF), OpenSlide, JPEG XL and HEIF, with 19 libraries nothing else loads (libjxl itself comes
// with FFmpeg), though PushMedia's allow-list blocks every loader in them but HEIF's. So libvips
// is given a prefix with no modules (VIPSHOME, which libvips itself would otherwise set to its
// guess), and the HEIF module alone is opened from libvips' own folder, when the first HEIF or
// AVIF image is loaded (pm_vips_load_heif): with libheif's codecs it is ~31 M instructions
// (callgrind) a process would otherwise pay at its first image of any kind. About 20 ms of CPU
// per process for the other modules (docs/benchmarks/start-up.md). An environment that sets
// VIPSHOME to anything else keeps libvips' own module loading.
static const char *const pm_prefix_without_modules = "/nonexistent/pushmedia-loads-the-heif-module-itself";

// Like libvips' own module loading, a HEIF module that cannot be opened only costs HEIF: it is
// said once on standard error, and HEIF files then fail to load with libvips' message.
static void load_heif_module(void) {
    if (g_type_from_name("VipsForeignLoadHeif")) return;
    Dl_info library;
    char *resolved = NULL;
    if (dladdr((void *)vips_init, &library) && library.dli_fname) resolved = realpath(library.dli_fname, NULL);
    if (!resolved) {
        g_printerr("pushmedia: cannot find libvips' folder: HEIF images will not load\n");
        return;
    }
    char *folder = g_path_get_dirname(resolved);
    free(resolved);
    char *path = g_strdup_printf("%s/vips-modules-%d.%d/vips-heif.so", folder, vips_version(0), vips_version(1));
    g_free(folder);
    // Its g_module_check_init registers the HEIF loaders and makes the module resident.
    if (!g_module_open(path, G_MODULE_BIND_LAZY)) {
        g_printerr("pushmedia: cannot load libvips' HEIF module (%s): HEIF images will not load\n", g_module_error());
    }
    g_free(path);
}

static gboolean heif_module_is_ours = FALSE;
static GOnce heif_once = G_ONCE_INIT;

static gpointer do_load_heif(gpointer unused) {
    (void)unused;
    load_heif_module();
    // Its loaders did not exist when pm_vips_block_loaders ran; libvips registers them unblocked.
    // Say so anyway, for HEIF's family only (the allow-list names it), so that no other loader's
    // flag is written while other threads load images.
    vips_operation_block_set("VipsForeignLoadHeif", FALSE);
    return NULL;
}

void pm_vips_set_environment(void) {
    if (g_getenv("VIPSHOME") == NULL) g_setenv("VIPSHOME", pm_prefix_without_modules, FALSE);
}

void pm_vips_load_heif(void) {
    if (heif_module_is_ours) g_once(&heif_once, do_load_heif, NULL);
}

static gpointer do_startup(gpointer argv0) {
    // A PushMedia process started by this one inherits the prefix and opens the HEIF module
    // itself too. (Any other libvips program would inherit it as well and load no module at all:
    // PushMedia starts none.)
    const char *home = g_getenv("VIPSHOME");
    gboolean own_modules = home == NULL || strcmp(home, pm_prefix_without_modules) == 0;
    pm_vips_set_environment();
    if (VIPS_INIT((const char *)argv0) != 0) {
        startup_result = -1;
        return NULL;
    }
    heif_module_is_ours = own_modules;
    // Each item opens different files: the operation cache would only keep their pixels alive.
    vips_cache_set_max(0);
    vips_cache_set_max_mem(0);
    // PushMedia runs items in parallel (--jobs, one per core by default), so libvips' own
    // threads would only oversubscribe the cores; and every libvips thread keeps buffers for
    // each operation of an animation's per-frame pipeline. One thread per operation: a
    // 1200x1200x200 GIF peaks at 215 MB instead of 280 MB, no slower, and still batches take the
    // same time (BENCHMARKS.md). VIPS_CONCURRENCY, when set, still decides.
    if (getenv("VIPS_CONCURRENCY") == NULL) vips_concurrency_set(1);
    pm_vips_block_loaders();
    if (getenv("PUSHMEDIA_VIPS_WARNINGS") == NULL) {
        g_log_set_handler("VIPS", G_LOG_LEVEL_WARNING, drop_vips_warning, NULL);
    }
    return NULL;
}

int pm_vips_startup(const char *argv0) {
    g_once(&startup_once, do_startup, (gpointer)argv0);
    return startup_result;
}

char *pm_vips_error_take(void) {
    char *text = vips_error_buffer_copy();
    return text ? text : g_strdup("");
}

typedef struct {
    gint64 deadline_us;
} PmDeadline;

static void pm_on_eval(VipsImage *image, VipsProgress *progress, gpointer data) {
    (void)progress;
    PmDeadline *deadline = (PmDeadline *)data;
    if (g_get_monotonic_time() > deadline->deadline_us) vips_image_set_kill(image, TRUE);
}

void pm_image_set_deadline(VipsImage *image, gint64 deadline_us) {
    PmDeadline *deadline = g_new(PmDeadline, 1);
    deadline->deadline_us = deadline_us;
    // Freed with the image.
    g_object_set_data_full(G_OBJECT(image), "pushmedia-deadline", deadline, g_free);
    vips_image_set_progress(image, TRUE);
    g_signal_connect(image, "eval", G_CALLBACK(pm_on_eval), deadline);
}


int pm_colourspace(VipsImage *in, VipsImage **out, VipsInterpretation space) {
    return vips_colourspace(in, out, space, NULL);
}

int pm_cast(VipsImage *in, VipsImage **out, VipsBandFormat format) {
    return vips_cast(in, out, format, NULL);
}

int pm_extract_area(VipsImage *in, VipsImage **out, int left, int top, int width, int height) {
    return vips_extract_area(in, out, left, top, width, height, NULL);
}

int pm_reduce_height(VipsImage *in, VipsImage **out, int height) {
    if (height < 1 || height > in->Ysize) {
        vips_error("reduce_height", "a height from 1 to %d expected", in->Ysize);
        return -1;
    }
    return vips_reducev(in, out, (double)in->Ysize / height, "kernel", VIPS_KERNEL_LANCZOS3, NULL);
}

int pm_autorot(VipsImage *in, VipsImage **out) { return vips_autorot(in, out, NULL); }

int pm_extract_band(VipsImage *in, VipsImage **out, int band, int n) {
    return vips_extract_band(in, out, band, "n", n, NULL);
}

int pm_resize(VipsImage *in, VipsImage **out, double hscale, double vscale, VipsKernel kernel) {
    // libvips 8.14's default (gap 2) box-shrinks by an integer factor first whenever the scale
    // is 1/4 or less, then reduces the rest; on decoded images that took 2-10 times the CPU of
    // letting the kernel do the whole reduction (gap 0) at scales from 1/4 to 1/10. Below 1/16
    // the kernel grows so wide that the box shrink wins again (docs/benchmarks/faces.md).
    double gap = fmin(hscale, vscale) < 1.0 / 16 ? 2.0 : 0.0;
    return vips_resize(in, out, hscale, "vscale", vscale, "kernel", kernel, "gap", gap, NULL);
}

int pm_shrink(VipsImage *in, VipsImage **out, int hshrink, int vshrink) {
    return vips_shrink(in, out, (double)hshrink, (double)vshrink, NULL);
}

int pm_resize_default(VipsImage *in, VipsImage **out, double hscale, double vscale) {
    return vips_resize(in, out, hscale, "vscale", vscale, NULL);
}

int pm_smartcrop(VipsImage *in, VipsImage **out, int width, int height,
                 VipsInteresting interesting, int *attention_x, int *attention_y) {
    return vips_smartcrop(in, out, width, height, "interesting", interesting,
                          "attention_x", attention_x, "attention_y", attention_y, NULL);
}

int pm_min(VipsImage *in, double *out) { return vips_min(in, out, NULL); }

int pm_deviate(VipsImage *in, double *out) { return vips_deviate(in, out, NULL); }

int pm_copy(VipsImage *in, VipsImage **out) { return vips_copy(in, out, NULL); }

int pm_gifsave_buffer(VipsImage *in, void **buf, size_t *len, const pm_gif_settings *s) {
    return vips_gifsave_buffer(in, buf, len, "bitdepth", s->bitdepth, "effort", s->effort,
                               "dither", s->dither, "interframe_maxerror", s->interframe_maxerror,
                               "reuse", s->reuse ? TRUE : FALSE,
                               "interpalette_maxerror", s->interpalette_maxerror,
                               "strip", TRUE, NULL);
}

int pm_getpoint(VipsImage *in, int x, int y, double *values, int max_bands, int *n) {
    double *vector = NULL;
    int count = 0;
    if (vips_getpoint(in, &vector, &count, x, y, NULL) != 0) return -1;
    int copy = count < max_bands ? count : max_bands;
    memcpy(values, vector, sizeof(double) * (size_t)copy);
    *n = copy;
    g_free(vector);
    return 0;
}

int pm_jpegsave_buffer(VipsImage *in, void **buf, size_t *len, int quality,
                       int optimize_coding, int interlace) {
    return vips_jpegsave_buffer(in, buf, len, "Q", quality, "optimize_coding", optimize_coding,
                                "interlace", interlace, "strip", TRUE, NULL);
}

int pm_pngsave_buffer(VipsImage *in, void **buf, size_t *len, int compression,
                      int palette, int bitdepth) {
    if (palette) {
        return vips_pngsave_buffer(in, buf, len, "compression", compression, "palette", TRUE,
                                   "bitdepth", bitdepth, "Q", 100, "effort", 7, "strip", TRUE,
                                   NULL);
    }
    return vips_pngsave_buffer(in, buf, len, "compression", compression, "strip", TRUE, NULL);
}

int pm_noise_rgb(VipsImage **out, int width, int height, double sigma, int seed) {
    VipsImage *bands[3] = {NULL, NULL, NULL};
    VipsImage *joined = NULL, *cast = NULL;
    int result = -1;
    for (int i = 0; i < 3; i++) {
        if (vips_gaussnoise(&bands[i], width, height, "mean", 128.0, "sigma", sigma,
                            "seed", seed * 3 + i, NULL) != 0)
            goto done;
    }
    if (vips_bandjoin(bands, &joined, 3, NULL) != 0) goto done;
    if (vips_cast(joined, &cast, VIPS_FORMAT_UCHAR, NULL) != 0) goto done;
    if (vips_copy(cast, out, "interpretation", VIPS_INTERPRETATION_sRGB, NULL) != 0) goto done;
    result = 0;
done:
    for (int i = 0; i < 3; i++) if (bands[i]) g_object_unref(bands[i]);
    if (joined) g_object_unref(joined);
    if (cast) g_object_unref(cast);
    return result;
}

int pm_rot(VipsImage *in, VipsImage **out, VipsAngle angle) { return vips_rot(in, out, angle, NULL); }
