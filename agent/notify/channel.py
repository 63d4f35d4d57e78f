"""One push channel: an apprise URL, the name it goes by where people look, and how it has fared.

The URL holds the channel's secret (a bot token, a webhook key, a password), so it is never shown:
logs, metrics and /readyz name a channel by its scheme and place (`tgram#1`), and apprise's own log
records pass through `SecretFilter`, which blanks every secret part of every configured URL.
"""

from __future__ import annotations

import logging
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from urllib.parse import parse_qsl, unquote, urlsplit

with warnings.catch_warnings():
    # apprise's e-mail plugin imports the stdlib's deprecated `imghdr` when its plugins load;
    # nothing of ours uses it, and the warning would fail every run with warnings as errors
    warnings.filterwarnings("ignore", r"'imghdr' is deprecated", DeprecationWarning)
    import apprise

from ..errors import ConfigError
from ..models import utcnow

__all__ = ["Channel", "ChannelHealth", "SecretFilter", "secrets_of"]

# Schemes whose host is a server's address rather than a token.
_SERVER_SCHEMES = frozenset({"json", "jsons", "xml", "xmls", "form", "forms", "mailto", "mailtos", "ntfy", "ntfys"})


@dataclass(frozen=True, kw_only=True)
class ChannelHealth:
    name: str
    service: str
    sent: int
    failed: int
    consecutive_failures: int
    last_ok_at: datetime | None
    last_failure_at: datetime | None

    def public(self) -> dict[str, object]:
        return {"channel": self.name, "service": self.service, "sent": self.sent, "failed": self.failed,
                "consecutive_failures": self.consecutive_failures,
                "last_ok_at": self.last_ok_at.isoformat() if self.last_ok_at else None,
                "last_failure_at": self.last_failure_at.isoformat() if self.last_failure_at else None}


@dataclass
class Channel:
    """One apprise URL, sent to on its own (its failures are its alone)."""

    name: str
    plugin: apprise.plugins.NotifyBase = field(repr=False)
    sent: int = 0
    failed: int = 0
    consecutive_failures: int = 0
    last_ok_at: datetime | None = None
    last_failure_at: datetime | None = None

    @classmethod
    def parse(cls, url: str, place: int) -> Channel:
        """The channel of `url`; a URL apprise cannot read is a ConfigError naming its place, not the URL."""
        with _plugins_loading():
            plugin = apprise.Apprise.instantiate(url.strip())
        scheme = urlsplit(url.strip()).scheme.lower() or "?"
        if plugin is None:
            raise ConfigError(f"TRENDLENS_NOTIFY_URLS: URL #{place} ({scheme}://…) is not one apprise can send to "
                              "(see https://github.com/caronc/apprise/wiki)")
        return cls(name=f"{scheme}#{place}", plugin=plugin)

    @property
    def markdown(self) -> bool:
        # a plugin names one format, or (apprise 2) every format it accepts
        formats = self.plugin.notify_format
        accepted = formats if isinstance(formats, tuple | list | set | frozenset) else (formats,)
        return apprise.NotifyFormat.MARKDOWN in accepted

    def record(self, ok: bool) -> None:
        if ok:
            self.sent += 1
            self.consecutive_failures = 0
            self.last_ok_at = utcnow()
        else:
            self.failed += 1
            self.consecutive_failures += 1
            self.last_failure_at = utcnow()

    def health(self) -> ChannelHealth:
        return ChannelHealth(name=self.name, service=str(self.plugin.service_name), sent=self.sent,
                             failed=self.failed, consecutive_failures=self.consecutive_failures,
                             last_ok_at=self.last_ok_at, last_failure_at=self.last_failure_at)


@contextmanager
def _plugins_loading() -> Iterator[None]:
    """apprise loads a scheme's plugin on first use: the same `imghdr` warning, silenced the same way."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", r"'imghdr' is deprecated", DeprecationWarning)
        yield


def secrets_of(url: str) -> set[str]:
    """The parts of a URL that may be secret: user, password, path segments and query values."""
    parts = urlsplit(url.strip())
    found = {parts.username or "", parts.password or ""}
    found |= {unquote(seg) for seg in parts.path.split("/")}
    if parts.scheme.lower() not in _SERVER_SCHEMES:  # elsewhere the "host" is often the token itself
        found |= {parts.netloc.rpartition("@")[2], parts.hostname or ""}
    found |= {v for _, v in parse_qsl(parts.query)}
    return {s for s in found if len(s) >= 4}


class SecretFilter(logging.Filter):
    """Blanks configured secrets in apprise's log records (its debug lines print URLs and paths)."""

    def __init__(self, secrets: set[str]) -> None:
        super().__init__()
        self.secrets = sorted(secrets, key=len, reverse=True)

    def filter(self, record: logging.LogRecord) -> bool:
        text = record.getMessage()
        redacted = text
        for secret in self.secrets:
            redacted = redacted.replace(secret, "****")
        if redacted != text:
            record.msg, record.args = redacted, None
        return True
