#!/bin/sh
# The GIF writer's C harness, without a Swift build: the GIF codec's C files (Sources/CGIFCodec,
# or DIR: an older commit's copy) and harness.c, built with gcc into OUT.
#
#   Benchmarks/gifwriter/build.sh OUT [DIR] [extra gcc flags, e.g. -fsanitize=address,undefined]
#   OUT GIF [REPEATS [INTERFRAME_ERROR [WRITTEN.gif [REPACKED.gif]]]]
#
# OUT runs pm_gif_transcode (every frame, whole, PushMedia's default settings) and pm_gif_repack
# on GIF and prints the bytes and the CPU of each (NOREPACK=1: the writer only). check.py compares
# the outputs' frames with the source's; make_cases.py writes the generated cases.
exec "$(dirname "$0")/../gif-c-program.sh" "$(dirname "$0")/harness.c" "$@"
