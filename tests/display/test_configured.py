"""The displays a configuration asks for: MentraOS gives a display and, apart, its app server."""

from __future__ import annotations

import pytest

from agent.display import Display, HudHub, MentraApp, MentraDisplay
from agent.display.configured import DISPLAYS, build_displays
from agent.errors import ConfigError, DuplicateNameError, UnknownNameError
from agent.settings import Settings


async def test_mentra_is_a_display_backed_by_its_app(tmp_path):
    hud = HudHub()
    settings = Settings(data_dir=tmp_path, displays=["stdout", "mentra"], mentra_api_key="k")
    displays, app = build_displays(settings, hud)
    assert list(displays) == ["hud", "stdout", "mentra"] and displays["hud"] is hud
    assert isinstance(app, MentraApp) and displays["mentra"] is app.display
    assert isinstance(app.display, MentraDisplay) and isinstance(app.display, Display)
    assert not isinstance(app, Display)  # the app server is connections and input, not a display
    await app.aclose()


def test_a_display_missing_its_settings_says_which(tmp_path):
    with pytest.raises(ConfigError, match="display 'mentra' needs TRENDLENS_MENTRA_API_KEY"):
        build_displays(Settings(data_dir=tmp_path, displays=["mentra"]), HudHub())
    with pytest.raises(ConfigError, match="display 'webhook' needs TRENDLENS_WEBHOOK_URL"):
        build_displays(Settings(data_dir=tmp_path, displays=["webhook"]), HudHub())


async def test_every_registered_display_is_built_from_the_settings(tmp_path):
    hud = HudHub()
    settings = Settings(data_dir=tmp_path, displays=list(DISPLAYS), mentra_api_key="k",
                        webhook_url="https://example.com/hook", webhook_secret="s")
    displays, app = build_displays(settings, hud)
    assert list(displays) == list(DISPLAYS) and all(isinstance(d, Display) for d in displays.values())
    assert app is not None
    await app.aclose()
    await displays["webhook"].aclose()


def test_an_unknown_display_lists_the_valid_names(tmp_path):
    with pytest.raises(UnknownNameError, match="unknown display 'smoke-signals'; valid: hud, mentra, stdout, webhook"):
        build_displays(Settings(data_dir=tmp_path, displays=["smoke-signals"]), HudHub())


def test_a_second_display_of_one_name_is_refused():
    with pytest.raises(DuplicateNameError, match="display 'stdout' is registered already"):
        DISPLAYS.register("stdout", lambda wiring: wiring.hud)
