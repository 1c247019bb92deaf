// The only ways PushMedia opens an image: the loader for the format it sniffed from the bytes
// (never libvips' own guess, vips_foreign_find_load; every other loader is blocked at start-up,
// vips_startup.c), and the thumbnail of what a loader opened.
#include "CVipsShims.h"

VipsImage *pm_load_source(VipsSource *source, pm_image_loader loader, int fail_on, int n, double shrink) {
    VipsImage *out = NULL;
    VipsFailOn fail = (VipsFailOn)fail_on;
    VipsAccess access = VIPS_ACCESS_SEQUENTIAL;
    double factor = shrink > 1 ? shrink : 1;
    int result = -1;
    switch (loader) {
    case PM_LOADER_JPEG:
        result = vips_jpegload_source(source, &out, "access", access, "fail_on", fail, "shrink", (int)factor, NULL);
        break;
    case PM_LOADER_PNG:
        result = vips_pngload_source(source, &out, "access", access, "fail_on", fail, NULL);
        break;
    case PM_LOADER_GIF:
        result = vips_gifload_source(source, &out, "access", access, "fail_on", fail, "n", n, NULL);
        break;
    case PM_LOADER_WEBP:
        result = vips_webpload_source(source, &out, "access", access, "fail_on", fail, "n", n, "scale", 1.0 / factor,
                                      NULL);
        break;
    case PM_LOADER_HEIF:
        pm_vips_load_heif();
        // The primary image only (also for AVIF).
        result = vips_heifload_source(source, &out, "access", access, "fail_on", fail, NULL);
        break;
    case PM_LOADER_TIFF:
        // The first page only, whatever the document holds.
        result = vips_tiffload_source(source, &out, "access", access, "fail_on", fail, "page", 0, "n", 1, NULL);
        break;
    default:
        vips_error("pushmedia", "no loader for image format %d", (int)loader);
    }
    return result == 0 ? out : NULL;
}

VipsImage *pm_load_buffer(const void *buf, size_t len, pm_image_loader loader) {
    VipsImage *out = NULL;
    void *data = (void *)buf;
    VipsAccess access = VIPS_ACCESS_RANDOM;
    int result = -1;
    switch (loader) {
    case PM_LOADER_JPEG: result = vips_jpegload_buffer(data, len, &out, "access", access, NULL); break;
    case PM_LOADER_PNG: result = vips_pngload_buffer(data, len, &out, "access", access, NULL); break;
    case PM_LOADER_GIF: result = vips_gifload_buffer(data, len, &out, "access", access, NULL); break;
    case PM_LOADER_WEBP: result = vips_webpload_buffer(data, len, &out, "access", access, NULL); break;
    case PM_LOADER_HEIF:
        pm_vips_load_heif();
        result = vips_heifload_buffer(data, len, &out, "access", access, NULL);
        break;
    case PM_LOADER_TIFF: result = vips_tiffload_buffer(data, len, &out, "access", access, NULL); break;
    default: vips_error("pushmedia", "no loader for image format %d", (int)loader);
    }
    return result == 0 ? out : NULL;
}

int pm_thumbnail_image(VipsImage *in, VipsImage **out, int width, int height, int colour_manage) {
    // An ICC transform only where there is a profile to honour (or CMYK to convert): for the
    // usual untagged sRGB photo it would cost lcms time for nothing.
    if (colour_manage) {
        return vips_thumbnail_image(in, out, width, "height", height, "size", VIPS_SIZE_DOWN, "export_profile", "srgb",
                                    NULL);
    }
    return vips_thumbnail_image(in, out, width, "height", height, "size", VIPS_SIZE_DOWN, NULL);
}
