#!/bin/sh
# Builds a C program against the GIF codec's C files (Sources/CGIFCodec, or DIR: another copy of
# that folder, e.g. an older commit's) with gcc, without a Swift build: what
# Benchmarks/gifwriter/build.sh and Benchmarks/gifdecode/build.sh share.
#
#   Benchmarks/gif-c-program.sh MAIN.c OUT [DIR] [extra gcc flags, e.g. -fsanitize=address,undefined]
set -e
ROOT=$(cd "$(dirname "$0")/.." && pwd)
MAIN=$1
OUT=$2
DIR=${3:-$ROOT/Sources/CGIFCodec}
[ $# -ge 3 ] && shift 3 || shift 2
gcc -O2 -Wall -Wextra "$@" -I"$DIR" -I"$DIR/include" -I"$ROOT/Sources/CDeadline/include" \
    $(pkg-config --cflags vips glib-2.0) "$MAIN" \
    "$DIR"/gif_*.c -o "$OUT" $(pkg-config --libs vips glib-2.0) \
    -lgif -limagequant -lm -ldl
