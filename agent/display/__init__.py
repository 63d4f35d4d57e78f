"""Where captions go. `DISPLAYS` is the one registry of adapter names → factories."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..errors import UnknownNameError
from .base import DEFAULT_SESSION, Display
from .halo import HaloDisplay
from .hud import HudHub, HudSubscription
from .mentra import Heard, MentraApp, MentraConfig, TranscriptHandler
from .mentra_display import MentraDisplay
from .stdout import StdoutDisplay, frame_caption
from .webhook import WebhookDisplay, WebhookStats, sign_body

__all__ = [
    "DEFAULT_SESSION",
    "DISPLAYS",
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
    "create_display",
    "frame_caption",
    "sign_body",
]

# Factories take the adapter's own keyword arguments (see each class):
#   stdout(stream=None) · hud(queue_size=8) · webhook(url, client=, secret=, ...)
#   mentra(config: MentraConfig, on_transcript=None): the display of a new MentraApp (its `.app`)
#   halo(link: BrilliantLink, profile="halo" | "frame", session_id=None): Halo or Frame glasses; `start()` first
DISPLAYS: dict[str, Callable[..., Display]] = {
    "stdout": StdoutDisplay,
    "hud": HudHub,
    "webhook": WebhookDisplay,
    "mentra": lambda *args, **kwargs: MentraApp(*args, **kwargs).display,
    "halo": HaloDisplay,
}


def create_display(name: str, /, *args: Any, **kwargs: Any) -> Display:
    """Build the adapter registered as `name`; UnknownNameError lists the valid ones."""
    try:
        factory = DISPLAYS[name]
    except KeyError:
        raise UnknownNameError("display", name, tuple(DISPLAYS)) from None
    return factory(*args, **kwargs)
