// Shared by the libFuzzer harnesses in this folder (built and run by scripts/fuzz): libvips set
// up as PushMedia sets it up, the input written to one temporary file per process, a failure
// that stops the run with a message, and the deliberate bug that proves a run can fail.
#ifndef PUSHMEDIA_FUZZ_COMMON_H
#define PUSHMEDIA_FUZZ_COMMON_H

#include "CGIFCodec.h"
#include "CReduce.h"
#include "CVipsShims.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <vips/vips.h>

/// The most pixel bytes one harness call forces out of a decoder (a 64 KB GIF can stack 4,096
/// frames of a 2048×2048 screen): larger images are read in part.
#define PMF_MAX_PIXEL_BYTES ((size_t)24 << 20)

/// Stops the run: libFuzzer reports the abort and keeps the input as crash-*.
__attribute__((noreturn, format(printf, 1, 2))) static void pmf_fail(const char *format, ...) {
    va_list args;
    va_start(args, format);
    fprintf(stderr, "\n==PM-FUZZ== ");
    vfprintf(stderr, format, args);
    fprintf(stderr, "\n");
    va_end(args);
    abort();
}

/// PM_FUZZ_VERBOSE=1 in the environment: each harness says what it did with each input (to
/// check what the seeds reach: run the harness on the files, without fuzzing).
static int pmf_verbose(void) {
    static int verbose = -1;
    if (verbose < 0) verbose = getenv("PM_FUZZ_VERBOSE") && *getenv("PM_FUZZ_VERBOSE") && strcmp(getenv("PM_FUZZ_VERBOSE"), "0");
    return verbose;
}

#define PMF_SAY(...) (pmf_verbose() ? (void)fprintf(stderr, "pm-fuzz: " __VA_ARGS__) : (void)0)

/// libvips started as PushMedia starts it (pm_vips_startup with the product's settings: no
/// modules, the operation cache off, every loader but PushMedia's six blocked, no run-time code,
/// decoder warnings dropped), once per process, and one libvips thread, so that a run replays the
/// same way.
static void pmf_vips_start(const char *argv0) {
    const pm_vips_settings settings = {.threads_per_operation = 1, .run_time_code = 0, .warnings = 0};
    if (pm_vips_startup(argv0, &settings)) pmf_fail("pm_vips_startup failed: %s", vips_error_buffer());
}

static char pmf_file[4096];

static void pmf_remove_file(void) {
    if (pmf_file[0]) unlink(pmf_file);
}

/// The one temporary file of this process: under $PM_FUZZ_TMPDIR, /dev/shm or $TMPDIR, removed
/// when the process exits normally (scripts/fuzz removes its whole folder in any case).
static const char *pmf_path(const char *suffix) {
    if (!pmf_file[0]) {
        const char *dir = getenv("PM_FUZZ_TMPDIR");
        if (!dir || !*dir) dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : getenv("TMPDIR");
        if (!dir || !*dir) dir = "/tmp";
        snprintf(pmf_file, sizeof pmf_file, "%s/pm-fuzz-%ld%s", dir, (long)getpid(), suffix);
        atexit(pmf_remove_file);
    }
    return pmf_file;
}

/// The temporary file's device and inode (for the guarded mappings below).
static struct stat pmf_file_id;
static bool pmf_file_id_set;

/// Writes the input to this process's temporary file (replacing what was there); its path.
static const char *pmf_write_file(const uint8_t *data, size_t size, const char *suffix) {
    const char *path = pmf_path(suffix);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) pmf_fail("cannot create %s: %s", path, strerror(errno));
    for (size_t done = 0; done < size;) {
        ssize_t n = write(fd, data + done, size - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) pmf_fail("cannot write %s: %s", path, strerror(errno));
        done += (size_t)n;
    }
    pmf_file_id_set = fstat(fd, &pmf_file_id) == 0;
    close(fd);
    return path;
}

#ifdef PMF_GUARD_MAPPED_FILES
// AddressSanitizer does not watch mapped memory: PushMedia's GIF decoder maps its file
// (gifd_map_file), and a read past the file's end would find the rest of the last page, zeros,
// unnoticed. Linked with -Wl,--wrap=mmap,--wrap=munmap (scripts/fuzz does), the product code's
// read-only mapping of this harness's input file is replaced by a copy that ends exactly where
// an inaccessible page begins: a read past the end is a SEGV that the fuzzer reports. Every other
// mapping, and libvips' own (a shared library, not wrapped), is left as it is.
void *__real_mmap(void *addr, size_t length, int prot, int flags, int fd, off_t offset);
int __real_munmap(void *addr, size_t length);

