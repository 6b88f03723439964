"""SVG board -> PNG bytes or an HxWx3 uint8 array, with resvg (the `viz` extra: resvg-py, pillow).

resvg needs no system libraries; it is given matplotlib's bundled DejaVu fonts when
matplotlib is installed, so text renders the same on a machine without system fonts.
"""
from __future__ import annotations

import io
from importlib.util import find_spec
from pathlib import Path

import numpy as np

EXTRA_HINT = 'pip install "nefertiti-env[viz]"'


def _font_dirs() -> list[str]:
    spec = find_spec("matplotlib")
    if spec is None or not spec.submodule_search_locations:
        return []
    fonts = Path(next(iter(spec.submodule_search_locations))) / "mpl-data" / "fonts" / "ttf"
    return [str(fonts)] if fonts.is_dir() else []


def svg_to_png(svg: str, zoom: float = 1.0) -> bytes:
    """PNG bytes of an SVG document (raises ImportError naming the `viz` extra without resvg-py)."""
    try:
        import resvg_py
    except ImportError:
        raise ImportError(f"drawing the board as an image needs resvg-py: {EXTRA_HINT}") from None
    return bytes(resvg_py.svg_to_bytes(svg_string=svg, zoom=zoom, font_dirs=_font_dirs(), background="white"))


def svg_to_rgb(svg: str, zoom: float = 1.0) -> np.ndarray:
    """The SVG rasterised as an HxWx3 uint8 array (PettingZoo's rgb_array convention)."""
    try:
        from PIL import Image
    except ImportError:
        raise ImportError(f"decoding the board image needs pillow: {EXTRA_HINT}") from None
    with Image.open(io.BytesIO(svg_to_png(svg, zoom))) as image:
        return np.asarray(image.convert("RGB"), dtype=np.uint8)
