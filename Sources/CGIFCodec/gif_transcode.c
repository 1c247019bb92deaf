// A GIF cut and written again with nothing in between: PushMedia's decoder (gif_read.c) draws
// each frame wanted on its canvas and the writer (gif_write.c) takes the cut's pixels from it.
//
// Why: through libvips, every frame of the cut is copied out of the decoder as RGB, passed
// between threads a strip at a time, widened to RGBA and compared pixel by pixel with what was
// written before, also where nothing moved. Here only the rectangle the frames drawn since the
// last one written may have changed (their own rectangles, and those their disposal restores)
// is copied and compared. The writer's rules make that exact: a pixel outside it, and outside
// the rectangle of the last frame's changes, is one the writer would find unchanged. The bytes
// are pm_gif_write's for pm_gif_load's image cut the same way (tests compare both).
//
// Memory: the decoder's (the canvas, 4 bytes a pixel, and a frame's indices) and the writer's
// (18 bytes a pixel of the cut); never frames × pixels.
#include "CGIFCodec.h"
#include "gif_decoder.h"
#include "gif_writer.h"

#include <string.h>

_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "an RGBA word's alpha is its top byte");

/// Copies `rect` (screen coordinates, inside the cut `area`) of the canvas into the writer's frame.
static void take_rect(gif_writer *w, const gif_reader *r, const VipsRect *area, const VipsRect *rect) {
    for (int y = rect->top; y < VIPS_RECT_BOTTOM(rect); y++) {
        const uint32_t *from = r->canvas + (size_t)y * (size_t)r->width + (size_t)rect->left;
        unsigned char *to = w->frame + ((size_t)(y - area->top) * (size_t)area->width + (size_t)(rect->left - area->left)) * 4;
        if (r->bands == 4) {
            memcpy(to, from, (size_t)rect->width * 4);
            gifw_take_pixels(w, to, (size_t)rect->width);
        } else { // the decoder's three bands: opaque, as the writer reads rows of three bands
            for (int x = 0; x < rect->width; x++) {
                uint32_t pixel = from[x] | 0xff000000u;
                memcpy(to + (size_t)x * 4, &pixel, 4);
            }
        }
    }
}

int pm_gif_transcode(pm_gif_file *file, const pm_gif_cut *cut, const pm_gif_settings *settings, unsigned char **gif,
                     size_t *length) {
    *gif = NULL, *length = 0;
    gif_reader *r = NULL;
    VipsRect area;
    if (gifd_open_cut(file, cut, &r, &area, "gif_write")) return -1;
    gif_writer w;
    int status = -1;
    if (gifw_begin(&w, settings, area.width, area.height, cut->count, r->bands)) goto done;
    w.delays = cut->delays, w.delay_count = cut->count, w.loop = cut->loop;
    for (int k = 0; k < cut->count; k++) {
        VipsRect dirty;
        if (gifd_show_cut(r, cut, &area, k, &dirty, "gif_write")) goto done;
        take_rect(&w, r, &area, &dirty);
        dirty.left -= area.left, dirty.top -= area.top;
        int written = gifw_write_frame(&w, &dirty);
        if (written == 2) {
            *length = gifw_given_up_length(&w);
            status = 2;
            goto done;
        }
        if (written) goto done;
    }
    if (gifw_finish(&w, gif, length)) goto done;
    status = 0;

done:
    gifw_end(&w);
    gifd_close(r);
    return status;
}
