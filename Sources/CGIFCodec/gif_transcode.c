// A GIF cut and written again with nothing in between: PushMedia's decoder (gif_read.c) draws
// each frame wanted on its canvas and the writer (gif_write.c) takes the cut's pixels from it,
// reduced on the way when the cut has an output size (CReduce's pm_reduce_plan).
//
// Why: through libvips, every frame of the cut is copied out of the decoder as RGB, passed
// between threads a strip at a time, widened to RGBA and compared pixel by pixel with what was
// written before, also where nothing moved; a reduction premultiplied alpha into floats and
// reduced every pixel of every frame. Here only the rectangle the frames drawn since the last
// one written may have changed (their own rectangles, and those their disposal restores) is
// copied, or reduced again where it reaches, and compared. The writer's rules make that exact:
// a pixel outside it, and outside the rectangle of the last frame's changes, is one the writer
// would find unchanged. Unreduced, the bytes are pm_gif_write's for pm_gif_load's image cut the
// same way (tests compare both).
//
// Alpha: the decoder's see-through pixels are 0 in every band and the others opaque, so the
// canvas is its own premultiplied image; a reduced pixel is divided back by its alpha, and a
// see-through neighbour lends it no colour (no dark fringe round a sticker).
//
// Memory: the decoder's (the canvas, 4 bytes a pixel, and a frame's indices) and the writer's
// (18 bytes a pixel of the output); never frames × pixels (but pm_gif_reduced's result).
#include "CGIFCodec.h"
#include "gif_decoder.h"
#include "gif_writer.h"

#include "CReduce.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
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

/// How a cut's frames reach their output: as they are, or reduced (`plan`).
typedef struct {
    pm_reduce_plan *plan; // NULL: the cut's own size
    int width, height;    // the output's size
    int bands;
} cut_output;

static int output_open(const pm_gif_cut *cut, const VipsRect *area, int bands, cut_output *o, const char *domain) {
    *o = (cut_output){NULL, area->width, area->height, bands};
    if ((cut->out_width == 0 && cut->out_height == 0) || (cut->out_width == area->width && cut->out_height == area->height))
        return 0;
    if (!pm_reduce_plan_fits(area->width, area->height, cut->out_width, cut->out_height)) {
        vips_error(domain, "a %dx%d cut cannot be reduced to %dx%d (at most %d times smaller a side, none larger)",
                   area->width, area->height, cut->out_width, cut->out_height, PM_REDUCE_MOST);
        return -1;
    }
    o->plan = pm_reduce_plan_new(area->width, area->height, cut->out_width, cut->out_height, 1);
    if (!o->plan) {
        vips_error(domain, "out of memory");
        return -1;
    }
    o->width = cut->out_width, o->height = cut->out_height;
    return 0;
}

