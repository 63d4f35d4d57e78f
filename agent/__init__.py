"""TrendLens (热梗透视镜): trending topics matched to the live conversation, captioned for smart glasses."""

from .errors import TrendLensError
from .models import Topic
from .settings import Settings, get_settings

__all__ = ["Settings", "Topic", "TrendLensError", "get_settings"]
__version__ = "0.1.0"
