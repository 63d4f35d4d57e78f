"""One push channel: an apprise URL, the name it goes by where people look, and how it has fared.

The URL holds the channel's secret (a bot token, a webhook key, a password), so it is never shown:
logs, metrics and /readyz name a channel by its scheme and place (`tgram#1`), and apprise's own log
records pass through `SecretFilter`, which blanks every secret part of every configured URL.

Who set a channel decides what it may be (`ChannelPolicy`): the operator's own
(`TRENDLENS_NOTIFY_URLS`) may be any apprise URL; a key's (`PUT /v1/watch`) only a scheme `CHANNELS`
registers for its role, with no option that chooses a method, a header, a payload field, a template or key
file on the server's disk, or a timeout, and its sends reach only public addresses (`sending.py`).
Every channel gets the server's socket timeouts and follows no redirect, whatever its URL asks.
"""

from __future__ import annotations

import logging
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal
from urllib.parse import parse_qsl, unquote, urlsplit

with warnings.catch_warnings():
    # apprise's e-mail plugin imports the stdlib's deprecated `imghdr` when its plugins load;
    # nothing of ours uses it, and the warning would fail every run with warnings as errors
    warnings.filterwarnings("ignore", r"'imghdr' is deprecated", DeprecationWarning)
    import apprise
    from apprise.utils.parse import parse_url

from ..errors import ConfigError
from ..models import utcnow
from ..registry import Registry

__all__ = ["ADMIN_KEY", "CHANNELS", "CLIENT_KEY", "OPERATOR", "ROLES", "Channel", "ChannelHealth", "ChannelKind",
           "ChannelPolicy", "Role", "SecretFilter", "secrets_of", "settable"]

CONNECT_TIMEOUT_S = 3.0  # every channel's, whatever its URL's `cto`/`rto` say
READ_TIMEOUT_S = 5.0
MAX_URL_CHARS = 2_000

Role = Literal["client", "admin", "operator"]
ROLES: tuple[Role, ...] = ("client", "admin", "operator")  # each may set every channel of those before it


@dataclass(frozen=True, kw_only=True)
class ChannelKind:
    """One apprise scheme: the least role that may set it, and how its URL is read."""

    least_role: Role
    # the URL's host is a server's address (`json://host/path`), not a token (`tgram://bot-token/…`),
    # so it is not blanked in logs as a secret
    host_is_address: bool = False

    def settable_by(self, role: Role) -> bool:
        return ROLES.index(self.least_role) <= ROLES.index(role)


_KEY = ChannelKind(least_role="client")
_KEY_AT_HOST = ChannelKind(least_role="client", host_is_address=True)
_ADMIN_AT_HOST = ChannelKind(least_role="admin", host_is_address=True)
_OPERATOR_AT_HOST = ChannelKind(least_role="operator", host_is_address=True)

#: The push channels, by apprise scheme. A key may set only what its role may (`ChannelPolicy.check`
#: reads this); the operator's own (`TRENDLENS_NOTIFY_URLS`) may be any scheme apprise speaks, named
#: here or not, and this says only how such a URL is read (`secrets_of`).
CHANNELS: Registry[ChannelKind] = Registry("push channel", (
    # A key's: each names a public service (its host fixed, or a host the key gives, checked at send
    # time) and reads nothing from the server's disk. Not e-mail (`smtp=` names any host and port),
    # syslog or anything speaking its own protocol to a host of the key's choosing.
    ("tgram", _KEY), ("discord", _KEY), ("slack", _KEY), ("pover", _KEY), ("pbul", _KEY),
    ("ntfy", _KEY_AT_HOST), ("ntfys", _KEY_AT_HOST), ("json", _KEY_AT_HOST), ("jsons", _KEY_AT_HOST),
    ("gotify", _KEY), ("gotifys", _KEY), ("bark", _KEY), ("barks", _KEY), ("dingtalk", _KEY),
    ("wecombot", _KEY), ("feishu", _KEY), ("lark", _KEY), ("schan", _KEY), ("pushplus", _KEY),
    ("pushdeer", _KEY), ("wxpusher", _KEY), ("matrix", _KEY), ("matrixs", _KEY),
    # An admin key may also post forms and XML (over HTTP, so the address check holds).
    ("form", _ADMIN_AT_HOST), ("forms", _ADMIN_AT_HOST), ("xml", _ADMIN_AT_HOST), ("xmls", _ADMIN_AT_HOST),
    # E-mail speaks SMTP to a host of the URL's choosing, which that check does not see: the operator's only.
    ("mailto", _OPERATOR_AT_HOST), ("mailtos", _OPERATOR_AT_HOST),
))


