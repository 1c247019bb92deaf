// The GIF writer's palettes (gif_write.c writes the frames): the changed pixels' own colours
// when few, else libimagequant's; which palette a frame keeps (global, previous or new); the
// nearest palette colour of a pixel, through a memo; colour tables as written.
#include "CGIFCodec.h"
#include "gif_writer.h"

#include <dlfcn.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <string.h>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

static void palette_from_liq(gif_writer *w, const liq_palette *p, gifw_palette *into) {
    into->count = (int)p->count;
    into->see_through = -1;
    for (unsigned i = 0; i < p->count; i++) {
        into->rgb[i][0] = p->entries[i].r;
        into->rgb[i][1] = p->entries[i].g;
        into->rgb[i][2] = p->entries[i].b;
        if (p->entries[i].a == 0 && into->see_through < 0) into->see_through = (int)i;
    }
    into->generation = ++w->generations;
}

/// How far `from` is from `to`: the root mean square, over `from`'s entries, of the distance
/// to the nearest entry of `to` (a see-through entry only matches a see-through one).
static double palette_distance(const gifw_palette *from, const gifw_palette *to) {
    if (from->count == 0) return 0;
    if (to->count - (to->see_through >= 0) == 0) return INFINITY; // no colour to map to
    double total = 0;
    for (int i = 0; i < from->count; i++) {
        int best = 3 * 255 * 255;
        bool clear = i == from->see_through;
        for (int j = 0; j < to->count && best > 0; j++) {
            bool other_clear = j == to->see_through;
            if (clear || other_clear) {
                if (clear && other_clear) best = 0;
                continue;
            }
            int dr = from->rgb[i][0] - to->rgb[j][0], dg = from->rgb[i][1] - to->rgb[j][1],
                db = from->rgb[i][2] - to->rgb[j][2];
            int d = dr * dr + dg * dg + db * db;
            if (d < best) best = d;
        }
        total += best;
    }
    return sqrt(total / (3.0 * from->count));
}

/// Fills `into` with `p`'s opaque entries sorted by r + g + b (a counting sort: stable, so equal
/// sums stay in index order).
static void sort_by_sum(const gifw_palette *p, gifw_by_sum *into) {
    short count[766] = {0};
    for (int i = 0; i < p->count; i++)
        if (i != p->see_through) count[p->rgb[i][0] + p->rgb[i][1] + p->rgb[i][2]]++;
    int position = 0;
    for (int s = 0; s < 766; s++) {
        into->start[s] = (short)position;
        position += count[s];
    }
    into->count = position;
    short next[766];
    memcpy(next, into->start, sizeof next);
    for (int i = 0; i < p->count; i++) {
        if (i == p->see_through) continue;
        int sum = p->rgb[i][0] + p->rgb[i][1] + p->rgb[i][2];
        int k = next[sum]++;
        into->sum[k] = sum;
        into->index[k] = (unsigned char)i;
        memcpy(into->rgb[k], p->rgb[i], 3);
    }
}

/// One step of the nearest-colour search: the entry at sorted position k, whose sum is `ds` off
/// the colour's (r, g, b), kept in *best / *index when nearer (or as near with a lower index).
/// false when no entry further out on this side can be as near.
static inline bool visit(const gifw_by_sum *sorted, int k, int ds, int r, int g, int b, int *best, int *index) {
    if ((long long)ds * ds > 3LL * *best) return false;
    const unsigned char *c = sorted->rgb[k];
    int dr = r - c[0], dg = g - c[1], db = b - c[2];
    int d = dr * dr + dg * dg + db * db, i = sorted->index[k];
    if (d < *best || (d == *best && i < *index)) *best = d, *index = i;
    return true;
}

/// Fills `into` with `p`'s opaque entries in index order, then entries no colour is nearer to
/// than to a real one (r = 1000: over 745² away, where real entries are at most 3 × 255²) up
/// to a multiple of 8. Their index is 0, what the search gives when there is no real entry.
static void fill_lanes(const gifw_palette *p, gifw_lanes *into) {
    int n = 0;
    for (int i = 0; i < p->count; i++) {
        if (i == p->see_through) continue;
        into->r[n] = p->rgb[i][0], into->g[n] = p->rgb[i][1], into->b[n] = p->rgb[i][2], into->index[n] = i;
        n++;
    }
    for (; n % 8 != 0 || n == 0; n++) into->r[n] = 1000, into->g[n] = 0, into->b[n] = 0, into->index[n] = 0;
    into->count = n;
}

