"""Picture Perfect: rules (rules.py), component data (data.py), the computed photo (photo.py, svg.py)."""

from .rules import GAME, PicturePerfect
from .svg import photo_svg

__all__ = ["GAME", "PicturePerfect", "photo_svg"]
