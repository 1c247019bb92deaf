// Colour tables for the GIF re-packing pass (gif_repack.c): the global table's new order, a
// frame's table cut down to the colours it uses, and colour → index lookups.
#include "gif_repack.h"

#include <stdlib.h>
#include <string.h>

GIF_HIDDEN int gifr_bits_for(int count) {
    int bits = 1;
    while ((1 << bits) < count) bits++;
    return bits;
}

/// The candidate with the same pixels under a local table holding only the colours they use,
/// when that table is smaller than the frame's own. Returns false when it would not be.
GIF_HIDDEN bool gifr_shrink_table(const gifr_frame *f, const candidate *from, candidate *into, GifPixelType *pixels) {
    bool used[256] = {false};
    size_t n = (size_t)from->width * (size_t)from->height;
    int count = 0;
    for (size_t i = 0; i < n; i++) {
        if (!used[from->pixels[i]]) {
            used[from->pixels[i]] = true;
            count++;
        }
    }
    int largest = 0;
    for (int i = 0; i < 256; i++)
        if (used[i]) largest = i;
    int bits = gifr_bits_for(count < 2 ? 2 : count);
    if ((bits < 2 ? 2 : bits) >= (gifr_bits_for(largest + 1) < 2 ? 2 : gifr_bits_for(largest + 1))) return false;
    GifColorType colours[256];
    GifPixelType map[256];
    int next = 0;
    for (int i = 0; i < 256; i++) {
        if (!used[i]) continue;
        map[i] = (GifPixelType)next;
        colours[next++] = f->colours->Colors[i < f->colours->ColorCount ? i : 0];
    }
    for (; next < (1 << bits); next++) colours[next] = (GifColorType){0, 0, 0};
    into->local = GifMakeMapObject(1 << bits, colours);
    if (!into->local) return false;
    for (size_t i = 0; i < n; i++) pixels[i] = map[from->pixels[i]];
    into->pixels = pixels;
    into->left = from->left;
    into->top = from->top;
    into->width = from->width;
    into->height = from->height;
    into->transparent = from->transparent >= 0 && used[from->transparent] ? map[from->transparent] : -1;
    return true;
}

GIF_HIDDEN void gifr_colour_index_build(gif_colour_index *lookup, const ColorMapObject *map, int reserved) {
    memset(lookup->indices, 0xff, sizeof lookup->indices);
    for (int i = 0; i < map->ColorCount; i++) {
        if (i == reserved) continue;
        uint32_t colour = gifr_opaque(map, (GifPixelType)i);
        size_t slot = gif_colour_slot(colour);
        while (lookup->indices[slot] >= 0 && lookup->colours[slot] != colour) slot = (slot + 1) & 1023;
        if (lookup->indices[slot] >= 0) continue; // a colour listed twice keeps its first index
        lookup->colours[slot] = colour;
        lookup->indices[slot] = (int16_t)i;
    }
}

/// Counts the global-table colours of every frame after the first (transparent pixels aside).
static int count_global_colours(void *context, gifr_frame *frame) {
    size_t *count = context;
    if (frame->index == 0 || frame->local) return 0;
    size_t n = (size_t)frame->width * (size_t)frame->height;
    int t = frame->has_control ? frame->control.TransparentColor : -1;
    for (size_t i = 0; i < n; i++)
        if (frame->pixels[i] != t) count[frame->pixels[i]]++;
    return 0;
}

/// A new order for the global table: the colours the frames after the first draw most come
/// first, so those frames' indices are small and their LZW codes can start narrower.
/// order[old index] = new index. 0; 1 or -1 as gifr_read_frames (the first reading pass).
GIF_HIDDEN int gifr_global_order(const unsigned char *gif, size_t length, GifPixelType *pixels,
                                  GifPixelType order[256]) {
    for (int i = 0; i < 256; i++) order[i] = (GifPixelType)i;
    gif_input input = {gif, length, 0};
    int error = 0;
    GifFileType *in = DGifOpen(&input, gifr_read_input, &error);
    if (!in) return -1;
    size_t count[256] = {0};
    int status = gifr_read_frames(in, pixels, NULL, count_global_colours, count);
    DGifCloseFile(in, &error);
    if (status != 0) return status;
    int by_use[256];
    for (int i = 0; i < 256; i++) by_use[i] = i;
    for (int i = 1; i < 256; i++) { // stable: equal counts keep their order
        int k = by_use[i], j = i - 1;
        while (j >= 0 && count[by_use[j]] < count[k]) {
            by_use[j + 1] = by_use[j];
            j--;
        }
        by_use[j + 1] = k;
    }
    for (int i = 0; i < 256; i++) order[by_use[i]] = (GifPixelType)i;
    return 0;
}