#if defined(__x86_64__)
/// Every entry's distance at once, eight at a time, each as the key distance × 256 + index
/// (distances are below 2^21 with the padding, so keys fit 32 bits): the smallest key is the
/// smallest distance, the lowest index among equals.
__attribute__((target("avx2"))) static int nearest_in_lanes(const gifw_lanes *lanes, uint32_t colour) {
    const __m256i r = _mm256_set1_epi32((int)(colour >> 16)), g = _mm256_set1_epi32((int)((colour >> 8) & 0xff)),
                  b = _mm256_set1_epi32((int)(colour & 0xff));
    __m256i best = _mm256_set1_epi32(-1); // 0xffffffff, above every key
    for (int k = 0; k < lanes->count; k += 8) {
        const __m256i dr = _mm256_sub_epi32(r, _mm256_loadu_si256((const __m256i *)(const void *)(lanes->r + k)));
        const __m256i dg = _mm256_sub_epi32(g, _mm256_loadu_si256((const __m256i *)(const void *)(lanes->g + k)));
        const __m256i db = _mm256_sub_epi32(b, _mm256_loadu_si256((const __m256i *)(const void *)(lanes->b + k)));
        const __m256i d = _mm256_add_epi32(_mm256_add_epi32(_mm256_mullo_epi32(dr, dr), _mm256_mullo_epi32(dg, dg)),
                                           _mm256_mullo_epi32(db, db));
        const __m256i key = _mm256_or_si256(_mm256_slli_epi32(d, 8),
                                            _mm256_loadu_si256((const __m256i *)(const void *)(lanes->index + k)));
        best = _mm256_min_epu32(best, key);
    }
    __m128i m = _mm_min_epu32(_mm256_castsi256_si128(best), _mm256_extracti128_si256(best, 1));
    m = _mm_min_epu32(m, _mm_shuffle_epi32(m, 0x4e));
    m = _mm_min_epu32(m, _mm_shuffle_epi32(m, 0xb1));
    return _mm_cvtsi128_si32(m) & 0xff;
}

GIF_HIDDEN bool gifw_vector_search_available(void) { return __builtin_cpu_supports("avx2"); }
#else
static int nearest_in_lanes(const gifw_lanes *lanes, uint32_t colour) {
    (void)lanes, (void)colour;
    return 0;
}

GIF_HIDDEN bool gifw_vector_search_available(void) { return false; }
#endif

