"""Generated GIFs for the writer's frame-by-frame check, written byte by byte (any rectangle,
disposal, local palette, transparent index), each built so that every frame can be exact:

    python3 Benchmarks/gifwriter/make_cases.py OUTDIR

Sprites over transparency under disposal 0, 1, 2, 3 and mixed, a frame that clears to
see-through, a first frame smaller than the screen with local palettes, one frame, 1×1, odd
sizes, 300 frames, and sprites over the holes of an opaque grid (where restoring, 3, beats
clearing, 2)."""
import sys, struct
from pathlib import Path

def lzw(indices, bits):
    # Uncompressed-style LZW: a clear code often enough that codes stay bits+1 wide.
    min_size = max(2, bits)
    clear, end = 1 << min_size, (1 << min_size) + 1
    width = min_size + 1
    codes = [clear]
    n = 0
    for i in indices:
        codes.append(i)
        n += 1
        if n == (1 << min_size) - 2:
            codes.append(clear); n = 0
    codes.append(end)
    acc = nbits = 0; out = bytearray()
    for c in codes:
        acc |= c << nbits; nbits += width
        while nbits >= 8:
            out.append(acc & 0xff); acc >>= 8; nbits -= 8
    if nbits: out.append(acc & 0xff)
    blocks = bytearray([min_size])
    for k in range(0, len(out), 255):
        chunk = out[k:k + 255]; blocks.append(len(chunk)); blocks += chunk
    blocks.append(0)
    return bytes(blocks)

def table(colours):
    bits = 1
    while (1 << bits) < len(colours): bits += 1
    t = bytearray()
    for c in colours + [(0, 0, 0)] * ((1 << bits) - len(colours)): t += bytes(c)
    return bits, bytes(t)

def gif(path, w, h, palette, frames, loop=0):
    """frames: dicts with rect (l,t,fw,fh), pixels (list of indices), disposal, transparent (or None),
    delay (cs), local (palette or None)."""
    bits, t = table(palette)
    b = bytearray(b"GIF89a" + struct.pack("<HHBBB", w, h, 0x80 | 0x70 | (bits - 1), 0, 0) + t)
    if len(frames) > 1:
        b += b"\x21\xff\x0bNETSCAPE2.0\x03\x01" + struct.pack("<H", loop) + b"\x00"
    for f in frames:
        tr = f.get("transparent")
        b += b"\x21\xf9\x04" + bytes([(f.get("disposal", 1) << 2) | (1 if tr is not None else 0)]) + struct.pack("<H", f.get("delay", 10)) + bytes([tr or 0, 0])
        l, tp, fw, fh = f["rect"]
        local = f.get("local")
        if local:
            lb, lt = table(local)
            b += b"\x2c" + struct.pack("<HHHHB", l, tp, fw, fh, 0x80 | (lb - 1)) + lt
            cb = lb
        else:
            b += b"\x2c" + struct.pack("<HHHHB", l, tp, fw, fh, 0)
            cb = bits
        b += lzw(f["pixels"], cb)
    b += b"\x3b"
    Path(path).write_bytes(bytes(b))

PAL = [(0, 0, 0), (230, 30, 30), (30, 200, 40), (40, 60, 220), (250, 220, 20), (255, 255, 255), (120, 0, 160), (0, 160, 160)]
T = 0  # index 0 used as the transparent one

def rect_pixels(fw, fh, fn):
    return [fn(x, y) for y in range(fh) for x in range(fw)]

def sprite_frames(w, h, n, disposals, sprite=8):
    """A sprite moving over transparency, each frame only its rectangle, with the given disposals."""
    out = []
    for k in range(n):
        x = (k * 5) % max(1, w - sprite); y = (k * 3) % max(1, h - sprite)
        colour = 1 + k % 7
        px = rect_pixels(sprite, sprite, lambda i, j: colour if (i + j) % 5 else T)
        out.append(dict(rect=(x, y, sprite, sprite), pixels=px, disposal=disposals[k % len(disposals)], transparent=T, delay=8))
    return out

