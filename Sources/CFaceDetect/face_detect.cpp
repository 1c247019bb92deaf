// dlib's HOG frontal-face detector behind the C interface in CFaceDetect.h: the model, the search
// built for any CPU (face_search.h), and the choice between it and the AVX2 build
// (face_detect_avx2.cpp). Every exception stops here and becomes -1 with its message: C++ never
// unwinds into Swift.
#include "CFaceDetect.h"

#include "frontal_face_model.h"

#include "face_dlib.h"
#include "face_entry.h"

#include <dlib/base64.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#define PM_FACE_SEARCH_ENTRY search_portable
#define PM_FACE_REGIONS_ENTRY search_regions_portable
#include "face_search.h"

namespace {

// dlib's model, serialised, from the base64 in frontal_face_model.h (~3 ms). dlib's own
// get_frontal_face_detector() first undoes an arithmetic-coder compression, 0.5-1.4 s of CPU.
std::string embedded_model() {
    std::istringstream text(pm_frontal_face_model_base64);
    std::ostringstream plain;
    dlib::base64 coder;
    coder.decode(text, plain);
    return plain.str();
}

// The AVX2 build when the CPU (and the kernel, for the wider registers) has AVX2 and FMA.
bool cpu_has_avx2() {
#if defined(__x86_64__)
    static const bool has = [] {
        __builtin_cpu_init();
        return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    }();
    return has;
#else
    return false;
#endif
}

} // namespace

const std::string &pm_face_search::serialized_model() {
    // Never freed (face_search.h, prototype()).
    static const std::string &model = *new std::string(embedded_model());
    return model;
}

extern "C" int pm_face_search_build(pm_face_search_choice choice) {
    switch (choice) {
    case PM_FACE_SEARCH_AUTOMATIC: return cpu_has_avx2() ? PM_FACE_SEARCH_AVX2 : PM_FACE_SEARCH_PORTABLE;
    case PM_FACE_SEARCH_PORTABLE: return PM_FACE_SEARCH_PORTABLE;
    case PM_FACE_SEARCH_AVX2: return cpu_has_avx2() ? PM_FACE_SEARCH_AVX2 : -1;
    }
    return -1;
}

namespace {

using pm_face_entry::guarded;
using pm_face_entry::readable;
using pm_face_entry::set_error;

/// Runs `portable` or `avx2` (each returning a count, or -1) as the build `choice` picks, with
/// C++ failures turned into -1 and a message in `error`: the one way either build is entered.
template <typename Portable, typename AVX2>
auto with_build(pm_face_search_choice choice, char *error, size_t error_size, Portable portable, AVX2 avx2)
    -> decltype(portable()) {
    return guarded(error, error_size, [&]() -> decltype(portable()) {
        switch (pm_face_search_build(choice)) {
        case PM_FACE_SEARCH_AVX2: return avx2();
        case PM_FACE_SEARCH_PORTABLE: return portable();
        default:
            set_error(error, error_size, "this CPU lacks AVX2 or FMA");
            return -1;
        }
    });
}

/// The AVX2 build's `call` where there is one (x86-64). Elsewhere there is none, the call is not
/// compiled, and pm_face_search_build never picks that build, so the -1 is never returned.
#if defined(__x86_64__)
#define PM_AVX2_BUILD(call) (call)
#else
#define PM_AVX2_BUILD(call) (-1)
#endif

} // namespace

extern "C" int pm_detect_faces_with(pm_face_search_choice choice, const pm_face_image *image, int proxy_width,
                                    int proxy_height, double minimum_score, pm_face_box *faces, int capacity,
                                    char *error, size_t error_size) {
    if (!readable(image) || proxy_width < 1 || proxy_width > image->width || proxy_height < 1 ||
        proxy_height > image->height || !std::isfinite(minimum_score) || capacity < 0 || (capacity > 0 && !faces)) {
        set_error(error, error_size, "invalid arguments");
        return -1;
    }
    return with_build(
        choice, error, error_size,
        [&] { return pm_face_search::search_portable(*image, proxy_width, proxy_height, minimum_score, faces, capacity); },
        [&] {
            return PM_AVX2_BUILD(
                pm_face_search::search_avx2(*image, proxy_width, proxy_height, minimum_score, faces, capacity));
        });
}

extern "C" int pm_detect_faces(const pm_face_image *image, int proxy_width, int proxy_height, double minimum_score,
                               pm_face_box *faces, int capacity, char *error, size_t error_size) {
    return pm_detect_faces_with(PM_FACE_SEARCH_AUTOMATIC, image, proxy_width, proxy_height, minimum_score, faces,
                                capacity, error, error_size);
}

