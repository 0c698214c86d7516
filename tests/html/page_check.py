#!/usr/bin/env python3
"""Checks what headless Chromium made of a report page.

    page_check.py SCREENSHOT.png WIDTH HEIGHT DOM.html REPORT.md

The screenshot must be WIDTH x HEIGHT and not blank (a tenth of its pixels or more differ from
the page's background); the DOM Chromium built must hold every table of the Markdown report
with every one of its rows, cell for cell.
"""
import struct
import sys
import zlib
from html.parser import HTMLParser


def png_pixels(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise SystemExit(f"{path}: not a PNG file")
    pos, idat, header = 8, b"", None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    width, height, depth, colour, _, _, interlace = header
    if depth != 8 or colour not in (2, 6) or interlace:
        raise SystemExit(f"{path}: expected an 8-bit RGB(A) PNG, not interlaced")
    channels = 3 if colour == 2 else 4
    raw = zlib.decompress(idat)
    stride = width * channels
    rows, previous = [], bytearray(stride)
    for y in range(height):
        kind, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for x in range(stride):
            a = line[x - channels] if x >= channels else 0
            b = previous[x]
            c = previous[x - channels] if x >= channels else 0
            if kind == 1:
                line[x] = (line[x] + a) & 255
            elif kind == 2:
                line[x] = (line[x] + b) & 255
            elif kind == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            elif kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        previous = line
    return width, height, channels, rows


class Tables(HTMLParser):
    def __init__(self):
        super().__init__()
        self.rows, self.cell, self.row = [], None, None

    def handle_starttag(self, tag, attrs):
        if tag == "tr":
            self.row = []
        elif tag in ("td", "th") and self.row is not None:
            self.cell = ""

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self.cell is not None:
            self.row.append(" ".join(self.cell.split()))
            self.cell = None
        elif tag == "tr" and self.row is not None:
            self.rows.append(self.row)
            self.row = None

    def handle_data(self, data):
        if self.cell is not None:
            self.cell += data


def markdown_rows(path):
    rows = []
    for line in open(path, encoding="utf-8"):
        line = line.rstrip("\n")
        if line.startswith("|") and not line.startswith("|---"):
            cells = [" ".join(c.replace("`", "").split()) for c in line.strip().strip("|").split("|")]
            rows.append(cells)
    return rows


def main():
    png, width, height, dom, report = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5]
    w, h, channels, rows = png_pixels(png)
    if (w, h) != (width, height):
        raise SystemExit(f"{png}: {w} x {h} pixels, expected {width} x {height}")
    background = rows[0][:3]
    differing = sum(1 for row in rows for x in range(0, len(row), channels) if row[x:x + 3] != background)
    share = differing / (w * h)
    if share < 0.1:
        raise SystemExit(f"{png}: only {share:.1%} of the pixels differ from the background: a blank page?")
    parser = Tables()
    parser.feed(open(dom, encoding="utf-8").read())
    expected = markdown_rows(report)
    missing = [r for r in expected if r not in parser.rows]
    if missing:
        raise SystemExit(f"{dom}: {len(missing)} of the report's {len(expected)} table rows are not in the page, "
                         f"the first: {missing[0]}")
    print(f"page: {w} x {h} pixels, {share:.0%} drawn; {len(expected)} table rows of {report} all in the DOM "
          f"({len(parser.rows)} rows in all)")


if __name__ == "__main__":
    main()
