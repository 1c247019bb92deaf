// PushMedia's GIF decoder against giflib's, paired. Built by build.sh:
//
//   Benchmarks/gifdecode/build.sh OUT
//   OUT [-n REPEATS] [-p 0|1|2] GIF...
//
// For each GIF, three ways of producing every frame's full RGBA canvas in turn (each frame drawn
// on one canvas with its disposal and see-through index, plus one saved copy for disposal 3;
// never frames × pixels):
//
//   A   PushMedia's decoder: the file mapped and scanned (gifd_map_file, gifd_scan), each frame's
//       sub-blocks gathered and decoded by gif_lzw_decode (as gif_read.c's decode_indices does),
//       then `composite` below.
//   B   giflib 5.2: DGifOpenFileName, records read in turn (DGifGetImageDesc + DGifGetLine of the
//       whole frame into an index buffer; graphic controls through DGifExtensionToGCB), then the
//       same `composite`. Only the decode differs from A.
//   A*  PushMedia's product path as pm_gif_load runs it: pm_gif_open and gifd_open, then gifd_show(r, n) for
//       n = 0, 1, … (gif_read.c's own drawing, which also keeps the previous frame's pixels where
//       the current one changes them, for a second reader thread).
//
// Correctness: one untimed pass of each first, a checksum (FNV-1a, 64-bit) of the whole canvas
// after every frame; any frame where the three differ is reported (identical: "no").
// Timing: REPEATS rounds (default 7), each round running A, B and A* once in an order that
// rotates every round; CPU time (CLOCK_PROCESS_CPUTIME_ID) and wall time (CLOCK_MONOTONIC) of
// each whole decode (open to close), median and minimum over the rounds. Prints a Markdown table.
#include "gif_decoder.h"

#include <gif_lib.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

