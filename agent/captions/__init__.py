"""Captions: fitting trending topics into the few short lines a pair of glasses can show."""

from .caption import Caption
from .fit import fit_text
from .graphemes import clean_text, graphemes
from .profiles import PROFILES, DisplayProfile, get_profile, resolve_profile
from .summarize import summarize
from .templates import compose_caption, format_heat, meta_line

__all__ = [
    "PROFILES",
    "Caption",
    "DisplayProfile",
    "clean_text",
    "compose_caption",
    "fit_text",
    "format_heat",
    "get_profile",
    "graphemes",
    "meta_line",
    "resolve_profile",
    "summarize",
]
