# Shared by scripts/run-fixtures and scripts/test: installs the Debian packages PushMedia builds
# against when they are missing (Debian bookworm; Swift 6 must already be installed).

# The -dev packages of the C libraries PushMedia links (SQLite for the embedded queue, via GRDB;
# dlib's face detector, linked statically from libdlib-dev's libdlib.a, without BLAS and LAPACK;
# giflib and libimagequant, with which PushMedia writes and re-packs GIFs; libjpeg-turbo, which
# decodes still JPEGs).
BUILD_PACKAGES=(pkg-config libvips-dev libavformat-dev libavcodec-dev libavutil-dev libswscale-dev libswresample-dev libsqlite3-dev
  libdlib-dev libgif-dev libimagequant-dev libjpeg62-turbo-dev)

as_root() {
  if [[ $(id -u) -eq 0 ]]; then "$@"; else sudo "$@"; fi
}

# ensure_packages PKG...: apt-get installs those not installed yet (one update first).
ensure_packages() {
  local missing=()
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  if ((${#missing[@]})); then
    echo "==> installing Debian packages: ${missing[*]}" >&2
    as_root apt-get update -qq
    DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  fi
}

# The group photos of the face tests (scripts/make-group-banners): dlib's example photos with
# their face boxes, which libdlib19.1 (a dependency of libdlib-dev) installs under
# /usr/share/doc. An image whose dpkg excludes /usr/share/doc (minimised images) has the package
# but not the files: then the package is unpacked into a cache folder instead, and
# PUSHMEDIA_DLIB_FACES names it for the script.
DLIB_FACES=/usr/share/doc/libdlib19.1/examples/faces
ensure_dlib_examples() {
  ensure_packages libdlib19.1
  [[ -f $DLIB_FACES/training.xml ]] && return 0
  local cache=${XDG_CACHE_HOME:-$HOME/.cache}/pushmedia/libdlib19.1
  if [[ ! -f $cache$DLIB_FACES/training.xml ]]; then
    echo "==> $DLIB_FACES is missing (dpkg excludes /usr/share/doc?): unpacking libdlib19.1 into $cache" >&2
    local work
    work=$(mktemp -d)
    chmod 0755 "$work" # apt-get download fetches as its _apt user
    (cd "$work" && apt-get download libdlib19.1 >/dev/null) && mkdir -p "$cache" && dpkg-deb -x "$work"/libdlib19.1_*.deb "$cache"
    rm -rf "$work"
  fi
  [[ -f $cache$DLIB_FACES/training.xml ]] || { echo "error: no dlib example photos in $DLIB_FACES or $cache" >&2; exit 2; }
  export PUSHMEDIA_DLIB_FACES=$cache$DLIB_FACES
}

require_swift() {
  command -v swift >/dev/null || { echo "error: swift is not on PATH (install Swift 6 first)" >&2; exit 2; }
}
