// What every C entry point of the face searches shares (face_detect.cpp, CFaceNet's face_net.cpp,
// the tests' face_compare.cpp): the one check of the image it is handed, how a message is written,
// and the one place a C++ failure becomes -1 with its message, so C++ never unwinds into Swift.
#ifndef PUSHMEDIA_FACE_ENTRY_H
#define PUSHMEDIA_FACE_ENTRY_H

#include <cstddef>
#include <cstdio>
#include <exception>
#include <new>

#include "CFaceDetect.h"

namespace pm_face_entry {

inline void set_error(char *error, size_t size, const char *message) {
    if (error && size > 0) std::snprintf(error, size, "%s", message);
}

// Whether `image` names pixels the entry points may read: a size, a band inside its pixels, rows
// at least as long as their pixels.
inline bool readable(const pm_face_image *image) {
    return image && image->pixels && image->width > 0 && image->height > 0 && image->bands > 0 && image->band >= 0 &&
           image->band < image->bands && image->stride >= image->width * image->bands;
}

// Runs `body` (an entry point's work, returning its count or 0) and returns what it returns; an
// exception becomes -1 and its message in `error` ("out of memory" for a failed allocation).
template <typename Body> auto guarded(char *error, size_t size, Body body) -> decltype(body()) {
    try {
        return body();
    } catch (const std::bad_alloc &) {
        set_error(error, size, "out of memory");
    } catch (const std::exception &e) {
        set_error(error, size, e.what());
    } catch (...) {
        set_error(error, size, "unknown error");
    }
    return -1;
}

} // namespace pm_face_entry

#endif
