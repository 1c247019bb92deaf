// What every C entry point of the face search shares (face_detect.cpp, the tests'
// face_compare.cpp): the one check of the image it is handed, and how a message is written.
#ifndef PUSHMEDIA_FACE_ENTRY_H
#define PUSHMEDIA_FACE_ENTRY_H

#include <cstddef>
#include <cstdio>

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

} // namespace pm_face_entry

#endif