/// Reduces the output pixels that `dirty` (screen coordinates, inside `area`) reaches into
/// `frame` (RGBA, the output's size), alpha divided back out; *reached: those pixels.
static void output_reduce(const cut_output *o, const gif_reader *r, const VipsRect *area, const VipsRect *dirty,
                          unsigned char *frame, VipsRect *reached) {
    int left, top, width, height;
    pm_reduce_plan_reach(o->plan, dirty->left - area->left, dirty->top - area->top, dirty->width, dirty->height, &left,
                         &top, &width, &height);
    *reached = (VipsRect){left, top, width, height};
    if (vips_rect_isempty(reached)) return;
    const uint32_t *in = r->canvas + (size_t)area->top * (size_t)r->width + (size_t)area->left;
    pm_reduce_plan_rect(o->plan, in, (size_t)r->width, (uint32_t *)(void *)frame, (size_t)o->width, left, top, width,
                        height);
    for (int y = top; y < top + height; y++) {
        unsigned char *p = frame + ((size_t)y * (size_t)o->width + (size_t)left) * 4;
        for (int x = 0; x < width; x++, p += 4) {
            const int a = o->bands == 4 ? p[3] : 255;
            if (a == 255) {
                p[3] = 255;
            } else if (a == 0) {
                p[0] = p[1] = p[2] = 0;
            } else {
                for (int b = 0; b < 3; b++) {
                    const int c = (p[b] * 255 + a / 2) / a;
                    p[b] = (unsigned char)(c > 255 ? 255 : c);
                }
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
    cut_output o;
    if (output_open(cut, &area, r->bands, &o, "gif_write")) {
        gifd_close(r);
        return -1;
    }
    gif_writer w;
    int status = -1;
    if (gifw_begin(&w, settings, o.width, o.height, cut->count, r->bands)) goto done;
    w.delays = cut->delays, w.delay_count = cut->count, w.loop = cut->loop;
    for (int k = 0; k < cut->count; k++) {
        VipsRect dirty;
        if (gifd_show_cut(r, cut, &area, k, &dirty, "gif_write")) goto done;
        if (o.plan) {
            VipsRect reached;
            output_reduce(&o, r, &area, &dirty, w.frame, &reached);
            for (int y = reached.top; y < VIPS_RECT_BOTTOM(&reached); y++)
                gifw_take_pixels(&w, w.frame + ((size_t)y * (size_t)o.width + (size_t)reached.left) * 4, (size_t)reached.width);
            dirty = reached;
        } else {
            take_rect(&w, r, &area, &dirty);
            dirty.left -= area.left, dirty.top -= area.top;
        }
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
    pm_reduce_plan_free(o.plan);
    gifd_close(r);
    return status;
}

int pm_gif_reduced(pm_gif_file *file, const pm_gif_cut *cut, VipsImage **out) {
    *out = NULL;
    gif_reader *r = NULL;
    VipsRect area;
    if (gifd_open_cut(file, cut, &r, &area, "gif_reduced")) return -1;
    cut_output o;
    if (output_open(cut, &area, r->bands, &o, "gif_reduced")) {
        gifd_close(r);
        return -1;
    }
    const int bands = r->bands;
    const size_t pixels = (size_t)o.width * (size_t)o.height, frame_bytes = pixels * (size_t)bands;
    // The frames are stacked into one image: its height must be an int.
    const int stackable = cut->count >= 1 && (int64_t)o.height * cut->count <= INT_MAX;
    unsigned char *frame = stackable ? malloc(pixels * 4) : NULL;
    unsigned char *frames = stackable ? malloc(frame_bytes * (size_t)cut->count) : NULL;
    int status = -1;
    if (!stackable) {
        vips_error("gif_reduced", "%d frames of %d rows do not stack into one image", cut->count, o.height);
        goto done;
    }
    if (!frame || !frames) {
        vips_error("gif_reduced", "out of memory");
        goto done;
    }
    for (int k = 0; k < cut->count; k++) {
        VipsRect dirty, reached;
        if (gifd_show_cut(r, cut, &area, k, &dirty, "gif_reduced")) goto done;
        if (o.plan) {
            output_reduce(&o, r, &area, &dirty, frame, &reached);
        } else {
            for (int y = dirty.top; y < VIPS_RECT_BOTTOM(&dirty); y++)
                memcpy(frame + ((size_t)(y - area.top) * (size_t)o.width + (size_t)(dirty.left - area.left)) * 4,
                       r->canvas + (size_t)y * (size_t)r->width + (size_t)dirty.left, (size_t)dirty.width * 4);
        }
        unsigned char *to = frames + frame_bytes * (size_t)k;
        for (size_t i = 0; i < pixels; i++) memcpy(to + i * (size_t)bands, frame + i * 4, (size_t)bands);
    }
    VipsImage *image = vips_image_new_from_memory_copy(frames, frame_bytes * (size_t)cut->count, o.width,
                                                       o.height * cut->count, bands, VIPS_FORMAT_UCHAR);
    if (!image) goto done;
    image->Type = VIPS_INTERPRETATION_sRGB;
    *out = image;
    status = 0;

done:
    free(frame), free(frames);
    pm_reduce_plan_free(o.plan);
    gifd_close(r);
    return status;
}
