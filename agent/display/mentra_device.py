"""What the MentraOS cloud tells an app about the glasses and the wearer's settings.

The connection ack (`tpa_connection_ack` / `connection_ack`) carries `capabilities` (the
SDK's `Capabilities`: `modelName`, `hasDisplay`, and `display` — `screen` in older clouds —
with `maxTextLines`, `canDisplayBitmap`, `resolution {width, height}`, `isColor`) and
`settings` (the app's settings as the wearer set them: `[{key, value}, ...]`). Both change
mid-session: `capabilities_update {capabilities, modelName}` when other glasses connect,
`settings_update {settings}` when the wearer changes a setting in the phone app.

The SDK's capabilities say nothing about which glyphs a display's font holds; that comes from
the caption profile the model name picks (`DisplayProfile.cjk`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["OTHERS_ONLY_SETTING", "WEARER_SETTING", "DisplayCaps", "SpeakerFilter", "parse_caps"]

# The app's settings (declared in the app's MentraOS console; keys as written there).
OTHERS_ONLY_SETTING = "caption_others_only"  # toggle: caption only what other people say
WEARER_SETTING = "wearer_speaker_id"  # text: the diarization id of the wearer's voice, if known


@dataclass(frozen=True, kw_only=True)
class DisplayCaps:
    """The display part of the glasses' capabilities, as far as captions need it."""

    max_text_lines: int | None = None
    can_bitmap: bool = False
    width: int | None = None
    height: int | None = None
    is_color: bool = False


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


def parse_caps(capabilities: Any) -> DisplayCaps | None:
    """The display capabilities in a `capabilities` object; None when it names no display."""
    if not isinstance(capabilities, dict):
        return None
    display = capabilities.get("display")
    if not isinstance(display, dict):
        display = capabilities.get("screen")  # the field's name before SDK v2.1
    if not isinstance(display, dict):
        return None
    resolution = display.get("resolution")
    size = resolution if isinstance(resolution, dict) else {}
    return DisplayCaps(max_text_lines=_int(display.get("maxTextLines")),
                       can_bitmap=display.get("canDisplayBitmap") is True,
                       width=_int(size.get("width")), height=_int(size.get("height")),
                       is_color=display.get("isColor") is True)


def _setting(settings: Any, key: str) -> Any:
    if not isinstance(settings, list):
        return None
    for item in settings:
        if isinstance(item, dict) and item.get("key") == key:
            return item.get("value", item.get("defaultValue"))
    return None


@dataclass
class SpeakerFilter:
    """Which diarized lines a session captions. Off by default: every line is heard.

    With `others_only` on, the wearer's own lines are left out (they know what they said). The
    wearer is the speaker id the settings name, else the first id diarization gave in this
    session: the wearer's mouth is nearest the glasses' microphones, so theirs is the voice heard
    first and loudest. A line without a speaker id (no diarization) is always heard."""

    others_only: bool = False
    wearer: str | None = None
    wearer_set: bool = False  # named in the settings, not guessed

    def update(self, settings: Any) -> None:
        """Read the app's settings (the ack's, or a `settings_update`'s)."""
        if not isinstance(settings, list):
            return
        self.others_only = _setting(settings, OTHERS_ONLY_SETTING) is True
        named = _setting(settings, WEARER_SETTING)
        if isinstance(named, str | int) and not isinstance(named, bool) and str(named).strip():
            self.wearer, self.wearer_set = str(named).strip(), True
        elif self.wearer_set:
            self.wearer, self.wearer_set = None, False

    def hears(self, speaker_id: str | None) -> bool:
        """Whether a line by `speaker_id` is captioned (and learns the wearer from the first id)."""
        if speaker_id is None:
            return True
        if self.wearer is None:
            self.wearer = speaker_id
        return not (self.others_only and speaker_id == self.wearer)
