"""The scale-out settings: a bad value is one line naming the variable; URLs never show a password."""

from __future__ import annotations

import pytest

from agent.errors import ConfigError
from agent.settings import Settings, get_settings
from agent.store import SQLiteStore, open_store, store_location


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
    from agent.testing import free_port

    url = f"postgresql://trendlens:s3cret@127.0.0.1:{free_port()}/trendlens"
    with pytest.raises(StoreError, match=r"cannot open store 'postgresql://trendlens:\*\*\*@127") as caught:
        open_store(Settings(data_dir=tmp_path, database_url=url))
    assert "s3cret" not in str(caught.value) and "\n" not in str(caught.value)
