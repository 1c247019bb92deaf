// The face search (the proxy it reads, then dlib's detector), compiled twice from this one
// text: for any x86-64 (or other) CPU in face_detect.cpp, and with AVX2 and FMA in
// face_detect_avx2.cpp, where `dlib` is renamed so the two builds of dlib's templates cannot be
// merged by the linker. pm_detect_faces (face_detect.cpp) picks one per process from what the
// CPU has. Include it after dlib's headers; it defines everything in an unnamed namespace except
// PM_FACE_SEARCH_ENTRY and PM_FACE_REGIONS_ENTRY, the functions named by the includer. The
// proxy's size, the regions, their scale and levels and the lowest score reported are the
// caller's (FaceSearchPlan): nothing here decides them.
#ifndef PUSHMEDIA_FACE_SEARCH_H
#define PUSHMEDIA_FACE_SEARCH_H

#include "CFaceDetect.h"

#include <string>

namespace pm_face_search {

/// dlib's frontal-face model, serialised (decoded once from frontal_face_model.h).
const std::string &serialized_model();

/// The search as one build: the faces in `image` (the checks of pm_detect_faces already made),
/// as pm_detect_faces reports them. Throws what dlib or the allocator throws.
int search_portable(const pm_face_image &image, int proxy_width, int proxy_height, double minimum_score,
                    pm_face_box *faces, int capacity);
#if defined(__x86_64__)
int search_avx2(const pm_face_image &image, int proxy_width, int proxy_height, double minimum_score,
                pm_face_box *faces, int capacity);
#endif

/// The search of given regions at a scale, as pm_detect_faces_in_regions reports it (its checks
/// already made). Throws what dlib or the allocator throws.
int search_regions_portable(const pm_face_image &image, const pm_face_region *regions, int region_count,
                            double scale, int levels, double minimum_score, pm_face_box *faces, int capacity);
#if defined(__x86_64__)
int search_regions_avx2(const pm_face_image &image, const pm_face_region *regions, int region_count,
                        double scale, int levels, double minimum_score, pm_face_box *faces, int capacity);
#endif

} // namespace pm_face_search

#endif

#ifdef PM_FACE_SEARCH_ENTRY
#include <algorithm>
#include <cmath>
#include <sstream>
#include <vector>

#include "face_features.h"
#include "face_filters.h"
#include "face_proxy.h"

namespace {

// dlib's frontal-face filters on a pyramid that shrinks by 3/4 a level instead of dlib's 5/6:
// 2.3 times the image's pixels searched instead of 3.3 (docs/benchmarks/faces.md). The filters and
// the 80 px window are dlib's model as it ships; only the spacing of the scales differs.
using face_detector = dlib::object_detector<dlib::scan_fhog_pyramid<dlib::pyramid_down<PM_FACE_PYRAMID_DOWN>>>;

// Once per process (thread-safe static initialisation; retried if it threw), with the feature
// step's table of orientations, so a process that loads the model before it forks (the item
// processes' fork server) makes both once. Never freed, like the table and the serialised model:
// `exit` runs the destructors of function-local statics on the thread that calls it, while other
// threads may still search or load (an item process told to stop while it loads the model, an
// item past its deadline in `process --in-process`); they would read freed memory.
const face_detector &prototype() {
    static const face_detector &instance = *new face_detector([] {
        dlib::impl_fhog::pm_features::bins_table();
        face_detector detector;
        std::istringstream model(pm_face_search::serialized_model());
        dlib::deserialize(detector, model);
        return detector;
    }());
    return instance;
}

// A search changes the detector's scanner, so each thread searches with its own copy (~0.1 ms).
face_detector &detector() {
    thread_local face_detector instance = prototype();
    return instance;
}

// The thread's detector (detector()) searching at most `levels` levels of its pyramid, the finest
// first (0: every level that holds the window), for as long as this lives; its own count after.
struct levelled {
    face_detector &detector = ::detector();
    using scanner_type = std::remove_const_t<std::remove_reference_t<decltype(detector.get_scanner())>>;
    // The detector's own scanner: a search loads its image there, so it is not const in use.
    scanner_type &scanner = const_cast<scanner_type &>(detector.get_scanner());
    const unsigned long all = scanner.get_max_pyramid_levels();
    explicit levelled(int levels) {
        if (levels > 0) scanner.set_max_pyramid_levels(static_cast<unsigned long>(levels));
    }
    ~levelled() { scanner.set_max_pyramid_levels(all); }
    levelled(const levelled &) = delete;
    levelled &operator=(const levelled &) = delete;
};

/// `found` surest first, the first `capacity` written into `faces` (image pixels); returns how
/// many were found (which may exceed `capacity`).
inline int write_faces(std::vector<dlib::rect_detection> &found, pm_face_box *faces, int capacity) {
    std::sort(found.begin(), found.end(), [](const dlib::rect_detection &a, const dlib::rect_detection &b) {
        return a.detection_confidence > b.detection_confidence;
    });
    const int count = static_cast<int>(found.size());
    for (int i = 0; i < std::min(count, capacity); i++) {
        const dlib::rectangle &r = found[static_cast<size_t>(i)].rect;
        faces[i].x = static_cast<int>(r.left());
        faces[i].y = static_cast<int>(r.top());
        faces[i].width = static_cast<int>(r.width());
        faces[i].height = static_cast<int>(r.height());
        faces[i].score = found[static_cast<size_t>(i)].detection_confidence;
    }
    return count;
}

} // namespace

