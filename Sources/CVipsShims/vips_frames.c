// An animation image whose frames are made one at a time, when they are read.
//
// Stacking per-frame pipelines (extract, crop, resize) with vips_arrayjoin builds every frame's
// operations up front, and each resize precomputes its filter tables (~0.8 MB a frame at
// 1200x1200): memory grows with the frame count. Here a frame's pipeline is made by a callback
// when a sequence first reads one of its rows, and released when it moves to the next frame; the
// GIF saver reads top to bottom, so one frame's pipeline lives at a time per thread.
#include "CVipsShims.h"

#include <string.h>

typedef struct {
    pm_frame_maker make;
    void *context;
    void (*release)(void *context);
    VipsImage *first; // frame 0, made up front for the header
    int count;
    int page_height;
} frames;

typedef struct {
    VipsImage *frame; // the frame being read, or NULL
    VipsRegion *region;
    int page;
} frames_sequence;

static void frames_free(gpointer data) {
    frames *f = data;
    VIPS_UNREF(f->first);
    if (f->release) f->release(f->context);
    g_free(f);
}

static void *frames_start(VipsImage *out, void *a, void *b) {
    (void)out; (void)a; (void)b;
    frames_sequence *sequence = g_new0(frames_sequence, 1);
    sequence->page = -1;
    return sequence;
}

static int frames_stop(void *seq, void *a, void *b) {
    (void)a; (void)b;
    frames_sequence *sequence = seq;
    VIPS_UNREF(sequence->region);
    VIPS_UNREF(sequence->frame);
    g_free(sequence);
    return 0;
}

static int frames_same_shape(const VipsImage *frame, const VipsImage *first, int page) {
    if (frame->Xsize == first->Xsize && frame->Ysize == first->Ysize && frame->Bands == first->Bands &&
        frame->BandFmt == first->BandFmt && frame->Coding == first->Coding) {
        return 1;
    }
    vips_error("join_frames", "frame %d is %dx%d with %d bands, frame 0 %dx%d with %d bands", page, frame->Xsize,
               frame->Ysize, frame->Bands, first->Xsize, first->Ysize, first->Bands);
    return 0;
}

// Makes `sequence` read frame `page`, dropping the one it read before.
static int frames_enter(frames_sequence *sequence, const frames *f, int page) {
    VIPS_UNREF(sequence->region);
    VIPS_UNREF(sequence->frame);
    sequence->page = -1;
    VipsImage *frame = NULL;
    if (page == 0) {
        g_object_ref(f->first);
        frame = f->first;
    } else {
        frame = f->make(page, f->context);
        if (!frame) return -1;
        if (!frames_same_shape(frame, f->first, page)) {
            g_object_unref(frame);
            return -1;
        }
    }
    sequence->frame = frame;
    sequence->region = vips_region_new(frame);
    sequence->page = page;
    return 0;
}

static int frames_generate(VipsRegion *out, void *seq, void *a, void *b, gboolean *stop) {
    (void)b; (void)stop;
    frames_sequence *sequence = seq;
    const frames *f = a;
    const VipsRect *want = &out->valid;
    const size_t row_bytes = VIPS_IMAGE_SIZEOF_PEL(out->im) * (size_t)want->width;
    int top = want->top;
    const int bottom = VIPS_RECT_BOTTOM(want);
    while (top < bottom) {
        const int page = top / f->page_height;
        const int page_top = page * f->page_height;
        const int rows = VIPS_MIN(bottom, page_top + f->page_height) - top;
        if (sequence->page != page && frames_enter(sequence, f, page)) return -1;
        VipsRect need = {want->left, top - page_top, want->width, rows};
        if (vips_region_prepare(sequence->region, &need)) return -1;
        for (int y = 0; y < rows; y++) {
            memcpy(VIPS_REGION_ADDR(out, want->left, top + y),
                   VIPS_REGION_ADDR(sequence->region, want->left, need.top + y), row_bytes);
        }
        top += rows;
    }
    return 0;
}

int pm_join_frames(int count, pm_frame_maker make, void *context, void (*release)(void *context), VipsImage **out) {
    if (count < 1 || !make || !out) {
        if (release) release(context);
        vips_error("join_frames", "%s", "no frames");
        return -1;
    }
    VipsImage *first = make(0, context);
    if (!first) {
        if (release) release(context);
        return -1;
    }
    if ((gint64)first->Ysize * count > VIPS_MAX_COORD) {
        vips_error("join_frames", "%d frames of %d rows are too tall", count, first->Ysize);
        g_object_unref(first);
        if (release) release(context);
        return -1;
    }
    frames *f = g_new0(frames, 1);
    f->make = make;
    f->context = context;
    f->release = release;
    f->first = first;
    f->count = count;
    f->page_height = first->Ysize;
    VipsImage *image = vips_image_new();
    g_object_set_data_full(G_OBJECT(image), "pm-frames", f, frames_free);
    // Frame 0 is the upstream image: the header comes from it and evaluation signals reach it.
    if (vips_image_pipelinev(image, VIPS_DEMAND_STYLE_THINSTRIP, first, NULL)) {
        g_object_unref(image);
        return -1;
    }
    image->Ysize = first->Ysize * count;
    if (vips_image_generate(image, frames_start, frames_generate, frames_stop, f, NULL)) {
        g_object_unref(image);
        return -1;
    }
    *out = image;
    return 0;
}