static struct {
    unsigned char *at;
    void *base;
    size_t total;
} pmf_guarded[8];

void *__wrap_mmap(void *addr, size_t length, int prot, int flags, int fd, off_t offset) {
    struct stat st;
    size_t slot = 0;
    while (slot < sizeof pmf_guarded / sizeof pmf_guarded[0] && pmf_guarded[slot].at) slot++;
    if (addr || prot != PROT_READ || offset != 0 || fd < 0 || length == 0 || !pmf_file_id_set ||
        slot == sizeof pmf_guarded / sizeof pmf_guarded[0] || fstat(fd, &st) || st.st_dev != pmf_file_id.st_dev ||
        st.st_ino != pmf_file_id.st_ino || (size_t)st.st_size != length)
        return __real_mmap(addr, length, prot, flags, fd, offset);
    const size_t page = (size_t)sysconf(_SC_PAGESIZE), data = (length + page - 1) / page * page;
    unsigned char *base = __real_mmap(NULL, data + page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (base == MAP_FAILED) return MAP_FAILED;
    unsigned char *at = base + (data - length);
    for (size_t done = 0; done < length;) {
        ssize_t n = pread(fd, at + done, length - done, (off_t)done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) pmf_fail("guarded mapping: cannot read the input file: %s", n ? strerror(errno) : "it shrank");
        done += (size_t)n;
    }
    if (mprotect(base, data, PROT_READ) || mprotect(base + data, page, PROT_NONE))
        pmf_fail("guarded mapping: mprotect: %s", strerror(errno));
    pmf_guarded[slot].at = at, pmf_guarded[slot].base = base, pmf_guarded[slot].total = data + page;
    PMF_SAY("input file mapped with a guard page after its %zu bytes\n", length);
    return at;
}

int __wrap_munmap(void *addr, size_t length) {
    for (size_t slot = 0; slot < sizeof pmf_guarded / sizeof pmf_guarded[0]; slot++) {
        if (pmf_guarded[slot].at && pmf_guarded[slot].at == addr) {
            int result = __real_munmap(pmf_guarded[slot].base, pmf_guarded[slot].total);
            pmf_guarded[slot].at = NULL;
            return result;
        }
    }
    return __real_munmap(addr, length);
}
#endif

/// FNV-1a of the input: a harness's choices (shrink, size, cut, settings) follow the bytes, so
/// every mutation may try another, and a saved crash replays the same way.
static uint64_t pmf_hash(const uint8_t *data, size_t size) {
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < size; i++) h = (h ^ data[i]) * 1099511628211ull;
    return h;
}

/// The pixels of `image` (all of it) in a new buffer (g_free), or NULL with libvips' error.
static unsigned char *pmf_pixels(VipsImage *image, size_t *size) {
    void *bytes = vips_image_write_to_memory(image, size);
    return bytes;
}

/// The pixels of rows [top, top + height) of `image`, or NULL with libvips' error.
static unsigned char *pmf_rows(VipsImage *image, int top, int height, size_t *size) {
    VipsImage *part = NULL;
    if (vips_crop(image, &part, 0, top, image->Xsize, height, NULL)) return NULL;
    unsigned char *bytes = pmf_pixels(part, size);
    g_object_unref(part);
    return bytes;
}

/// Where two byte strings first differ, for a failure's message.
static size_t pmf_first_difference(const unsigned char *a, const unsigned char *b, size_t size) {
    size_t i = 0;
    while (i < size && a[i] == b[i]) i++;
    return i;
}

/// The deliberate bug of the harness's PM_FUZZ_PLANTED_BUG build (never in product code): a
/// one-byte write past a heap buffer when the input starts with `trigger`, which scripts/fuzz
/// requires AddressSanitizer to report. In the ordinary build it does nothing.
static void pmf_planted_bug(const uint8_t *data, size_t size, uint8_t trigger) {
#ifdef PM_FUZZ_PLANTED_BUG
    if (size > 0 && data[0] == trigger) {
        unsigned char *copy = malloc(size);
        if (!copy) return;
        memcpy(copy, data, size);
        volatile unsigned char *past = copy;
        past[size] = data[0]; // heap-buffer-overflow
        free(copy);
    }
#else
    (void)data, (void)size, (void)trigger;
#endif
}

#endif
