// PushMedia's GIF decoder (gif_read.c), its first step: the file mapped and its blocks walked
// once without decoding a pixel. It keeps what drawing needs (each frame's rectangle, tables,
// transparent index, disposal, delay and where its data is, and the loop count) and takes only
// plain files, as libnsgif (libvips' loader) reads them: every length checked against the
// file's end before it is followed, graphic controls read as libnsgif reads them (4 bytes
// whatever the size says, a second one before the same image adding to the first, disposal 4 as
// 3, the delay in hundredths: 10 without one), a loop extension (NETSCAPE2.0 or ANIMEXTS1.0,
// anywhere; the last one counts) as its count + 1 (0: forever; 1 without one), the background from
// the global table (entry 0 when its index is past the table; black and white when there is no
// global table). It declines (1) a screen size libnsgif replaces by the first frame's, a frame
// reaching outside the picture, a block running past the end, a code size outside 2…11, a last
// frame libnsgif does not count, an empty extension other than a comment (libnsgif reads past its
// end). Whatever it declines, it walks on as far as the blocks allow, counting frames and their
// pixels (pm_gif_facts), so that the caller's limits see a file libvips would be left with
// before libvips opens it; past the caller's frame limit it stops keeping frames and only counts.
#include "gif_decoder.h"

#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static uint16_t word_at(const unsigned char *p) { return (uint16_t)(p[0] | p[1] << 8); }

GIF_HIDDEN void gifd_read_table(uint32_t *table, const unsigned char *rgb, int entries) {
    for (int i = 0; i < entries; i++, rgb += 3)
        table[i] = (uint32_t)rgb[0] | (uint32_t)rgb[1] << 8 | (uint32_t)rgb[2] << 16 | 0xff000000u;
}

/// Skips data sub-blocks from `*at` (adding their data bytes to *bytes, when given); false when
/// they run past the end.
static bool skip_blocks(const gif_reader *r, size_t *at, size_t *bytes) {
    while (true) {
        if (*at >= r->length) return false;
        unsigned size = r->file[*at];
        *at += 1;
        if (size == 0) return true;
        if (*at + size > r->length) return false;
        *at += size;
        if (bytes) *bytes += size;
    }
}

GIF_HIDDEN int gifd_scan(gif_reader *r, int max_frames, pm_gif_facts *facts) {
    *facts = (pm_gif_facts){0};
    const unsigned char *f = r->file;
    if (r->length < 13 || memcmp(f, "GIF", 3) != 0) return 1;
    int width = word_at(f + 6), height = word_at(f + 8);
    facts->screen_width = width, facts->screen_height = height;
    bool global = f[10] & 0x80;
    int global_entries = 2 << (f[10] & 7);
    size_t at = 13;
    // libnsgif takes these screen sizes as the frames' size (its first frame grows the picture).
    bool declined = (width == 640 && (height == 480 || height == 512)) || (width == 800 && height == 600)
                    || (width == 1024 && height == 768) || (width == 1280 && height == 1024)
                    || (width == 1600 && height == 1200) || width == 0 || height == 0 || width > 2048 || height > 2048;
    if (global) {
        if (at + (size_t)global_entries * 3 > r->length) return 1;
        gifd_read_table(r->global, f + at, global_entries);
        at += (size_t)global_entries * 3;
        r->background = f[11] < global_entries ? r->global[f[11]] : r->global[0];
    } else {
        r->global[0] = 0xff000000u, r->global[1] = 0xffffffffu;
        r->background = r->global[0];
    }
    r->width = width, r->height = height;

    size_t capacity = 0;
    const gifd_frame fresh = {.transparent = -1, .delay = 100};
    gifd_frame next = fresh;
    r->loop = 1;
    bool any_transparent = false;
    while (at < r->length && f[at] != 0x3b) {
        if (f[at] == 0x21) { // an extension
            if (at + 3 > r->length) goto stop;
            // libnsgif skips the first block of any extension but a comment as a header, by its
            // length byte, and then reads blocks up to a terminator: when that first block is
            // the terminator itself, it reads on into what follows (the next frame, say).
            if (f[at + 1] != 0xfe && f[at + 2] == 0) goto stop;
            if (f[at + 1] == 0xf9) { // graphic control: libnsgif reads 4 bytes whatever the size says
                if (at + 7 > r->length) goto stop;
                if (f[at + 3] & 1) next.transparent = f[at + 6];
                next.disposal = (f[at + 3] >> 2) & 7;
                if (next.disposal == 4) next.disposal = 3;
                next.delay = word_at(f + at + 4) * 10;
            } else if (f[at + 1] == 0xff) { // application: libnsgif wants 17 bytes from the label
                const unsigned char *data = f + at + 1;
                if (r->length - (at + 1) < 17) goto stop;
                if (data[1] == 0x0b && (memcmp(data + 2, "NETSCAPE2.0", 11) == 0 || memcmp(data + 2, "ANIMEXTS1.0", 11) == 0)
                    && data[13] == 3 && data[14] == 1) {
                    r->loop = word_at(data + 15);
                    if (r->loop > 0) r->loop++;
                }
            }
            at += 2;
            if (!skip_blocks(r, &at, NULL)) goto stop;
            continue;
        }
        if (f[at] != 0x2c || at + 10 > r->length) goto stop;
        next.left = word_at(f + at + 1), next.top = word_at(f + at + 3);
        next.width = word_at(f + at + 5), next.height = word_at(f + at + 7);
        unsigned char flags = f[at + 9];
        at += 10;
        // Outside a screen libnsgif replaces, a frame is expected to reach past it.
        if (!declined
            && (next.width == 0 || next.height == 0 || next.left + next.width > width || next.top + next.height > height))
            declined = true;
        next.interlaced = flags & 0x40;
        if (flags & 0x80) {
            next.entries = 2 << (flags & 7);
            next.table = at;
            at += (size_t)next.entries * 3;
            if (at > r->length) goto stop;
        }
        // libnsgif counts no frame with under 3 bytes from its code size byte to the file's end
        if (r->length - at < 3 || f[at] < 2 || f[at] > 11) goto stop;
        facts->frames++;
        facts->coded_pixels += (double)next.width * (double)next.height;
        next.data = at;
        at += 1;
        if (!skip_blocks(r, &at, &next.bytes)) goto stop;
        if (next.bytes > r->max_bytes) r->max_bytes = next.bytes;
        if (declined || r->count >= max_frames) { // counted, not kept
            next = fresh;
            continue;
        }
        if ((size_t)r->count == capacity) {
            capacity = capacity ? capacity * 2 : 64;
            gifd_frame *grown = realloc(r->frames, capacity * sizeof *grown);
            if (!grown) goto stop;
            r->frames = grown;
        }
        any_transparent |= next.transparent >= 0;
        r->frames[r->count++] = next;
        next = fresh;
    }
    if (facts->frames > max_frames) return 2;
    if (declined || r->count == 0) return 1;
    r->bands = any_transparent ? 4 : 3;
    return 0;
stop: // a block the walk cannot follow: libvips' loader decides what the file is
    return facts->frames > max_frames ? 2 : 1;
}

GIF_HIDDEN int gifd_map_file(const char *path, gif_reader *r) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    struct stat st;
    if (fstat(fd, &st) || st.st_size <= 0) {
        close(fd);
        return -1;
    }
    void *file = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (file == MAP_FAILED) return -1;
    r->file = file, r->length = (size_t)st.st_size;
    return 0;
}

GIF_HIDDEN void gifd_unmap_file(gif_reader *r) {
    if (r->file) munmap((void *)r->file, r->length);
    r->file = NULL;
}
