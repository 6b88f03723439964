"""Pictures of the table: the board as SVG (the source), rasterised to PNG or an RGB array.

Depends on the rules core only (and the card names of the encoding layer); no RL imports.
"""
from .board import board_svg
from .raster import svg_to_png, svg_to_rgb

__all__ = ["board_svg", "svg_to_png", "svg_to_rgb"]
