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
    live, glasses = settings.live, settings.mentra
    for name in live.displays:
        if name == "stdout":
            displays[name] = StdoutDisplay()
        elif name == "webhook":
            if not live.webhook_url or not live.webhook_secret:
                raise ConfigError("display 'webhook' needs TRENDLENS_WEBHOOK_URL and TRENDLENS_WEBHOOK_SECRET")
            displays[name] = WebhookDisplay(live.webhook_url, client=httpx.AsyncClient(timeout=5.0),
                                            secret=live.webhook_secret.get_secret_value())
        elif name == "mentra":
            if not glasses.api_key:
                raise ConfigError("display 'mentra' needs TRENDLENS_MENTRA_API_KEY (the app's MentraOS API key)")
            config = MentraConfig(package_name=glasses.package, api_key=glasses.api_key.get_secret_value(),
                                  languages=tuple(glasses.languages), allowed_hosts=tuple(glasses.allowed_hosts))
            mentra = MentraApp(config, on_transcript=on_transcript)
            displays[name] = mentra.display
        elif name != "hud":
            raise UnknownNameError("display", name, ("stdout", "webhook", "hud", "mentra"))
    return displays, mentra
