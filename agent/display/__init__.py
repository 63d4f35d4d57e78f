"""Where captions go: every display adapter. The names a configuration may choose are
`configured.DISPLAYS`."""

from __future__ import annotations

from .base import DEFAULT_SESSION, Display
from .halo import HaloDisplay
from .hud import HudHub, HudSubscription
from .mentra import Heard, MentraApp, MentraConfig, TranscriptHandler
from .mentra_display import MentraDisplay
from .stdout import StdoutDisplay, frame_caption
from .webhook import WebhookDisplay, WebhookStats, sign_body

__all__ = [
    "DEFAULT_SESSION",
    "Display",
    "HaloDisplay",
    "Heard",
    "HudHub",
    "HudSubscription",
    "MentraApp",
    "MentraConfig",
    "MentraDisplay",
    "StdoutDisplay",
    "TranscriptHandler",
    "WebhookDisplay",
    "WebhookStats",
    "frame_caption",
    "sign_body",
]
