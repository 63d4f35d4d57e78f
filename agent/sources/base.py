"""What every trend source is: a name, its endpoints (preferred first), and a parser.

A source reads no settings of its own accord: it is given its `SourceOptions` (its interval,
and what that platform alone needs: a cookie, credentials, a region), made from the settings
by `Source.from_settings`; built without them it parses with the defaults.

A source never does HTTP itself: `fetch` receives a `Fetcher` (agent/sources/fetcher.py;
`HttpFetcher` in practice: retries, size cap, conditional GET) built around one shared
`httpx.AsyncClient`, so tests swap in `httpx.MockTransport` and nothing is patched.
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Self
from urllib.parse import urlsplit

import httpx
from pydantic import ValidationError

from ..errors import BlockedError, FetchError, ParseError, SourceError, UpstreamError
from ..models import Lang, Topic, detect_lang, stable_id, utcnow
from .heat import parse_heat

if TYPE_CHECKING:
    from ..settings import Settings
    from .fetcher import Fetcher

__all__ = [
    "Endpoint",
    "Source",
    "SourceOptions",
    "decode_text",
    "dig",
    "ensure_not_blocked",
    "check_envelope",
    "link_in_domains",
    "load_json",
]

# Phrases of the interstitials platforms serve instead of data (visitor walls,
# captchas, risk control). Seeing one means "blocked", never "zero topics".
_BLOCK_MARKERS = (
    "Sina Visitor System",
    "passport.weibo.com/visitor",
    "验证码",
    "安全验证",
    "访问异常",
    "请完成验证",
    "captcha",
    "Just a moment...",
    "cf-browser-verification",
    "Access Denied",
)


@dataclass(frozen=True)
class Endpoint:
    """One way to ask a platform for its hot list."""

    url: str
    name: str = "default"
    headers: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True, kw_only=True)
class SourceOptions:
    """What a source takes from the settings: its fetch interval. A platform that needs more
    (a cookie, credentials, a region) subclasses this beside its source and reads it in
    `from_settings`."""

    interval_s: int | None = None  # TRENDLENS_INTERVAL_OVERRIDES for this source; None: the source's own

    @classmethod
    def from_settings(cls, settings: Settings, name: str) -> Self:
        return cls(interval_s=settings.fetch.interval_overrides.get(name))


class Source(ABC):
    """Base class of every source module. Subclasses set the ClassVars and `parse`."""

    name: ClassVar[str]
    title: ClassVar[str]  # human name, e.g. "Weibo hot search"
    lang: ClassVar[Lang]
    interval_s: ClassVar[int] = 600
    # Hosts (and their subdomains) whose links this source may emit.
    domains: ClassVar[tuple[str, ...]] = ()
    # Default file of the synthetic demo snapshot (agent/synthetic/snapshot/<name>/) served when replaying.
    replay: ClassVar[str | None] = None
    options_type: ClassVar[type[SourceOptions]] = SourceOptions

    def __init__(self, options: SourceOptions | None = None) -> None:
        if options is not None and not isinstance(options, self.options_type):  # e.g. the whole Settings
            raise TypeError(f"{self.name} takes {self.options_type.__name__}, not {type(options).__name__}; "
                            f"{type(self).__name__}.from_settings(settings) makes them")
        self.options = options if options is not None else self.options_type()

    @classmethod
    def from_settings(cls, settings: Settings) -> Self:
        """This source with the options the settings give it."""
        return cls(cls.options_type.from_settings(settings, cls.name))

    # -- configuration -------------------------------------------------
    def endpoints(self) -> list[Endpoint]:
        """Endpoints to try, preferred first."""
        raise NotImplementedError

    def disabled_reason(self, *, replaying: bool = False) -> str | None:
        """Why this source cannot run as configured (e.g. missing credentials), or None. `replaying`:
        its requests are answered from a snapshot (credentials are not needed then)."""
        return None

    @property
    def interval(self) -> int:
        return int(self.interval_s if self.options.interval_s is None else self.options.interval_s)

    # -- work ------------------------------------------------------------
    @abstractmethod
    def parse(self, body: bytes, *, url: str | None = None) -> list[Topic]:
        """Parse one recorded/fetched body of any shape this source knows.

        Raises ParseError for an unknown shape, BlockedError for a captcha or
        visitor wall, UpstreamError for the platform's own error envelope.
        """

    def parse_body(self, body: bytes, *, url: str | None = None) -> list[Topic]:
        """`parse`, with any slip on a shape nobody foresaw reported as a ParseError.

        Upstreams change without notice; a field of an unexpected type must read as
        "this source's format changed", never as a crash of the caller.
        """
        try:
            return self.parse(body, url=url)
        except SourceError:
            raise
        except (TypeError, ValueError, AttributeError, KeyError, IndexError, RecursionError) as exc:
            raise ParseError(self.name, f"unexpected response shape ({type(exc).__name__}: {exc})"[:300],
                             url=url) from None

    async def fetch(self, http: Fetcher) -> list[Topic]:
        """Fetch the hot list: each endpoint in turn until one parses."""
        failures: list[SourceError] = []
        for endpoint in self.endpoints():
            try:
                body = await http.get(self.name, endpoint.url, headers=endpoint.headers)
                return self.parse_body(body, url=endpoint.url)
            except SourceError as exc:
                failures.append(exc)
        raise _combine(self.name, failures)

    def replay_case(self, request: httpx.Request) -> str | None:
        """Snapshot file answering `request` when replaying offline."""
        return self.replay

    # -- helpers for subclasses -------------------------------------------
    def topic(self, *, item_id: Any, title: Any, **fields: Any) -> Topic:
        """Build a Topic of this source; heat text is parsed, the id made stable.

        Upstream fields are coerced defensively (a number where text was expected,
        a list where a link was): a strange value is dropped, never a crash. An item
        with no usable title is a ParseError naming the source.
        """
        heat_text = _scalar_text(fields.pop("heat_text", None))
        heat = fields.pop("heat", None)
        heat = parse_heat(heat if heat is not None else heat_text)
        title_text = _scalar_text(title)
        if not title_text or not title_text.strip():
            raise ParseError(self.name, "an item has no usable title")
        for key in ("summary", "url"):
            if key in fields:
                fields[key] = _scalar_text(fields[key]) or None
        if "rank" in fields:
            rank = fields["rank"]
            fields["rank"] = rank if isinstance(rank, int) and not isinstance(rank, bool) and rank > 0 else None
        if not isinstance(fields.get("extra", {}), dict):
            fields["extra"] = {}
        lang = fields.pop("lang", None) or _lang_for(title_text, self.lang)
        item = _scalar_text(item_id)
        try:
            return Topic(
                source=self.name,
                item_id=item if item else stable_id(title_text),
                title=title_text,
                heat=heat,
                heat_text=heat_text,
                lang=lang,
                fetched_at=fields.pop("fetched_at", None) or utcnow(),
                **fields,
            )
        except ValidationError as exc:
            err = exc.errors()[0]
            raise ParseError(self.name, f"an item has an unusable {'.'.join(map(str, err['loc']))!r}") from None

    def link_allowed(self, url: str | None) -> bool:
        """True for an http(s) link whose host belongs to this source's domains."""
        return link_in_domains(url, self.domains)


