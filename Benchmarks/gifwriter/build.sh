#!/bin/sh
# The GIF writer's C harness, without a Swift build: the GIF C files of CPushMediaShims (or of
# DIR, e.g. an older commit's copy) and harness.c, built with gcc into OUT.
#
#   Benchmarks/gifwriter/build.sh OUT [DIR] [extra gcc flags, e.g. -fsanitize=address,undefined]
#   OUT GIF [REPEATS [INTERFRAME_ERROR [WRITTEN.gif [REPACKED.gif]]]]
#
# OUT runs pm_gif_transcode (every frame, whole, PushMedia's default settings) and pm_gif_repack
# on GIF and prints the bytes and the CPU of each (NOREPACK=1: the writer only). check.py compares
# the outputs' frames with the source's; make_cases.py writes the generated cases.
set -e
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=$1
DIR=${2:-$ROOT/Sources/CPushMediaShims}
[ $# -ge 2 ] && shift 2 || shift 1
gcc -O2 -Wall -Wextra "$@" -I"$DIR" -I"$DIR/include" -I"$ROOT/Sources/CPushMediaShims/include" \
    -I"$ROOT/Sources/CResample/include" $(pkg-config --cflags vips glib-2.0) "$ROOT/Benchmarks/gifwriter/harness.c" \
    "$DIR"/gif_*.c "$ROOT/Sources/CPushMediaShims/vips_frames.c" -o "$OUT" $(pkg-config --libs vips glib-2.0) \
    -lgif -limagequant -lm -ldl
