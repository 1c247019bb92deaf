// Test images made by libvips (CPushMediaTestSupport.h).
#include "CPushMediaTestSupport.h"

#include <vips/vips.h>

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
