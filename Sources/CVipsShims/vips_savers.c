// libvips' savers with PushMedia's settings (the caller's values; metadata always stripped).
#include "CVipsShims.h"

int pm_gifsave_buffer(VipsImage *in, void **buf, size_t *len, int bitdepth, int effort, double dither,
                      double interframe_maxerror, int reuse, double interpalette_maxerror) {
    return vips_gifsave_buffer(in, buf, len, "bitdepth", bitdepth, "effort", effort, "dither", dither,
                               "interframe_maxerror", interframe_maxerror, "reuse", reuse ? TRUE : FALSE,
                               "interpalette_maxerror", interpalette_maxerror, "strip", TRUE, NULL);
}

int pm_jpegsave_buffer(VipsImage *in, void **buf, size_t *len, int quality,
                       int optimize_coding, int interlace) {
    return vips_jpegsave_buffer(in, buf, len, "Q", quality, "optimize_coding", optimize_coding,
                                "interlace", interlace, "strip", TRUE, NULL);
}

int pm_pngsave_buffer(VipsImage *in, void **buf, size_t *len, int compression) {
    return vips_pngsave_buffer(in, buf, len, "compression", compression, "strip", TRUE, NULL);
}

int pm_pngsave_palette_buffer(VipsImage *in, void **buf, size_t *len, int compression, int bitdepth, int quality,
                              int effort) {
    return vips_pngsave_buffer(in, buf, len, "compression", compression, "palette", TRUE, "bitdepth", bitdepth, "Q",
                               quality, "effort", effort, "strip", TRUE, NULL);
}
