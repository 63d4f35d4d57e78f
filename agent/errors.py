"""Every exception TrendLens raises on purpose.

    TrendLensError
    ├── ConfigError            the user's input or configuration is wrong (fix it and retry)
    │   ├── UnknownNameError   a name not in a registry; lists the valid ones
    │   ├── DuplicateNameError a second item registered under a name already taken
    │   └── InputError         a bad file / record / request the user supplied
    ├── SourceError            one trend source failed; carries source and url
    │   ├── FetchError         transport or HTTP status failure (may be transient)
    │   ├── ParseError         the body is not in any shape this source knows
    │   ├── BlockedError       a captcha / visitor wall answered instead of data
    │   ├── UpstreamError      the platform answered with its own error envelope
    │   ├── TooLargeError      the body exceeded the size cap
    │   ├── CircuitOpenError   skipped: too many consecutive failures
    │   └── SourceDisabled     not configured (e.g. missing credentials)
    ├── OverloadError          a bounded queue is full; retry later (HTTP 429)
    ├── StoppingError          work abandoned because the service is stopping (HTTP 503)
    ├── ModelError             an embedding model could not be loaded or run
    └── StoreError             the database could not be written or read

A source that tried several endpoints raises its preferred endpoint's error, with every
endpoint's failure as its `__cause__`, one `ExceptionGroup`.

User and config mistakes (`ConfigError`) are kept apart from runtime failures so the
CLI and API can answer "fix your input" rather than "something broke".
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlsplit, urlunsplit

__all__ = [
    "BlockedError",
    "CircuitOpenError",
    "ConfigError",
    "DuplicateNameError",
    "FetchError",
    "InputError",
    "ModelError",
    "OverloadError",
    "ParseError",
    "SourceDisabled",
    "SourceError",
    "StoppingError",
    "StoreError",
    "TooLargeError",
    "TrendLensError",
    "UnknownNameError",
    "UpstreamError",
    "shown_url",
]

_URL = re.compile(r"\b[a-z][a-z0-9+.-]*://[^\s'\"<>)]+", re.I)
# a path part that reads as a credential: long, or a mix of letters and digits like a token or a key
_TOKENISH = re.compile(r"[A-Za-z0-9_\-.~=+:]{32,}|(?=[^/]*\d)(?=[^/]*[A-Za-z])[A-Za-z0-9_\-~=+:]{16,}")


def shown_url(url: str) -> str:
    """`url` as an error may show it: no user or password, no query or fragment, and no path part that
    looks like a token (an aggregator URL may carry its key in any of them)."""
    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
        port = f":{parts.port}" if parts.port else ""
    except ValueError:
        return "<a URL that could not be read>"
    path = "/".join("…" if _TOKENISH.fullmatch(seg) else seg for seg in parts.path.split("/"))
    if ":" in host:
        host = f"[{host}]"
    return urlunsplit((parts.scheme, host + port, path, "…" if parts.query else "", ""))


def _without_secrets(text: str) -> str:
    return _URL.sub(lambda m: shown_url(m.group(0)), text)


class TrendLensError(Exception):
    """Root of every deliberate TrendLens error."""


class ConfigError(TrendLensError):
    """A mistake in configuration or user input."""


class UnknownNameError(ConfigError):
    def __init__(self, kind: str, name: str, valid: list[str] | tuple[str, ...]) -> None:
        self.kind, self.name, self.valid = kind, name, tuple(valid)
        super().__init__(f"unknown {kind} {name!r}; valid: {', '.join(sorted(valid))}")


class DuplicateNameError(ConfigError):
    def __init__(self, kind: str, name: str) -> None:
        self.kind, self.name = kind, name
        super().__init__(f"{kind} {name!r} is registered already")


class InputError(ConfigError):
    """A user-supplied file, record or request body is malformed."""


class SourceError(TrendLensError):
    """A failure of one trend source. `str()` is one line naming the source."""

    kind = "error"

    def __init__(self, source: str, message: str, *, url: str | None = None) -> None:
        # what is shown (logs, /v1/sources, the stored last_error) never holds a URL's credentials
        self.source, self.message, self.url = source, _without_secrets(message), url
        where = f" ({shown_url(url)})" if url else ""
        super().__init__(f"{source}: {self.message}{where}")

    def _fields(self) -> dict[str, Any]:
        """Keyword arguments beyond source, message and url that rebuild this error."""
        return {}

    def retold(self, message: str) -> SourceError:
        """The same error (same class and fields) with another message; `self` is left as it was."""
        return type(self)(self.source, message, url=self.url, **self._fields())


class FetchError(SourceError):
    kind = "fetch"

    def __init__(
        self, source: str, message: str, *, url: str | None = None, transient: bool = True,
        status: int | None = None, retry_after: float | None = None,
    ) -> None:
        self.transient, self.status = transient, status
        self.retry_after = retry_after  # seconds the upstream asked us to wait (its Retry-After), if it said
        super().__init__(source, message, url=url)

    def _fields(self) -> dict[str, Any]:
        return {"transient": self.transient, "status": self.status, "retry_after": self.retry_after}


class ParseError(SourceError):
    kind = "parse"


class BlockedError(SourceError):
    kind = "blocked"


class UpstreamError(SourceError):
    kind = "upstream"


class TooLargeError(SourceError):
    kind = "too_large"


class CircuitOpenError(SourceError):
    kind = "circuit_open"


class SourceDisabled(SourceError):
    kind = "disabled"


class OverloadError(TrendLensError):
    """A bounded queue is full; the caller should retry later."""


class StoppingError(TrendLensError):
    """A long piece of work (an index rebuild) was abandoned because the service is stopping."""


class ModelError(TrendLensError):
    """An embedding model could not be loaded or run."""


class StoreError(TrendLensError):
    """The topic store could not be read or written."""
