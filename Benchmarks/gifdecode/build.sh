#!/bin/sh
# The GIF decoder benchmark (bench.c: PushMedia's decoder against giflib's, issue 40), without a
# Swift build: the GIF C files of CPushMediaShims (or of DIR) and bench.c, built with gcc into OUT
# the way Benchmarks/gifwriter/build.sh builds its harness.
#
#   /usr/bin/python3 Benchmarks/gifdecode/make_inputs.py            # Benchmarks/.work/gifdecode/
#   Benchmarks/gifdecode/build.sh OUT [DIR] [extra gcc flags]
#   OUT [-n REPEATS] Benchmarks/.work/gifdecode/*.gif Benchmarks/.work/gifdecode/cases/*.gif
set -e
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=$1
DIR=${2:-$ROOT/Sources/CPushMediaShims}
[ $# -ge 2 ] && shift 2 || shift 1
gcc -O2 -Wall -Wextra "$@" -I"$DIR" -I"$DIR/include" -I"$ROOT/Sources/CPushMediaShims/include" \
    -I"$ROOT/Sources/CResample/include" $(pkg-config --cflags vips glib-2.0) "$ROOT/Benchmarks/gifdecode/bench.c" \
    "$DIR"/gif_*.c "$ROOT/Sources/CPushMediaShims/vips_frames.c" -o "$OUT" $(pkg-config --libs vips glib-2.0) \
    -lgif -limagequant -lm -ldl