def settable(role: Role) -> list[str]:
    """The schemes `role` may set, sorted."""
    return sorted(name for name, kind in CHANNELS.items() if kind.settable_by(role))


# Options a client's URL may carry: how the message is shaped, nothing about where or how it is sent.
CLIENT_OPTIONS = frozenset({"format", "overflow", "emojis", "priority", "tags", "title"})
# Options no key may give: files read from the server's disk, and the server's own timeouts.
NEVER_FROM_A_KEY = frozenset({"template", "tpl", "keyfile", "key_file", "cert", "certfile", "pgpkey", "pgp",
                              "attach", "rto", "cto", "redirect", "verify"})


@dataclass(frozen=True)
class ChannelPolicy:
    """What a channel set by `role` may be."""

    role: Role
    options: frozenset[str] | None  # the query options accepted (None: any but NEVER_FROM_A_KEY)
    public_only: bool  # sends connect only to global addresses
    trusted: bool = False  # the operator's own: none of the checks

    def check(self, url: str, place: int) -> None:
        """ConfigError, naming the channel's place and scheme (never its URL), for what `role` may not set."""
        if self.trusted:
            return
        parts = urlsplit(url)
        scheme = parts.scheme.lower()
        where = f"channel #{place} ({scheme or '?'}://…)"
        if len(url) > MAX_URL_CHARS:
            raise ConfigError(f"{where}: longer than {MAX_URL_CHARS} characters")
        kind = CHANNELS.get(scheme)
        if kind is None or not kind.settable_by(self.role):
            raise ConfigError(f"{where}: a {self.role} key may not use {scheme or 'no'} channels; "
                              f"it may use {', '.join(settable(self.role))}")
        # the options as apprise itself reads them (it also parts them at `;` and reads past a `#`),
        # and as a URL parser does
        parsed = parse_url(url, verify_host=False) or {}
        names = [name for name, _ in parse_qsl(parts.query, keep_blank_values=True)]
        names += [str(name) for name in parsed.get("qsd", {})]
        names += [mark + str(name) for mark in "+-:" for name in parsed.get("qsd" + mark, {})]
        for name in names:
            option = name.lower()
            if option[:1] in ("+", "-", ":") or option in NEVER_FROM_A_KEY or (
                    self.options is not None and option not in self.options):
                allowed = f"; a {self.role} key may give {', '.join(sorted(self.options))}" if self.options else ""
                raise ConfigError(f"{where}: the option {name[:40]!r} is not accepted from a key{allowed}")


OPERATOR = ChannelPolicy("operator", None, public_only=False, trusted=True)
ADMIN_KEY = ChannelPolicy("admin", None, public_only=True)
CLIENT_KEY = ChannelPolicy("client", CLIENT_OPTIONS, public_only=True)


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

    public_only: bool = False  # a key's: sent only to global addresses

    @classmethod
    def parse(cls, url: str, place: int, policy: ChannelPolicy = OPERATOR) -> Channel:
        """The channel of `url`; a URL apprise cannot read, or `policy` refuses, is a ConfigError
        naming its place, not the URL."""
        url = url.strip()
        try:
            scheme = urlsplit(url).scheme.lower() or "?"
        except ValueError:
            scheme = "?"
        where = "TRENDLENS_NOTIFY_URLS: URL" if policy.trusted else "channel"
        try:
            policy.check(url, place)
            with _plugins_loading():
                # sent in the caller's thread (the notifier's pool, under its guard), never in
                # apprise's own shared thread pool
                asset = apprise.AppriseAsset(async_mode=False, service_timeout=0)
                plugin = apprise.Apprise.instantiate(url, asset=asset)
        except ValueError:  # a URL urllib cannot split (`json://[::1`)
            plugin = None
        if plugin is None:
            raise ConfigError(f"{where} #{place} ({scheme}://…) is not one apprise can send to "
                              "(see https://github.com/caronc/apprise/wiki)")
        # the server's deadlines, whatever the URL asked (`?rto=3600`), and no redirect followed
        plugin.socket_connect_timeout = CONNECT_TIMEOUT_S
        plugin.socket_read_timeout = READ_TIMEOUT_S
        plugin.redirects = False
        return cls(name=f"{scheme}#{place}", plugin=plugin, public_only=policy.public_only)

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
    try:
        parts = urlsplit(url.strip())
    except ValueError:  # not a URL urllib can split: the whole of it is the secret
        return {url.strip()} if len(url.strip()) >= 4 else set()
    found = {parts.username or "", parts.password or ""}
    found |= {unquote(seg) for seg in parts.path.split("/")}
    kind = CHANNELS.get(parts.scheme.lower())
    if kind is None or not kind.host_is_address:  # elsewhere the "host" is often the token itself
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
