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

require_swift() {
  command -v swift >/dev/null || { echo "error: swift is not on PATH (install Swift 6 first)" >&2; exit 2; }
}
