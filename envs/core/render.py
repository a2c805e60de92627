"""Shared drawing helpers for ``rgb_array`` renders (Pillow, from the ``render`` extra).

Games draw with :class:`Canvas` so that every board shares fonts, palette and conventions.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

from .game import BoardZooError

PLAYER_COLORS: list[tuple[int, int, int]] = [
    (220, 60, 60),
    (50, 110, 220),
    (60, 170, 80),
    (235, 190, 40),
    (150, 80, 200),
    (240, 130, 40),
    (40, 180, 190),
    (200, 90, 150),
]
"""Seat colours, seat 0 first (red, blue, green, yellow, purple, orange, teal, pink)."""
INK = (30, 30, 35)
PAPER = (246, 242, 232)


def _pil():
    try:
        from PIL import Image, ImageDraw, ImageFont
    except ImportError as e:  # pragma: no cover - depends on the install
        raise BoardZooError("rgb_array rendering needs Pillow: pip install 'boardzoo[render]'") from e
    return Image, ImageDraw, ImageFont


_FONTS: dict[int, object] = {}


def font(size: int = 14):
    """A TrueType font of ``size`` px (DejaVu if present, else Pillow's scalable default)."""
    if size not in _FONTS:
        _, _, ImageFont = _pil()
        f = None
        for name in ("DejaVuSans.ttf", "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"):
            try:
                f = ImageFont.truetype(name, size)
                break
            except OSError:
                continue
        if f is None:
            try:
                f = ImageFont.load_default(size=size)
            except TypeError:  # Pillow < 10.1
                f = ImageFont.load_default()
        _FONTS[size] = f
    return _FONTS[size]


class Canvas:
    """A Pillow image with the drawing calls the games need."""

    def __init__(self, width: int, height: int, background: tuple[int, int, int] = PAPER):
        Image, ImageDraw, _ = _pil()
        self.image = Image.new("RGB", (int(width), int(height)), background)
        self.draw = ImageDraw.Draw(self.image)

    def text(self, xy: Sequence[float], s: str, size: int = 14, fill=INK, anchor: str = "la") -> None:
        self.draw.text(tuple(xy), s, fill=fill, font=font(size), anchor=anchor)

    def rect(self, box: Sequence[float], fill=None, outline=INK, width: int = 1, radius: int = 0) -> None:
        if radius:
            self.draw.rounded_rectangle(tuple(box), radius=radius, fill=fill, outline=outline, width=width)
        else:
            self.draw.rectangle(tuple(box), fill=fill, outline=outline, width=width)

    def circle(self, center: Sequence[float], r: float, fill=None, outline=INK, width: int = 1) -> None:
        x, y = center
        self.draw.ellipse((x - r, y - r, x + r, y + r), fill=fill, outline=outline, width=width)

    def line(self, points: Iterable[Sequence[float]], fill=INK, width: int = 1) -> None:
        self.draw.line([tuple(p) for p in points], fill=fill, width=width)

    def polygon(self, points: Iterable[Sequence[float]], fill=None, outline=INK) -> None:
        self.draw.polygon([tuple(p) for p in points], fill=fill, outline=outline)

    def to_array(self) -> np.ndarray:
        return np.asarray(self.image, dtype=np.uint8).copy()


def save_png(rgb: np.ndarray, path: str) -> None:
    """Write an ``rgb_array`` frame to a PNG file."""
    Image, _, _ = _pil()
    Image.fromarray(rgb).save(path)