/// The index of the palette colour nearest to `colour` (0x00RRGGBB), through the memo: the
/// smallest squared distance, the lowest index among equals (what a scan of every entry in
/// index order finds).
///
/// With AVX2 (w->vector_search), every entry is measured, eight at a time: ~30 ns for 255
/// entries, where the search below took 70–150 ns on noise (every pixel a colour of its own)
/// and gives the same index.
///
/// The search starts at the entries with the colour's own r + g + b and goes outwards on both
/// sides. A side stops where its sums are so far off that no entry beyond can be as near as
/// the best so far: (Δr + Δg + Δb)² ≤ 3 (Δr² + Δg² + Δb²), so an entry whose sum differs by
/// Δs is at least Δs² / 3 away. The best so far starts as the last colour found (neighbouring
/// pixels are alike), which narrows the search from the first step.
GIF_HIDDEN int gifw_nearest(gif_writer *w, const gifw_palette *p, uint32_t colour) {
    gifw_by_sum *sorted = &w->by_sum;
    if (w->memo_generation != p->generation) {
        memset(w->memo_colour, 0xff, MEMO_SIZE * sizeof(uint32_t)); // 0xffffffff: no colour
        w->memo_generation = p->generation;
        if (w->vector_search) fill_lanes(p, &w->lanes);
        else sort_by_sum(p, sorted);
        w->last_nearest = -1;
    }
    uint32_t slot = (colour * 2654435761u) >> (32 - MEMO_BITS);
    if (w->memo_colour[slot] == colour) return w->memo_index[slot];
    if (w->vector_search) {
        int index = nearest_in_lanes(&w->lanes, colour);
        w->memo_colour[slot] = colour;
        w->memo_index[slot] = (unsigned char)index;
        return index;
    }
    int r = (int)(colour >> 16), g = (int)((colour >> 8) & 0xff), b = (int)(colour & 0xff);
    int s = r + g + b;
    int best = INT_MAX, index = 0;
    if (w->last_nearest >= 0) {
        const unsigned char *c = p->rgb[w->last_nearest];
        int dr = r - c[0], dg = g - c[1], db = b - c[2];
        best = dr * dr + dg * dg + db * db, index = w->last_nearest;
    }
    int down = sorted->start[s] - 1, up = sorted->start[s];
    bool go_down = down >= 0, go_up = up < sorted->count;
    while (go_up || go_down) {
        if (go_up) go_up = visit(sorted, up, sorted->sum[up] - s, r, g, b, &best, &index) && ++up < sorted->count;
        if (go_down) go_down = visit(sorted, down, s - sorted->sum[down], r, g, b, &best, &index) && --down >= 0;
    }
    w->memo_colour[slot] = colour;
    w->memo_index[slot] = (unsigned char)index;
    w->last_nearest = index;
    return index;
}

/// log2 of a palette's table size: room for its colours and the index written for unchanged
/// pixels.
GIF_HIDDEN int gifw_table_bits(const gifw_palette *p) {
    int bits = 1;
    while ((1 << bits) < p->count + 1) bits++;
    return bits;
}

/// A palette's colour table, padded with black to 2^bits entries.
GIF_HIDDEN bool gifw_put_table(gif_buffer *out, const gifw_palette *p, int bits) {
    unsigned char table[256 * 3] = {0};
    memcpy(table, p->rgb, (size_t)p->count * 3);
    return gif_buffer_append(out, table, (size_t)3 << bits);
}

/// The changed pixels' own colours (in the rectangle) as a palette (a see-through entry first, as
/// libimagequant puts it; only the first frame has see-through pixels to write), when there are
/// at most max_colours of them. false when there are more.
static bool exact_palette(gif_writer *w, int left, int top, int width, int height, gifw_palette *into) {
    enum { SLOTS = 1024, EMPTY = 1 }; // EMPTY: no RGBA pixel reads 1 (see-through ones are all 0)
    uint32_t seen[SLOTS];
    for (int i = 0; i < SLOTS; i++) seen[i] = EMPTY;
    int count = 0;
    bool see_through = false;
    uint32_t colours[256];
    for (int y = top; y < top + height; y++) {
        size_t base = (size_t)y * (size_t)w->width + (size_t)left;
        const unsigned char *p = w->frame + base * 4, *changed = w->changed + base;
        uint32_t last = EMPTY;
        for (int x = 0; x < width; x++, p += 4) {
            if (!changed[x]) continue;
            uint32_t colour = p[3] ? 0xff000000u | ((uint32_t)p[0] << 16) | ((uint32_t)p[1] << 8) | p[2] : 0;
            if (colour == last) continue;
            last = colour;
            size_t slot = gif_colour_slot(colour); // gif_repack_palette.c's colour index slots colours alike
            while (seen[slot] != EMPTY && seen[slot] != colour) slot = (slot + 1) & (SLOTS - 1);
            if (seen[slot] == colour) continue;
            if (count + see_through + 1 > w->max_colours) return false;
            seen[slot] = colour;
            if (colour) colours[count++] = colour;
            else see_through = true;
        }
    }
    into->see_through = see_through ? 0 : -1;
    into->count = count + see_through;
    if (see_through) into->rgb[0][0] = into->rgb[0][1] = into->rgb[0][2] = 0;
    for (int i = 0; i < count; i++) {
        unsigned char *rgb = into->rgb[i + see_through];
        rgb[0] = (unsigned char)(colours[i] >> 16), rgb[1] = (unsigned char)(colours[i] >> 8), rgb[2] = (unsigned char)colours[i];
    }
    into->generation = ++w->generations;
    return true;
}