static double clock_of(clockid_t id) {
    struct timespec t;
    clock_gettime(id, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

// ---- the compositing both A and B use -------------------------------------------------------

typedef struct {
    int left, top, width, height;
    bool interlaced;
    int transparent; // -1: none
    int disposal;    // 0…3 (4 read as 3)
} frame_info;

typedef struct {
    int width, height;
    uint32_t *canvas, *saved; // saved: allocated at the first frame with disposal 3
    bool has_saved;
    uint32_t background;
    frame_info before; // the frame drawn last
    int drawn;         // frames drawn
} compositor;

static void fail(const char *what) {
    fprintf(stderr, "%s\n", what);
    exit(1);
}

static void comp_init(compositor *c, int width, int height, uint32_t background) {
    *c = (compositor){.width = width, .height = height, .background = background};
    c->canvas = malloc((size_t)width * (size_t)height * 4);
    if (!c->canvas) fail("out of memory");
}

static void comp_free(compositor *c) { free(c->canvas), free(c->saved); }

/// gif_read.c's row_of: interlaced rows in the order the data holds them.
static int row_of(const frame_info *frame, int line) {
    if (!frame->interlaced) return line;
    const int h = frame->height;
    int pass = (h + 7) / 8;
    if (line < pass) return line * 8;
    line -= pass, pass = (h + 3) / 8;
    if (line < pass) return 4 + line * 8;
    line -= pass, pass = (h + 1) / 4;
    if (line < pass) return 2 + line * 4;
    return 1 + (line - pass) * 2;
}

/// Before a frame is drawn: the previous frame's disposal, and the canvas saved for a frame with
/// disposal 3 (gif_read.c's draw, without its undo copy).
static void comp_start(compositor *c, const frame_info *frame) {
    const size_t pixels = (size_t)c->width * (size_t)c->height;
    if (c->drawn == 0) {
        memset(c->canvas, 0, pixels * 4);
        c->has_saved = false;
    } else {
        const frame_info *b = &c->before;
        if (b->disposal == 2 || (b->disposal == 3 && !c->has_saved)) {
            uint32_t colour = b->transparent >= 0 ? 0 : c->background;
            for (int y = 0; y < b->height; y++) {
                uint32_t *row = c->canvas + (size_t)(b->top + y) * (size_t)c->width + b->left;
                for (int x = 0; x < b->width; x++) row[x] = colour;
            }
        } else if (b->disposal == 3) {
            for (int y = 0; y < b->height; y++) {
                size_t at = (size_t)(b->top + y) * (size_t)c->width + b->left;
                memcpy(c->canvas + at, c->saved + at, (size_t)b->width * 4);
            }
        }
    }
    if (frame->disposal == 3) {
        if (!c->saved && !(c->saved = malloc(pixels * 4))) fail("out of memory");
        memcpy(c->saved, c->canvas, pixels * 4);
        c->has_saved = true;
    }
}

/// Draws `count` decoded indices of `frame` (in the data's row order) through `table`.
static void composite(compositor *c, const frame_info *frame, const uint32_t *table, const unsigned char *index,
                      long count) {
    for (int line = 0; line < frame->height && count > 0; line++) {
        uint32_t *row = c->canvas + (size_t)(frame->top + row_of(frame, line)) * (size_t)c->width + frame->left;
        int pixels = count < frame->width ? (int)count : frame->width;
        if (frame->transparent < 0) {
            for (int x = 0; x < pixels; x++) row[x] = table[index[x]];
        } else {
            for (int x = 0; x < pixels; x++)
                if (index[x] != frame->transparent) row[x] = table[index[x]];
        }
        index += pixels, count -= pixels;
    }
    c->before = *frame;
    c->drawn++;
}

// ---- checksums ------------------------------------------------------------------------------

typedef struct {
    uint64_t *sums; // one a frame (NULL: a timed run)
    int count, capacity;
} sums;

static void sum_canvas(sums *s, const uint32_t *canvas, size_t pixels) {
    if (!s) return;
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < pixels; i++) h = (h ^ canvas[i]) * 1099511628211ull;
    if (s->count == s->capacity) {
        s->capacity = s->capacity ? s->capacity * 2 : 64;
        if (!(s->sums = realloc(s->sums, (size_t)s->capacity * sizeof *s->sums))) fail("out of memory");
    }
    s->sums[s->count++] = h;
}

// ---- A: PushMedia's decoder, the shared compositing -----------------------------------------

static int decode_a(const char *path, sums *out) {
    gif_reader r = {0};
    if (gifd_map_file(path, &r)) return -1;
    pm_gif_facts facts;
    if (gifd_scan(&r, 1 << 20, &facts)) {
        gifd_unmap_file(&r), free(r.frames);
        return 1;
    }
    compositor c;
    comp_init(&c, r.width, r.height, r.background);
    r.indices = malloc((size_t)r.width * (size_t)r.height + 8);
    r.packed = malloc(r.max_bytes + 8);
    if (!r.indices || !r.packed) fail("out of memory");
    memset(r.local, 0, sizeof r.local);
    int status = 0;
    for (int n = 0; n < r.count; n++) {
        const gifd_frame *f = &r.frames[n];
        frame_info info = {f->left, f->top, f->width, f->height, f->interlaced, f->transparent, f->disposal};
        comp_start(&c, &info);
        const uint32_t *table = r.global;
        if (f->table) {
            gifd_read_table(r.local, r.file + f->table, f->entries);
            table = r.local;
        }
        // gif_read.c's decode_indices
        const unsigned char *file = r.file;
        size_t bytes = 0;
        for (size_t at = f->data + 1; at < r.length && file[at] && at + 1 + file[at] <= r.length && bytes + file[at] <= f->bytes;
             at += 1 + file[at]) {
            memcpy(r.packed + bytes, file + at + 1, file[at]);
            bytes += file[at];
        }
        memset(r.packed + bytes, 0, 8);
        long count = gif_lzw_decode(r.packed, bytes, file[f->data], r.indices, (size_t)f->width * (size_t)f->height,
                                     &r.strings);
        if (count < 0) {
            status = -1;
            break;
        }
        composite(&c, &info, table, r.indices, count);
        sum_canvas(out, c.canvas, (size_t)r.width * (size_t)r.height);
    }
    comp_free(&c);
    free(r.indices), free(r.packed), free(r.frames);
    gifd_unmap_file(&r);
    return status;
}

// ---- B: giflib's decoder, the same compositing ----------------------------------------------

static void read_map(uint32_t *table, const ColorMapObject *map) {
    for (int i = 0; i < map->ColorCount && i < 256; i++)
        table[i] = (uint32_t)map->Colors[i].Red | (uint32_t)map->Colors[i].Green << 8
                   | (uint32_t)map->Colors[i].Blue << 16 | 0xff000000u;
}

static int decode_b(const char *path, sums *out) {
    int error = 0;
    GifFileType *g = DGifOpenFileName(path, &error);
    if (!g) return -1;
    uint32_t global[256] = {0}, local[256] = {0}, background;
    if (g->SColorMap) {
        read_map(global, g->SColorMap);
        background = g->SBackGroundColor < g->SColorMap->ColorCount ? global[g->SBackGroundColor] : global[0];
    } else {
        global[0] = 0xff000000u, global[1] = 0xffffffffu;
        background = global[0];
    }
    const int width = g->SWidth, height = g->SHeight;
    compositor c;
    comp_init(&c, width, height, background);
    unsigned char *indices = malloc((size_t)width * (size_t)height + 8);
    if (!indices) fail("out of memory");
    frame_info next = {.transparent = -1};
    int status = 0;
    GifRecordType type;
    do {
        if (DGifGetRecordType(g, &type) == GIF_ERROR) {
            status = -1;
            break;
        }
        if (type == IMAGE_DESC_RECORD_TYPE) {
            if (DGifGetImageDesc(g) == GIF_ERROR) {
                status = -1;
                break;
            }
            const GifImageDesc *d = &g->Image;
            if (d->Width <= 0 || d->Height <= 0 || d->Left + d->Width > width || d->Top + d->Height > height) {
                status = 1;
                break;
            }
            next.left = d->Left, next.top = d->Top, next.width = d->Width, next.height = d->Height;
            next.interlaced = d->Interlace;
            comp_start(&c, &next);
            const uint32_t *table = global;
            if (d->ColorMap) {
                read_map(local, d->ColorMap);
                table = local;
            }
            long count = (long)d->Width * d->Height;
            if (DGifGetLine(g, indices, (int)count) == GIF_ERROR) {
                status = -1;
                break;
            }
            composite(&c, &next, table, indices, count);
            sum_canvas(out, c.canvas, (size_t)width * (size_t)height);
            next = (frame_info){.transparent = -1};
        } else if (type == EXTENSION_RECORD_TYPE) {
            int code;
            GifByteType *ext;
            if (DGifGetExtension(g, &code, &ext) == GIF_ERROR) {
                status = -1;
                break;
            }
            if (code == GRAPHICS_EXT_FUNC_CODE && ext) {
                GraphicsControlBlock gcb;
                if (DGifExtensionToGCB(ext[0], ext + 1, &gcb) == GIF_OK) {
                    next.transparent = gcb.TransparentColor;
                    next.disposal = gcb.DisposalMode == 4 ? 3 : gcb.DisposalMode;
                }
            }
            while (ext)
                if (DGifGetExtensionNext(g, &ext) == GIF_ERROR) {
                    status = -1;
                    break;
                }
            if (status) break;
        }
    } while (type != TERMINATE_RECORD_TYPE);
    comp_free(&c);
    free(indices);
    DGifCloseFile(g, &error);
    return status;
}

// ---- A*: PushMedia's product path (pm_gif_open, gifd_open, gifd_show) -----------------------

static int decode_product(const char *path, sums *out) {
    pm_gif_file *file = NULL;
    pm_gif_facts facts;
    int status = pm_gif_open(path, 1 << 20, &file, &facts);
    if (status) return status;
    gif_reader *r = NULL;
    status = gifd_open(file, &r);
    pm_gif_file_unref(file); // the reader holds its own reference
    if (status) return status;
    for (int n = 0; n < r->count && status == 0; n++) {
        status = gifd_show(r, n);
        if (status == 0) sum_canvas(out, r->canvas, (size_t)r->width * (size_t)r->height);
    }
    gifd_close(r);
    return status;
}

// ---- the runs -------------------------------------------------------------------------------

typedef int (*decoder)(const char *, sums *);
enum { METHODS = 3 };
static const decoder decoders[METHODS] = {decode_a, decode_b, decode_product};

static int by_value(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n) {
    qsort(v, (size_t)n, sizeof *v, by_value);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int main(int argc, char **argv) {
    int repeats = 7, first = 1, only = -1;
    while (first + 1 < argc && argv[first][0] == '-') {
        if (strcmp(argv[first], "-n") == 0) repeats = atoi(argv[first + 1]);
        else if (strcmp(argv[first], "-p") == 0) only = atoi(argv[first + 1]);
        else break;
        first += 2;
    }
    if (repeats < 1 || first >= argc || only >= METHODS) {
        fprintf(stderr, "usage: %s [-n REPEATS] [-p 0|1|2: only A, B or A*, REPEATS times, for a profiler] GIF...\n",
                argv[0]);
        return 2;
    }
    if (VIPS_INIT(argv[0])) return 1;
    if (only >= 0) {
        for (int i = first; i < argc; i++)
            for (int k = 0; k < repeats; k++)
                if (decoders[only](argv[i], NULL)) fail("a decode failed");
        return 0;
    }
    printf("| file | bytes | size | frames | A CPU ms (min) | B CPU ms (min) | A* CPU ms (min) | A wall ms | B wall ms "
           "| B/A (CPU, medians) | identical |\n|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---|\n");
    double total[METHODS] = {0};
    int differing = 0;
    double *cpu = malloc(sizeof(double) * (size_t)repeats * METHODS), *wall = malloc(sizeof(double) * (size_t)repeats * METHODS);
    for (int i = first; i < argc; i++) {
        const char *path = argv[i];
        sums checks[METHODS] = {{0}};
        int status[METHODS];
        for (int m = 0; m < METHODS; m++) status[m] = decoders[m](path, &checks[m]);
        if (status[0] || status[1] || status[2]) {
            printf("| %s | | | | decode status A %d, B %d, A* %d: not timed | | | | | | |\n", path, status[0], status[1],
                   status[2]);
            continue;
        }
        int frames = checks[0].count, bad = -1;
        bool same = checks[1].count == frames && checks[2].count == frames;
        for (int n = 0; same && n < frames; n++)
            if (checks[1].sums[n] != checks[0].sums[n] || checks[2].sums[n] != checks[0].sums[n]) same = false, bad = n;
        if (!same) {
            differing++;
            fprintf(stderr, "%s: canvases differ (frames A %d, B %d, A* %d; first differing frame %d)\n", path, frames,
                    checks[1].count, checks[2].count, bad);
        }
        for (int m = 0; m < METHODS; m++) free(checks[m].sums);
        for (int k = 0; k < repeats; k++)
            for (int j = 0; j < METHODS; j++) {
                int m = (k + j) % METHODS; // A B A*, B A* A, A* A B, …
                double c0 = clock_of(CLOCK_PROCESS_CPUTIME_ID), w0 = clock_of(CLOCK_MONOTONIC);
                if (decoders[m](path, NULL)) fail("a timed decode failed");
                cpu[m * repeats + k] = clock_of(CLOCK_PROCESS_CPUTIME_ID) - c0;
                wall[m * repeats + k] = clock_of(CLOCK_MONOTONIC) - w0;
            }
        double med[METHODS], low[METHODS], wmed[METHODS];
        for (int m = 0; m < METHODS; m++) {
            med[m] = median(cpu + m * repeats, repeats) * 1e3, low[m] = cpu[m * repeats] * 1e3; // sorted by median
            wmed[m] = median(wall + m * repeats, repeats) * 1e3;
            total[m] += med[m];
        }
        struct stat st;
        stat(path, &st);
        const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
        gif_reader r = {0};
        pm_gif_facts facts;
        gifd_map_file(path, &r), gifd_scan(&r, 1 << 20, &facts);
        printf("| %s | %lld | %d×%d | %d | %.2f (%.2f) | %.2f (%.2f) | %.2f (%.2f) | %.2f | %.2f | %.2f | %s |\n", base,
               (long long)st.st_size, r.width, r.height, frames, med[0], low[0], med[1], low[1], med[2], low[2], wmed[0],
               wmed[1], med[1] / med[0], same ? "yes" : "**no**");
        free(r.frames), gifd_unmap_file(&r);
        fflush(stdout);
    }
    printf("| **all** | | | | %.1f | %.1f | %.1f | | | %.2f | %s |\n", total[0], total[1], total[2], total[1] / total[0],
           differing ? "**no**" : "yes");
    printf("\n(%d rounds of A, B and A* in a rotating order; CPU: CLOCK_PROCESS_CPUTIME_ID, median and minimum; "
           "wall: CLOCK_MONOTONIC, median.)\n",
           repeats);
    free(cpu), free(wall);
    return differing ? 3 : 0;
}
