"""The displays a configuration asks for (`TRENDLENS_DISPLAYS`), built once at start."""

from __future__ import annotations

import httpx

from ..errors import ConfigError, UnknownNameError
from ..settings import Settings
from .base import Display
from .mentra import MentraApp, MentraConfig, TranscriptHandler
from .stdout import StdoutDisplay
from .webhook import WebhookDisplay

__all__ = ["build_displays"]


def build_displays(settings: Settings, hud: Display, *,
                   on_transcript: TranscriptHandler | None = None) -> tuple[dict[str, Display], MentraApp | None]:
    """The HUD hub always; stdout, webhook and MentraOS glasses when configured.

    Also returns the MentraOS app server when `mentra` is configured: it is the glasses'
    connections and input side (transcripts → `on_transcript`); only its `.display` is a display.
    """
    displays: dict[str, Display] = {"hud": hud}
    mentra = None
    s = settings
    for name in s.displays:
        if name == "stdout":
            displays[name] = StdoutDisplay()
        elif name == "webhook":
            if not s.webhook_url or not s.webhook_secret:
                raise ConfigError("display 'webhook' needs TRENDLENS_WEBHOOK_URL and TRENDLENS_WEBHOOK_SECRET")
            displays[name] = WebhookDisplay(s.webhook_url, client=httpx.AsyncClient(timeout=5.0),
                                            secret=s.webhook_secret.get_secret_value())
        elif name == "mentra":
            if not s.mentra_api_key:
                raise ConfigError("display 'mentra' needs TRENDLENS_MENTRA_API_KEY (the app's MentraOS API key)")
            config = MentraConfig(package_name=s.mentra_package, api_key=s.mentra_api_key.get_secret_value(),
                                  languages=tuple(s.mentra_languages), allowed_hosts=tuple(s.mentra_allowed_hosts))
            mentra = MentraApp(config, on_transcript=on_transcript)
            displays[name] = mentra.display
        elif name != "hud":
            raise UnknownNameError("display", name, ("stdout", "webhook", "hud", "mentra"))
    return displays, mentra
