// Small copies of some of a GIF's frames (for picking the representative one), straight from
// PushMedia's decoder (gif_read.c): each frame's cut box-averaged by a whole factor, as
// libvips' vips_shrink makes it (vertical averages rounded, then horizontal ones; the
// last block padded with copies of the edge; round(size / factor) pixels a side).
//
// Why: through libvips, each frame asked for was copied out of the decoder whole (RGBA to RGB)
// and shrunk anew. Here a proxy starts as the previous one and only the blocks the frames drawn
// since may change are averaged again: for a GIF whose frames change little, most of a frame
// is never read. The bytes are libvips' (tests compare both).
//
// Memory: the decoder's (the canvas, 4 bytes a pixel), a row of sums, and the proxies (small).
#include "CGIFCodec.h"
#include "gif_decoder.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
    const gif_reader *r;
    VipsRect area;  // the cut, screen coordinates
    int factor, bands, width, height; // proxy size
    unsigned *sums; // a row of vertical sums over the cut's width, per band
    unsigned char *column; // a row of vertical averages
} shrinker;

/// Factor 1: copies pixels [x0, x1] × [y0, y1] of the cut as they are (RGBA, or its RGB).
static void copy_pixels(shrinker *s, unsigned char *proxy, int x0, int x1, int y0, int y1) {
    const int bands = s->bands;
    for (int y = y0; y <= y1; y++) {
        const unsigned char *row = (const unsigned char *)(s->r->canvas + (size_t)(s->area.top + y) * s->r->width + s->area.left);
        unsigned char *out = proxy + ((size_t)y * s->width + x0) * bands;
        if (bands == 4) {
            memcpy(out, row + (size_t)x0 * 4, (size_t)(x1 - x0 + 1) * 4);
        } else {
            for (int x = x0; x <= x1; x++, out += 3) memcpy(out, row + (size_t)x * 4, 3);
        }
    }
}

/// Averages proxy blocks [x0, x1] × [y0, y1] of the canvas into `proxy`.
static void shrink_blocks(shrinker *s, unsigned char *proxy, int x0, int x1, int y0, int y1) {
    const int f = s->factor, bands = s->bands, half = f / 2;
    if (f == 1) {
        copy_pixels(s, proxy, x0, x1, y0, y1);
        return;
    }
    const int left = x0 * f, right = VIPS_MIN((x1 + 1) * f, s->area.width); // cut columns read
    for (int oy = y0; oy <= y1; oy++) {
        memset(s->sums + (size_t)left * bands, 0, (size_t)(right - left) * bands * sizeof *s->sums);
        for (int k = 0; k < f; k++) {
            int y = VIPS_MIN(oy * f + k, s->area.height - 1); // beyond the last row: copies of it
            const unsigned char *row = (const unsigned char *)(s->r->canvas + (size_t)(s->area.top + y) * s->r->width + s->area.left);
            unsigned *sum = s->sums + (size_t)left * bands;
            for (int x = left; x < right; x++, sum += bands)
                for (int b = 0; b < bands; b++) sum[b] += row[(size_t)x * 4 + b];
        }
        for (int i = left * bands; i < right * bands; i++) s->column[i] = (unsigned char)((s->sums[i] + half) / f);
        unsigned char *out = proxy + ((size_t)oy * s->width + x0) * bands;
        for (int ox = x0; ox <= x1; ox++)
            for (int b = 0; b < bands; b++) {
                unsigned sum = 0;
                for (int k = 0; k < f; k++) sum += s->column[(size_t)VIPS_MIN(ox * f + k, s->area.width - 1) * bands + b];
                *out++ = (unsigned char)((sum + half) / f);
            }
    }
}

int pm_gif_proxies(pm_gif_file *file, const pm_gif_cut *cut, int factor, VipsImage **out) {
    *out = NULL;
    gif_reader *r = NULL;
    VipsRect area;
    if (gifd_open_cut(file, cut, &r, &area, "gif_proxies")) return -1;
    // libvips' size: round(size / factor); the caller keeps it at a pixel at least.
    int width = factor < 1 ? 0 : (int)((double)area.width / factor + 0.5);
    int height = factor < 1 ? 0 : (int)((double)area.height / factor + 0.5);
    if (width < 1 || height < 1) {
        vips_error("gif_proxies", "factor %d leaves no pixel of a %dx%d cut", factor, area.width, area.height);
        gifd_close(r);
        return -1;
    }
    shrinker s = {r, area, factor, r->bands, width, height, NULL, NULL};
    size_t proxy_bytes = (size_t)width * height * s.bands;
    unsigned char *proxies = malloc(proxy_bytes * cut->count);
    s.sums = malloc((size_t)area.width * s.bands * sizeof *s.sums);
    s.column = malloc((size_t)area.width * s.bands);
    int status = -1;
    if (!proxies || !s.sums || !s.column) {
        vips_error("gif_proxies", "out of memory");
        goto done;
    }
    for (int k = 0; k < cut->count; k++) {
        VipsRect dirty;
        if (gifd_show_cut(r, cut, &area, k, &dirty, "gif_proxies")) goto done;
        unsigned char *proxy = proxies + proxy_bytes * k;
        if (k > 0) memcpy(proxy, proxy - proxy_bytes, proxy_bytes);
        if (vips_rect_isempty(&dirty)) continue;
        // The blocks holding the dirty pixels (the last also holds copies of the edge).
        int x0 = (dirty.left - area.left) / factor, y0 = (dirty.top - area.top) / factor;
        int x1 = VIPS_MIN((VIPS_RECT_RIGHT(&dirty) - 1 - area.left) / factor, width - 1);
        int y1 = VIPS_MIN((VIPS_RECT_BOTTOM(&dirty) - 1 - area.top) / factor, height - 1);
        if (x0 <= x1 && y0 <= y1) shrink_blocks(&s, proxy, x0, x1, y0, y1);
    }
    VipsImage *image = vips_image_new_from_memory_copy(proxies, proxy_bytes * cut->count, width, height * cut->count, s.bands,
                                                       VIPS_FORMAT_UCHAR);
    if (!image) goto done;
    image->Type = VIPS_INTERPRETATION_sRGB;
    *out = image;
    status = 0;

done:
    free(proxies), free(s.sums), free(s.column);
    gifd_close(r);
    return status;
}