/// Whether every colour of `part` (and its see-through entry, if any) is in `whole`.
static bool holds_all(const gifw_palette *whole, const gifw_palette *part) {
    if (part->see_through >= 0 && whole->see_through < 0) return false;
    for (int i = 0; i < part->count; i++) {
        if (i == part->see_through) continue;
        bool found = false;
        for (int j = 0; j < whole->count && !found; j++)
            found = j != whole->see_through && memcmp(whole->rgb[j], part->rgb[i], 3) == 0;
        if (!found) return false;
    }
    return true;
}

static void (*set_omp_threads)(int);
static void find_set_omp_threads(void) { *(void **)&set_omp_threads = dlsym(RTLD_DEFAULT, "omp_set_num_threads"); }

/// Debian's libimagequant quantises with OpenMP, a team of one thread per core; PushMedia
/// already runs an item per core, so the team only adds threads that spin between parallel
/// regions (5 % of a noise GIF's CPU). One thread for the calling thread's quantisations
/// (OpenMP's thread count is per thread), found through libgomp when it is loaded.
static void quantise_on_this_thread(void) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, find_set_omp_threads);
    if (set_omp_threads) set_omp_threads(1);
}

/// libimagequant's palette for the changed pixels of the rectangle (packed in one row: at
/// PushMedia's effort it quantises a histogram, so where pixels lie does not matter), in
/// w->fresh. false with a libvips error.
static bool quantise(gif_writer *w, int left, int top, int width, int height) {
    size_t count = 0;
    for (int y = top; y < top + height; y++) {
        size_t base = (size_t)y * (size_t)w->width + (size_t)left;
        for (int x = 0; x < width; x++)
            if (w->changed[base + (size_t)x]) memcpy(w->packed + 4 * count++, w->frame + (base + (size_t)x) * 4, 4);
    }
    quantise_on_this_thread();
    liq_image *image = liq_image_create_rgba(w->attr, w->packed, (int)count, 1, 0);
    liq_result *result = NULL;
    liq_error status = image ? liq_image_quantize(image, w->attr, &result) : LIQ_OUT_OF_MEMORY;
    if (status == LIQ_OK) palette_from_liq(w, liq_get_palette(result), &w->fresh);
    if (result) liq_result_destroy(result);
    if (image) liq_image_destroy(image);
    if (status != LIQ_OK) {
        vips_error("gif_write", "frame %d: quantisation failed (libimagequant error %d)", w->number, (int)status);
        return false;
    }
    return true;
}

/// The palette for the current frame's changed rectangle (left, top, width, height): the global
/// one, the previous frame's, or a new one. The new one is the rectangle's own colours when
/// there are at most max_colours of them (kept when the global or previous palette holds them
/// all), else libimagequant's. The global, else the previous palette, is kept when within
/// max_palette_error of the new one. NULL with a libvips error when quantising fails.
GIF_HIDDEN const gifw_palette *gifw_choose_palette(gif_writer *w, int left, int top, int width, int height) {
    if (w->number > 0 && (width == 0 || height == 0)) return w->previous_used;
    if (exact_palette(w, left, top, width, height, &w->fresh)) {
        if (w->number > 0 && holds_all(&w->global, &w->fresh)) return &w->global;
        if (w->number > 0 && holds_all(w->previous_used, &w->fresh)) return w->previous_used;
    } else if (!quantise(w, left, top, width, height)) {
        return NULL;
    }
    if (w->number == 0) {
        w->global = w->fresh;
        return &w->global;
    }
    double to_global = palette_distance(&w->fresh, &w->global);
    double to_previous = w->previous_used == &w->global ? to_global : palette_distance(&w->fresh, w->previous_used);
    if (to_global <= to_previous && to_global < w->max_palette_error) return &w->global;
    if (to_previous < w->max_palette_error) return w->previous_used;
    w->previous = w->fresh;
    return &w->previous;
}