extern "C" int pm_detect_faces_in_regions_with(pm_face_search_choice choice, const pm_face_image *image,
                                               const pm_face_region *regions, int region_count, double scale,
                                               int levels, double minimum_score, pm_face_box *faces, int capacity,
                                               char *error, size_t error_size) {
    if (!readable(image) ||
        region_count < 0 || (region_count > 0 && !regions) || !(scale > 0) || scale > 16 || levels < 0 ||
        !std::isfinite(minimum_score) || capacity < 0 || (capacity > 0 && !faces)) {
        set_error(error, error_size, "invalid arguments");
        return -1;
    }
    return with_build(
        choice, error, error_size,
        [&] {
            return pm_face_search::search_regions_portable(*image, regions, region_count, scale, levels, minimum_score,
                                                           faces, capacity);
        },
        [&] {
            return PM_AVX2_BUILD(pm_face_search::search_regions_avx2(*image, regions, region_count, scale, levels,
                                                                     minimum_score, faces, capacity));
        });
}

extern "C" int pm_detect_faces_in_regions(const pm_face_image *image, const pm_face_region *regions, int region_count,
                                          double scale, int levels, double minimum_score, pm_face_box *faces,
                                          int capacity, char *error, size_t error_size) {
    return pm_detect_faces_in_regions_with(PM_FACE_SEARCH_AUTOMATIC, image, regions, region_count, scale, levels,
                                           minimum_score, faces, capacity, error, error_size);
}

extern "C" int pm_face_cells(const pm_face_image *image, int cell, pm_face_cell *cells, int columns, int rows,
                             char *error, size_t error_size) {
    if (!readable(image) || cell < 1 ||
        cell > 64 || !cells || columns != (image->width + cell - 1) / cell ||
        rows != (image->height + cell - 1) / cell) {
        set_error(error, error_size, "invalid arguments");
        return -1;
    }
    return guarded(error, error_size, [&] {
        // Sums for one row of cells: 64 x 64 pixels of 255^2 stay inside 32 bits.
        struct sums {
            uint32_t red, green, blue, chroma, band, squares;
        };
        std::vector<sums> row(static_cast<size_t>(columns));
        const size_t bands = static_cast<size_t>(image->bands), band = static_cast<size_t>(image->band);
        const bool colour = image->bands >= 3;
        for (int cy = 0; cy < rows; cy++) {
            std::fill(row.begin(), row.end(), sums{});
            const int top = cy * cell, bottom = std::min(image->height, top + cell);
            // Every second pixel of every fourth row, from the cell's first.
            for (int y = top; y < bottom; y += 4) {
                const uint8_t *line = image->pixels + static_cast<size_t>(y) * static_cast<size_t>(image->stride);
                for (int cx = 0; cx < columns; cx++) {
                    const int count = (std::min(image->width - cx * cell, cell) + 1) / 2;
                    const uint8_t *p = line + static_cast<size_t>(cx) * static_cast<size_t>(cell) * bands;
                    uint32_t r = 0, g = 0, b = 0, c = 0, v = 0, q = 0;
                    if (colour) {
                        for (int i = 0; i < count; i++, p += 2 * bands) {
                            const uint32_t pr = p[0], pg = p[1], pb = p[2], pv = p[band];
                            r += pr;
                            g += pg;
                            b += pb;
                            c += std::max(pr, std::max(pg, pb)) - std::min(pr, std::min(pg, pb));
                            v += pv;
                            q += pv * pv;
                        }
                    } else {
                        for (int i = 0; i < count; i++, p += 2 * bands) {
                            const uint32_t pv = p[band];
                            v += pv;
                            q += pv * pv;
                        }
                        r = g = b = v;
                    }
                    sums &s = row[static_cast<size_t>(cx)];
                    s.red += r;
                    s.green += g;
                    s.blue += b;
                    s.chroma += c;
                    s.band += v;
                    s.squares += q;
                }
            }
            for (int cx = 0; cx < columns; cx++) {
                const sums &s = row[static_cast<size_t>(cx)];
                const double n = static_cast<double>((std::min(image->width - cx * cell, cell) + 1) / 2) *
                                 static_cast<double>((bottom - top + 3) / 4);
                const double mean = s.band / n;
                pm_face_cell &out = cells[static_cast<size_t>(cy) * static_cast<size_t>(columns) + static_cast<size_t>(cx)];
                out.red = static_cast<float>(s.red / n);
                out.green = static_cast<float>(s.green / n);
                out.blue = static_cast<float>(s.blue / n);
                out.chroma = static_cast<float>(s.chroma / n);
                out.deviation = static_cast<float>(std::sqrt(std::max(0.0, s.squares / n - mean * mean)));
            }
        }
        return 0;
    });
}
