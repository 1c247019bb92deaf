// The GIF writer's and LZW coder's test entry points (CPushMediaTestSupport.h): they reach into
// the codec's private headers, which only CGIFCodec and this target include.
#include "CPushMediaTestSupport.h"

#include "../../Sources/CGIFCodec/gif_writer.h"

#include <dlfcn.h>
#include <gif_lib.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

int pm_gif_nearest_mismatches(const unsigned char *rgb, const int *counts, const int *see_through, int palettes,
                               const uint32_t *colours, int colour_count, int vector) {
    if (vector && !gifw_vector_search_available()) return -2;
    gif_writer w = {.vector_search = vector != 0};
    w.memo_colour = g_try_malloc(MEMO_SIZE * sizeof(uint32_t));
    w.memo_index = g_try_malloc(MEMO_SIZE);
    int mismatches = 0;
    for (int k = 0; k < palettes && w.memo_colour && w.memo_index; k++) {
        gifw_palette p = {.count = counts[k] < 0 ? 0 : counts[k] > 255 ? 255 : counts[k], .see_through = see_through[k], .generation = ++w.generations};
        memcpy(p.rgb, rgb + (size_t)k * 256 * 3, (size_t)p.count * 3);
        for (int c = 0; c < colour_count; c++) {
            int r = (int)(colours[c] >> 16 & 0xff), g = (int)(colours[c] >> 8 & 0xff), b = (int)(colours[c] & 0xff);
            int best = INT_MAX, expected = 0;
            for (int i = 0; i < p.count; i++) { // every entry in index order
                if (i == p.see_through) continue;
                int dr = r - p.rgb[i][0], dg = g - p.rgb[i][1], db = b - p.rgb[i][2];
                int d = dr * dr + dg * dg + db * db;
                if (d < best) best = d, expected = i;
            }
            if (gifw_nearest(&w, &p, colours[c] & 0xffffff) != expected) mismatches++;
        }
    }
    bool ok = w.memo_colour && w.memo_index;
    g_free(w.memo_colour), g_free(w.memo_index);
    return ok ? mismatches : -1;
}

int pm_gif_quantiser_threads(void) {
    int (*get)(void);
    *(void **)&get = dlsym(RTLD_DEFAULT, "omp_get_max_threads");
    return get ? get() : -1;
}

/// giflib's write function into a gif_buffer.
static int giflib_write(GifFileType *gif, const GifByteType *bytes, int count) {
    return gif_buffer_append(gif->UserData, bytes, (size_t)count) ? count : 0;
}

/// giflib's own encoding of the same pixels (a screen of their size, a table of 2^bits
/// colours), for the test that gif_lzw_write's bytes are giflib's, and that it gives up at
/// `limit` bytes.
int pm_gif_lzw_matches_giflib(const unsigned char *pixels, int width, int height, int bits, size_t limit) {
    if (width < 1 || height < 1 || bits < 2 || bits > 8) return -1;
    gif_buffer theirs = {0}, ours = {0};
    GifColorType colours[256] = {{0, 0, 0}};
    ColorMapObject *map = GifMakeMapObject(1 << bits, colours);
    int error = 0, status = -1;
    GifFileType *gif = map ? EGifOpen(&theirs, giflib_write, &error) : NULL;
    if (gif && EGifPutScreenDesc(gif, width, height, 8, 0, map) == GIF_OK) {
        size_t start = theirs.length + 10; // the image descriptor giflib writes first
        bool ok = EGifPutImageDesc(gif, 0, 0, width, height, false, NULL) == GIF_OK
            && EGifPutLine(gif, (GifPixelType *)pixels, width * height) == GIF_OK && !theirs.failed;
        gif_lzw_table *table = calloc(1, sizeof *table);
        int written = ok && table ? gif_lzw_write(table, &ours, bits, pixels, width, height, (size_t)width, limit) : -1;
        size_t full = theirs.length - start;
        bool prefix = ours.length <= full && memcmp(theirs.bytes + start, ours.bytes, ours.length) == 0;
        if (written == 0 && !ours.failed) status = full == ours.length && prefix && ours.length < limit ? 0 : 1;
        else if (written == 1 && !ours.failed) status = prefix && ours.length >= limit && ours.length < limit + 256 ? 2 : 1;
        free(table);
    }
    if (gif) EGifCloseFile(gif, &error);
    if (map) GifFreeMapObject(map);
    free(theirs.bytes);
    free(ours.bytes);
    return status;
}
