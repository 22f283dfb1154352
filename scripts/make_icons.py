"""Draw keypeg's app icons (the web app manifest's): four pegs on a dark board, as PNG files written with
zlib and struct alone (no image library, no third-party file), and the same drawing as SVG.

Run from the repository's root: ``python scripts/make_icons.py``; it rewrites ``src/keypeg/web/static/icon-*``
(committed with this script). Edges are anti-aliased by the pixel's distance to each shape's edge.
"""

from __future__ import annotations

import struct
import sys
import zlib
from pathlib import Path

import numpy as np

STATIC = Path(__file__).resolve().parents[1] / "src" / "keypeg" / "web" / "static"
BOARD = (0x20, 0x23, 0x2A)
PEGS = ((0xD6, 0x27, 0x28), (0x2C, 0xA0, 0x2C), (0x1F, 0x5F, 0xD6), (0xF2, 0xD2, 0x1B))
"""Red, green, blue, yellow: the favicon's pegs, left to right and top to bottom."""


def png(pixels: np.ndarray) -> bytes:
    """An RGBA image (height x width x 4 bytes) as a PNG file."""
    height, width, _ = pixels.shape
    rows = b"".join(b"\x00" + pixels[y].tobytes() for y in range(height))  # filter type 0 on every row

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0)  # 8 bits, RGBA
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows, 9)) + chunk(b"IEND", b"")


def coverage(distance: np.ndarray) -> np.ndarray:
    """How much of each pixel a shape covers, from the signed distance of its centre to the edge (inside < 0)."""
    return np.clip(0.5 - distance, 0.0, 1.0)


def draw(size: int, *, maskable: bool) -> np.ndarray:
    """The icon at ``size`` pixels: a rounded board (the whole square when ``maskable``, whose pegs then keep
    inside the safe zone, the middle 80 %) with four pegs."""
    y, x = np.mgrid[0:size, 0:size].astype(float) + 0.5
    color = np.zeros((size, size, 3))
    if maskable:
        alpha = np.ones((size, size))
    else:  # a square with rounded corners
        radius, half = size * 0.18, size / 2
        qx, qy = np.abs(x - half) - (half - radius), np.abs(y - half) - (half - radius)
        outside = np.hypot(np.maximum(qx, 0), np.maximum(qy, 0)) + np.minimum(np.maximum(qx, qy), 0)
        alpha = coverage(outside - radius)
    color[:] = BOARD
    spread, peg = (0.17, 0.13) if maskable else (0.22, 0.17)
    for n, rgb in enumerate(PEGS):
        cx = size * (0.5 + (spread if n % 2 else -spread))
        cy = size * (0.5 + (spread if n >= 2 else -spread))
        d = np.hypot(x - cx, y - cy)
        rim = coverage(d - size * peg)
        shade = np.clip(1.0 - 0.25 * (d / (size * peg)) ** 2, 0.0, 1.0)[..., None]  # a little rounded
        ink = np.array(rgb, dtype=float) * (0.8 + 0.2 * shade)
        color = color * (1 - rim[..., None]) + ink * rim[..., None]
    pixels = np.dstack([np.clip(color, 0, 255), alpha * 255]).round().astype(np.uint8)
    return pixels


def svg() -> str:
    """The icon as SVG (any size)."""
    pegs = "".join(
        f'<circle cx="{50 + (22 if n % 2 else -22)}" cy="{50 + (22 if n >= 2 else -22)}" r="17" '
        f'fill="#{r:02x}{g:02x}{b:02x}"/>'
        for n, (r, g, b) in enumerate(PEGS)
    )
    board = "#{:02x}{:02x}{:02x}".format(*BOARD)
    return (
        '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 100">'
        f'<rect width="100" height="100" rx="18" fill="{board}"/>{pegs}</svg>\n'
    )


def main() -> int:
    made = {
        "icon-192.png": png(draw(192, maskable=False)),
        "icon-512.png": png(draw(512, maskable=False)),
        "icon-maskable-512.png": png(draw(512, maskable=True)),
        "icon.svg": svg().encode(),
    }
    for name, data in made.items():
        (STATIC / name).write_bytes(data)
        print(f"{name}: {len(data):,} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