int pm_face_search::PM_FACE_SEARCH_ENTRY(const pm_face_image &image, int proxy_width, int proxy_height,
                                         double minimum_score, pm_face_box *faces, int capacity) {
    // The proxy the caller sized: the band reduced, or the image as it is at its own size.
    dlib::array2d<unsigned char> proxy;
    if (proxy_width < image.width || proxy_height < image.height) {
        soften(reduce(image, proxy_width, proxy_height).data(), proxy_width, proxy_height, proxy_width, 1, proxy);
    } else {
        soften(image.pixels + image.band, image.width, image.height, image.stride, image.bands, proxy);
    }
    std::vector<dlib::rect_detection> found;
    detector()(proxy, found, minimum_score);
    return write_faces(found, faces, capacity);
}

int pm_face_search::PM_FACE_REGIONS_ENTRY(const pm_face_image &image, const pm_face_region *regions, int region_count,
                                          double scale, int levels, double minimum_score, pm_face_box *faces,
                                          int capacity) {
    levelled searcher(levels);
    // Collected as dlib's type, not pm_face_box: a std::vector of a type both builds share would
    // be one template instance compiled twice, the AVX2 copy possibly kept for both.
    std::vector<dlib::rect_detection> all;
    for (int i = 0; i < region_count; i++) {
        pm_face_region region = regions[i];
        const int left = std::max(0, region.x), top = std::max(0, region.y);
        const int right = std::min(image.width, region.x + region.width);
        const int bottom = std::min(image.height, region.y + region.height);
        if (right <= left || bottom <= top) continue;
        region = {left, top, right - left, bottom - top};
        const int width = std::max(1, static_cast<int>(std::lround(region.width * scale)));
        const int height = std::max(1, static_cast<int>(std::lround(region.height * scale)));
        dlib::array2d<unsigned char> proxy;
        if (scale > 1) {
            soften(enlarge(image, region, width, height).data(), width, height, width, 1, proxy);
        } else {
            pm_face_image part = image;
            part.pixels = image.pixels + static_cast<size_t>(region.y) * static_cast<size_t>(image.stride) +
                          static_cast<size_t>(region.x) * static_cast<size_t>(image.bands);
            part.width = region.width;
            part.height = region.height;
            if (width < region.width || height < region.height)
                soften(reduce(part, width, height).data(), width, height, width, 1, proxy);
            else
                soften(part.pixels + part.band, part.width, part.height, part.stride, part.bands, proxy);
        }
        std::vector<dlib::rect_detection> found;
        searcher.detector(proxy, found, minimum_score);
        const double across = static_cast<double>(region.width) / width, down = static_cast<double>(region.height) / height;
        for (dlib::rect_detection d : found) {
            const dlib::rectangle r = d.rect;
            // In pixels of the image; right and bottom exclusive, as dlib's width() counts.
            d.rect = dlib::rectangle(std::lround(region.x + r.left() * across), std::lround(region.y + r.top() * down),
                                     std::lround(region.x + (r.right() + 1) * across) - 1,
                                     std::lround(region.y + (r.bottom() + 1) * down) - 1);
            all.push_back(d);
        }
    }
    return write_faces(all, faces, capacity);
}
#endif
