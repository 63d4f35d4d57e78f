"""The displays a configuration asks for (`TRENDLENS_DISPLAYS`), built once at start.

`DISPLAYS` is the one registry of the names `TRENDLENS_DISPLAYS` may hold, each with the function
that builds it from the settings. Halo and Frame glasses are not in it: they are driven over a
Bluetooth link a program opens (`display/halo.py`), not named in the settings.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import httpx

from ..errors import ConfigError
from ..registry import Registry
from ..settings import Settings
from .base import Display
from .mentra import MentraApp, MentraConfig, TranscriptHandler
from .mentra_display import MentraDisplay
from .stdout import StdoutDisplay
from .webhook import WebhookDisplay

__all__ = ["DISPLAYS", "DisplayWiring", "build_displays"]


@dataclass(frozen=True, kw_only=True)
class DisplayWiring:
    """What a display is built from: the settings, the HUD hub, where glasses' transcripts go."""

    settings: Settings
    hud: Display
    on_transcript: TranscriptHandler | None = None


def _hud(w: DisplayWiring) -> Display:
    return w.hud


def _stdout(w: DisplayWiring) -> Display:
    return StdoutDisplay()


def _webhook(w: DisplayWiring) -> Display:
    live = w.settings.live
    if not live.webhook_url or not live.webhook_secret:
        raise ConfigError("display 'webhook' needs TRENDLENS_WEBHOOK_URL and TRENDLENS_WEBHOOK_SECRET")
    return WebhookDisplay(live.webhook_url, client=httpx.AsyncClient(timeout=5.0),
                          secret=live.webhook_secret.get_secret_value())


def _mentra(w: DisplayWiring) -> Display:
    glasses = w.settings.mentra
    if not glasses.api_key:
        raise ConfigError("display 'mentra' needs TRENDLENS_MENTRA_API_KEY (the app's MentraOS API key)")
    config = MentraConfig(package_name=glasses.package, api_key=glasses.api_key.get_secret_value(),
                          languages=tuple(glasses.languages), allowed_hosts=tuple(glasses.allowed_hosts))
    return MentraApp(config, on_transcript=w.on_transcript).display


DISPLAYS: Registry[Callable[[DisplayWiring], Display]] = Registry("display", (
    ("hud", _hud), ("stdout", _stdout), ("webhook", _webhook), ("mentra", _mentra),
))


def build_displays(settings: Settings, hud: Display, *,
                   on_transcript: TranscriptHandler | None = None) -> tuple[dict[str, Display], MentraApp | None]:
    """The HUD hub always; each display `TRENDLENS_DISPLAYS` names, built by its `DISPLAYS` entry.

    Also returns the MentraOS app server when `mentra` is configured: it is the glasses'
    connections and input side (transcripts → `on_transcript`); only its `.display` is a display.
    """
    wiring = DisplayWiring(settings=settings, hud=hud, on_transcript=on_transcript)
    displays: dict[str, Display] = {"hud": hud}
    for name in settings.live.displays:
        if name not in displays:
            displays[name] = DISPLAYS[name](wiring)
    glasses = displays.get("mentra")
    app = glasses.app if isinstance(glasses, MentraDisplay) else None
    return displays, (app if isinstance(app, MentraApp) else None)
