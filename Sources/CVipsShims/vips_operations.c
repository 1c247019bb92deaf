// libvips' operations with their optional arguments set, for Swift (which cannot call variadic
// functions), and the deadline an evaluation stops at.
#include "CVipsShims.h"

#include <math.h>
#include <string.h>

static void pm_on_eval(VipsImage *image, VipsProgress *progress, gpointer data) {
    (void)progress;
    if (pm_deadline_passed(*(const pm_deadline *)data)) vips_image_set_kill(image, TRUE);
}

void pm_image_set_deadline(VipsImage *image, pm_deadline deadline) {
    if (deadline.monotonic_ns == 0) return;
    pm_deadline *kept = g_new(pm_deadline, 1);
    *kept = deadline;
    // Freed with the image.
    g_object_set_data_full(G_OBJECT(image), "pushmedia-deadline", kept, g_free);
    vips_image_set_progress(image, TRUE);
    g_signal_connect(image, "eval", G_CALLBACK(pm_on_eval), kept);
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
    // libvips' default (gap 2) box-shrinks by an integer factor first whenever the scale
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

int pm_rot(VipsImage *in, VipsImage **out, VipsAngle angle) { return vips_rot(in, out, angle, NULL); }
