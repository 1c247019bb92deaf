#!/bin/sh
# The GIF decoder benchmark (bench.c: PushMedia's decoder against giflib's), without a Swift
# build: the GIF codec's C files (Sources/CGIFCodec, or DIR) and bench.c, built with gcc into OUT
# the way Benchmarks/gifwriter/build.sh builds its harness.
#
#   /usr/bin/python3 Benchmarks/gifdecode/make_inputs.py            # Benchmarks/.work/gifdecode/
#   Benchmarks/gifdecode/build.sh OUT [DIR] [extra gcc flags]
#   OUT [-n REPEATS] Benchmarks/.work/gifdecode/*.gif Benchmarks/.work/gifdecode/cases/*.gif
exec "$(dirname "$0")/../gif-c-program.sh" "$(dirname "$0")/bench.c" "$@"
