// libvips set up once per process (its settings, which modules it loads, which loaders may run)
// and its shared error buffer.
#define _GNU_SOURCE // dladdr
#include "CVipsShims.h"

#include <dlfcn.h>
#include <vips/vector.h>
#include <gmodule.h>
#include <stdlib.h>
#include <string.h>

static void block_loaders(void);

static GOnce startup_once = G_ONCE_INIT;
static int startup_result = 0;

static void drop_vips_warning(const gchar *domain, GLogLevelFlags level, const gchar *message,
                              gpointer data) {
    // Decoder warnings (e.g. "premature end of JPEG") go to stderr by default. PushMedia turns
    // the ones that matter into errors with fail_on; the rest are noise in batch output.
    (void)domain; (void)level; (void)message; (void)data;
}

// When it starts, libvips loads every module in its vips-modules-X.Y folder: ImageMagick, poppler
// (PDF), OpenSlide, JPEG XL and HEIF, with 19 libraries nothing else loads (libjxl itself comes
// with FFmpeg), though PushMedia's allow-list blocks every loader in them but HEIF's. So libvips
// is given a prefix with no modules (VIPSHOME, which libvips itself would otherwise set to its
// guess), and the HEIF module alone is opened from libvips' own folder, when the first HEIF or
// AVIF image is loaded (pm_vips_load_heif): with libheif's codecs it is ~31 M instructions
// (callgrind) a process would otherwise pay at its first image of any kind. About 20 ms of CPU
// per process for the other modules (docs/benchmarks/start-up.md). An environment that sets
// VIPSHOME to anything else keeps libvips' own module loading.
static const char *const pm_prefix_without_modules = "/nonexistent/pushmedia-loads-the-heif-module-itself";

// Like libvips' own module loading, a HEIF module that cannot be opened only costs HEIF: it is
// said once on standard error, and HEIF files then fail to load with libvips' message.
static void load_heif_module(void) {
    if (g_type_from_name("VipsForeignLoadHeif")) return;
    Dl_info library;
    char *resolved = NULL;
    if (dladdr((void *)vips_init, &library) && library.dli_fname) resolved = realpath(library.dli_fname, NULL);
    if (!resolved) {
        g_printerr("pushmedia: cannot find libvips' folder: HEIF images will not load\n");
        return;
    }
    char *folder = g_path_get_dirname(resolved);
    free(resolved);
    char *path = g_strdup_printf("%s/vips-modules-%d.%d/vips-heif.so", folder, vips_version(0), vips_version(1));
    g_free(folder);
    // Its g_module_check_init registers the HEIF loaders and makes the module resident.
    if (!g_module_open(path, G_MODULE_BIND_LAZY)) {
        g_printerr("pushmedia: cannot load libvips' HEIF module (%s): HEIF images will not load\n", g_module_error());
    }
    g_free(path);
}

static gboolean heif_module_is_ours = FALSE;
static GOnce heif_once = G_ONCE_INIT;

static gpointer do_load_heif(gpointer unused) {
    (void)unused;
    load_heif_module();
    // Its loaders did not exist when block_loaders ran; libvips registers them unblocked.
    // Say so anyway, for HEIF's family only (the allow-list names it), so that no other loader's
    // flag is written while other threads load images.
    vips_operation_block_set("VipsForeignLoadHeif", FALSE);
    return NULL;
}

void pm_vips_set_environment(void) {
    if (g_getenv("VIPSHOME") == NULL) g_setenv("VIPSHOME", pm_prefix_without_modules, FALSE);
}

void pm_vips_load_heif(void) {
    if (heif_module_is_ours) g_once(&heif_once, do_load_heif, NULL);
}

// What pm_vips_startup was asked for, kept for the one thread that runs do_startup.
typedef struct {
    const char *argv0;
    pm_vips_settings settings;
} startup_request;

static gpointer do_startup(gpointer data) {
    const startup_request *request = data;
    // A PushMedia process started by this one inherits the prefix and opens the HEIF module
    // itself too. (Any other libvips program would inherit it as well and load no module at all:
    // PushMedia starts none.)
    const char *home = g_getenv("VIPSHOME");
    gboolean own_modules = home == NULL || strcmp(home, pm_prefix_without_modules) == 0;
    pm_vips_set_environment();
    if (VIPS_INIT(request->argv0) != 0) {
        startup_result = -1;
        return NULL;
    }
    heif_module_is_ours = own_modules;
    // Each item opens different files: the operation cache would only keep their pixels alive.
    vips_cache_set_max(0);
    vips_cache_set_max_mem(0);
    if (request->settings.threads_per_operation > 0) vips_concurrency_set(request->settings.threads_per_operation);
    // Read by libvips each time it would build run-time code, so this holds from here on
    // (vips_init has read VIPS_NOVECTOR already; this overrides it either way).
    vips_vector_set_enabled(request->settings.run_time_code ? TRUE : FALSE);
    block_loaders();
    if (!request->settings.warnings) {
        g_log_set_handler("VIPS", G_LOG_LEVEL_WARNING, drop_vips_warning, NULL);
    }
    return NULL;
}

int pm_vips_startup(const char *argv0, const pm_vips_settings *settings) {
    startup_request request = {argv0, *settings};
    // g_once runs do_startup on this thread, while `request` lives; later calls only return.
    g_once(&startup_once, do_startup, &request);
    return startup_result;
}

int pm_vips_run_time_code(void) { return vips_vector_isenabled() ? 1 : 0; }

char *pm_vips_error_take(void) {
    char *text = vips_error_buffer_copy();
    return text ? text : g_strdup("");
}

void pm_vips_error(const char *domain, const char *message) { vips_error(domain, "%s", message); }

// The loader families PushMedia documents; every other VipsForeignLoad stays blocked.
static const char *const pm_allowed_loaders[] = {
    "VipsForeignLoadJpeg", "VipsForeignLoadPng", "VipsForeignLoadNsgif",
    "VipsForeignLoadWebp", "VipsForeignLoadHeif", "VipsForeignLoadTiff",
};

// Blocks every libvips loader but PushMedia's six (and libvips' "untrusted" operations).
static void block_loaders(void) {
    // Loaders libvips itself flags as unsafe on untrusted input (magick, PDF, SVG, FITS, ...).
    vips_block_untrusted_set(TRUE);
    vips_operation_block_set("VipsForeignLoad", TRUE);
    for (size_t i = 0; i < sizeof pm_allowed_loaders / sizeof pm_allowed_loaders[0]; i++) {
        vips_operation_block_set(pm_allowed_loaders[i], FALSE);
    }
}

int pm_vips_operation_blocked(const char *nickname) {
    VipsOperation *operation = vips_operation_new(nickname);
    if (!operation) {
        vips_error_clear();
        return -1;
    }
    int blocked = (vips_operation_get_flags(operation) & VIPS_OPERATION_BLOCKED) != 0;
    g_object_unref(operation);
    return blocked;
}