def main(outdir):
    o = Path(outdir); o.mkdir(parents=True, exist_ok=True)
    w, h = 64, 40
    bg = dict(rect=(0, 0, w, h), pixels=[T] * (w * h), disposal=1, transparent=T, delay=8)
    for name, d in [("d0", [0]), ("d1", [1]), ("d2", [2]), ("d3", [3]), ("mixed", [0, 2, 3, 1, 3, 2])]:
        gif(o / f"sprite-{name}.gif", w, h, PAL, [bg] + sprite_frames(w, h, 24, d))
    # a frame that clears to transparent (disposal 2 of a full frame, then an empty-looking frame)
    full = dict(rect=(0, 0, w, h), pixels=rect_pixels(w, h, lambda x, y: 1 + (x // 8 + y // 8) % 7), disposal=2, transparent=T, delay=10)
    dot = dict(rect=(10, 10, 2, 2), pixels=[T] * 4, disposal=1, transparent=T, delay=10)
    gif(o / "clears.gif", w, h, PAL, [full, dot, full, dot])
    # a first frame smaller than the screen, local palettes
    small = dict(rect=(5, 7, 20, 10), pixels=rect_pixels(20, 10, lambda x, y: 1 + (x + y) % 3), disposal=1, transparent=T, delay=10)
    lp = [(0, 0, 0), (10, 10, 10), (200, 100, 50), (50, 100, 200)]
    more = dict(rect=(30, 15, 16, 16), pixels=rect_pixels(16, 16, lambda x, y: 1 + (x * y) % 3), disposal=0, transparent=T, delay=10, local=lp)
    gif(o / "small-first.gif", w, h, PAL, [small, more, dict(small, rect=(40, 2, 20, 10)), more])
    # one frame; 1×1; odd sizes; 300 frames
    gif(o / "one-frame.gif", 33, 17, PAL, [dict(rect=(0, 0, 33, 17), pixels=rect_pixels(33, 17, lambda x, y: (x + 2 * y) % 8), transparent=T)])
    gif(o / "one-pixel.gif", 1, 1, PAL, [dict(rect=(0, 0, 1, 1), pixels=[k % 3], transparent=T, disposal=2, delay=5) for k in range(6)])
    ow, oh = 37, 23
    gif(o / "odd.gif", ow, oh, PAL, [dict(rect=(0, 0, ow, oh), pixels=[T] * (ow * oh), transparent=T, disposal=1)] + sprite_frames(ow, oh, 30, [2, 3, 1], sprite=7))
    gif(o / "frames300.gif", w, h, PAL, [bg] + sprite_frames(w, h, 299, [2, 1, 3, 0], sprite=6))
    # a sprite moving over the holes of a static opaque grid: restoring (3) beats clearing (2)
    grid = dict(rect=(0, 0, w, h), pixels=rect_pixels(w, h, lambda x, y: 5 if (x % 6 < 2 or y % 6 < 2) else T), disposal=1, transparent=T, delay=8)
    spr = []
    for k in range(20):
        x = 2 + 6 * (k % 9); y = 2 + 6 * ((k // 3) % 5)
        spr.append(dict(rect=(x, y, 4, 4), pixels=[1 + k % 6] * 16, transparent=T, disposal=3, delay=8))
    gif(o / "grid-restore.gif", w, h, PAL, [grid] + spr)
    # a flashing badge that returns to what was shown before (3 where 2 would redraw the grid)
    flash = [grid]
    for k in range(12):
        x = 2 + 6 * (k % 5)
        flash.append(dict(rect=(x, 8, 10, 10), pixels=rect_pixels(10, 10, lambda i, j: 4 if (i + j) % 4 else T), transparent=T, disposal=3, delay=8))
        flash.append(dict(rect=(0, 0, 1, 1), pixels=[T], transparent=T, disposal=1, delay=8))
    gif(o / "grid-flash.gif", w, h, PAL, flash)

main(sys.argv[1])
