#!/usr/bin/env python3
"""tests/report_png.py SHOT.png REPORT_H NAME... : checks a headless-Chromium screenshot of a
`krewrite report` page (tests/report.sh). Standard library only: the PNG is decoded with zlib
and struct (8-bit RGB or RGBA, not interlaced: what Chromium writes).

Passes when the page is not blank (many pixels that are not the background, several distinct
colours) and, for each NAME (e.g. CHART_COLOR, ADD_BG, DEL_BG), enough pixels of the colour
that search/report.h defines as KR_REPORT_<NAME>, so the colours are read from the renderer's
own header and cannot drift apart from it. A channel may be off by 2 (colour rounding).
Exit 0 on success, 1 with a message naming what is missing."""
import re
import struct
import sys
import zlib

# Fewest pixels of each colour: a chart point (r=5.5) has ~80, a diff line ~1200 at 1280 px.
MIN_PIXELS = {"CHART_COLOR": 60, "BEST_COLOR": 60, "FAILED_COLOR": 60,
              "ADD_BG": 2000, "DEL_BG": 2000}
TOLERANCE = 2


def decode(path):
    """Returns (width, height, channels, pixel bytes without filter bytes)."""
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG file")
    pos, idat, hdr = 8, [], None
    while pos + 8 <= len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            hdr = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat.append(body)
        elif kind == b"IEND":
            break
    if not hdr:
        raise ValueError("no IHDR chunk")
    width, height, depth, ctype, _, _, interlace = hdr
    if depth != 8 or ctype not in (2, 6) or interlace:
        raise ValueError("unsupported PNG: depth %d, colour type %d, interlace %d"
                         % (depth, ctype, interlace))
    ch = 3 if ctype == 2 else 4
    raw = zlib.decompress(b"".join(idat))
    return width, height, ch, unfilter(raw, width, height, ch)


def unfilter(raw, width, height, bpp):
    stride = width * bpp
    out = bytearray(stride * height)
    prev = bytearray(stride)
    for y in range(height):
        ftype = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        if ftype == 1:
            for i in range(bpp, stride):
                line[i] = (line[i] + line[i - bpp]) & 0xFF
        elif ftype == 2:
            line = bytearray((a + b) & 0xFF for a, b in zip(line, prev))
        elif ftype == 3:
            for i in range(stride):
                left = line[i - bpp] if i >= bpp else 0
                line[i] = (line[i] + ((left + prev[i]) >> 1)) & 0xFF
        elif ftype == 4:
            for i in range(stride):
                a = line[i - bpp] if i >= bpp else 0
                b = prev[i]
                c = prev[i - bpp] if i >= bpp else 0
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pred = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                line[i] = (line[i] + pred) & 0xFF
        elif ftype != 0:
            raise ValueError("bad filter type %d on row %d" % (ftype, y))
        out[y * stride:(y + 1) * stride] = line
        prev = line
    return out


def colours_of(header):
    text = open(header).read()
    return {m.group(1): tuple(int(m.group(2)[i:i + 2], 16) for i in (0, 2, 4))
            for m in re.finditer(r'#define KR_REPORT_(\w+) "#([0-9a-fA-F]{6})"', text)}


def main(argv):
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    shot, header, names = argv[1], argv[2], argv[3:]
    width, height, ch, px = decode(shot)
    counts = {}
    for i in range(0, len(px), ch):
        key = bytes(px[i:i + 3])
        counts[key] = counts.get(key, 0) + 1
    total = width * height
    background = max(counts, key=counts.get)
    ink = total - counts[background]
    problems = []
    if ink < total // 50:
        problems.append("blank page: only %d of %d pixels differ from the background #%s"
                        % (ink, total, background.hex()))
    if len(counts) < 16:
        problems.append("only %d distinct colours" % len(counts))
    defined = colours_of(header)
    for name in names:
        if name not in defined:
            problems.append("%s: no KR_REPORT_%s colour in %s" % (name, name, header))
            continue
        want = defined[name]
        n = sum(c for k, c in counts.items()
                if all(abs(k[j] - want[j]) <= TOLERANCE for j in range(3)))
        need = MIN_PIXELS.get(name, 60)
        print("%s #%s: %d pixels (need %d)" % (name, bytes(want).hex(), n, need))
        if n < need:
            problems.append("%s #%s: %d pixels, fewer than %d"
                            % (name, bytes(want).hex(), n, need))
    print("%s: %dx%d, %d distinct colours, %.1f%% of pixels not background"
          % (shot, width, height, len(counts), 100.0 * ink / total))
    for p in problems:
        print("report_png: %s: %s" % (shot, p), file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