def _scalar_text(value: Any) -> str | None:
    """Text of a scalar upstream value; None for missing, booleans and containers."""
    if value is None or isinstance(value, bool | dict | list):
        return None
    if isinstance(value, float) and value != value:  # NaN
        return None
    return str(value)


def link_in_domains(url: Any, domains: tuple[str, ...]) -> bool:
    if not url or not isinstance(url, str):
        return False
    try:
        parts = urlsplit(url)
    except ValueError:
        return False
    # userinfo ("https://weibo.com@evil.example") is how look-alike links hide their real host
    if parts.scheme not in ("http", "https") or "@" in parts.netloc or not parts.hostname:
        return False
    host = parts.hostname.lower().rstrip(".")
    return any(host == d or host.endswith("." + d) for d in domains)


def _lang_for(title: str, default: Lang) -> Lang:
    guessed = detect_lang(title)
    # Chinese platforms carry Latin-only titles too ("iPhone 17"); keep the platform's language then.
    if default == "zh" and guessed in ("en", "other"):
        return "zh"
    return guessed if guessed != "other" else default


def _combine(source: str, failures: list[SourceError]) -> SourceError:
    if not failures:
        return FetchError(source, "no endpoint configured", transient=False)
    if len(failures) == 1:
        return failures[0]
    first = failures[0]
    rest = "; ".join(f"{f.kind}: {f.message}" for f in failures[1:])
    # Keep the preferred endpoint's error type so health shows the real cause; every endpoint's
    # own failure stays reachable as the cause, one exception group, preferred endpoint first.
    combined = first.retold(f"{first.message} (fallbacks failed too: {rest})")
    combined.__cause__ = ExceptionGroup(f"{source}: every endpoint failed", failures)
    return combined


def decode_text(body: bytes | str) -> str:
    """Bytes to text: UTF-8 (with or without BOM), else GB18030, which Chinese pages still use."""
    if isinstance(body, str):
        return body
    for encoding in ("utf-8-sig", "gb18030"):
        try:
            return body.decode(encoding)
        except UnicodeDecodeError:
            continue
    return body.decode("utf-8", errors="replace")


def ensure_not_blocked(source: str, text: str, url: str | None = None) -> None:
    """Raise BlockedError if `text` is a visitor wall or captcha page."""
    head = text[:20000]
    for marker in _BLOCK_MARKERS:
        if marker in head:
            raise BlockedError(source, f"blocked by the platform ({marker!r} page instead of data)", url=url)


def load_json(source: str, body: bytes | str, url: str | None = None) -> Any:
    """Decode a JSON body, telling an HTML error/captcha page apart from broken JSON."""
    text = decode_text(body).strip()
    if not text:
        raise ParseError(source, "empty body where JSON was expected", url=url)
    if text[0] == "<":
        ensure_not_blocked(source, text, url)
        raise ParseError(source, "got an HTML page where JSON was expected", url=url)
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ParseError(source, f"malformed JSON ({exc.msg} at line {exc.lineno})", url=url) from None
    except RecursionError:
        raise ParseError(source, "JSON nested too deeply", url=url) from None


def dig(source: str, data: Any, path: str, url: str | None = None) -> Any:
    """Follow a dotted path (`data.cards.0.content`); a missing step is a ParseError naming it."""
    node = data
    walked: list[str] = []
    for step in path.split("."):
        walked.append(step)
        try:
            node = node[int(step)] if isinstance(node, list) else node[step]
        except (KeyError, IndexError, TypeError, ValueError):
            raise ParseError(source, f"missing {'.'.join(walked)!r} in the response", url=url) from None
    return node


def check_envelope(source: str, data: Any, url: str | None, *, code_key: str, ok: tuple[Any, ...],
                   message_keys: tuple[str, ...] = ("message", "msg", "errmsg", "err_tips")) -> None:
    """Raise UpstreamError when a JSON envelope reports failure (`code != 0`, `errno` set...)."""
    if not isinstance(data, dict) or code_key not in data:
        return
    if data[code_key] in ok:
        return
    detail = next((str(data[k]) for k in message_keys if data.get(k)), "")
    raise UpstreamError(source, f"platform error {code_key}={data[code_key]!r}" + (f": {detail}" if detail else ""),
                        url=url)
