"""No conversation text at rest by default: the store keeps a decision, its topic, a keyed hash
and the utterance's length; the words only when the operator opts in, and only for that long."""

from __future__ import annotations

import logging
from datetime import timedelta

from agent.captions.caption import Caption
from agent.display.hud import HudHub
from agent.live.gating import Decision
from agent.live.sessions import SessionManager
from agent.models import utcnow
from harness.apps import AUTH

from .conftest import app_client

SPOKEN = "今年春晚的机器人扭秧歌你们看了吗"


def _speak(client, text: str = SPOKEN) -> str:
    s = client.post("/v1/sessions", json={}, headers=AUTH).json()
    assert client.post(f"/v1/sessions/{s['id']}/utterances", json={"text": text}, headers=AUTH).status_code == 200
    return s["id"]


def test_the_store_keeps_no_words_by_default_and_the_logs_carry_none(tmp_path, caplog):
    caplog.set_level(logging.INFO)
    with app_client(tmp_path / "data") as client:
        sid = _speak(client)
        _speak(client)
        store = client.app.state.runtime.store
        rows = store.query("SELECT * FROM decisions")
        runs = store.query("SELECT steps, error FROM workflow_runs")
    assert len(rows) == 2 and {r["utterance"] for r in rows} == {""}
    assert {r["utterance_chars"] for r in rows} == {len(SPOKEN)}
    assert rows[0]["utterance_hmac"] == rows[1]["utterance_hmac"] and len(rows[0]["utterance_hmac"]) == 64
    assert rows[0]["topic_id"] and any(r["session_id"] == sid for r in rows)
    assert runs and not any("春晚的机器人" in (r["steps"] + (r["error"] or "")) for r in runs)
    assert "春晚的机器人" not in caplog.text


def test_the_words_are_kept_when_the_operator_opts_in_and_retention_blanks_them(store):
    manager = SessionManager(store, keep_text=True)
    session, _ = manager.create("even-g1", owner="k")
    manager.record(session, SPOKEN, Decision(show=False, reason="not_enough_speech"), None)
    assert store.query("SELECT utterance FROM decisions")[0][0] == SPOKEN
    store.prune(30, keep_utterances_days=1, now=utcnow() + timedelta(hours=2))
    assert store.query("SELECT utterance FROM decisions")[0][0] == SPOKEN  # younger than a day: kept
    store.prune(30, keep_utterances_days=1, now=utcnow() + timedelta(days=2))
    assert [tuple(r) for r in store.query("SELECT utterance, utterance_chars FROM decisions")] == [("", len(SPOKEN))]


def test_retention_prunes_decisions_and_workflow_runs(store):
    manager = SessionManager(store)
    session, _ = manager.create("even-g1", owner="k")
    manager.record(session, SPOKEN, Decision(show=False, reason="not_enough_speech"), None)
    with store.transaction() as db:
        db.execute("INSERT INTO workflow_runs (workflow, trigger, started_at, finished_at, status, steps, session_id) "
                   "VALUES ('live_captions', 'event:utterance', ?, ?, 'ok', '[]', ?)",
                   (utcnow().isoformat(), utcnow().isoformat(), session.id))
    store.prune(30, now=utcnow() + timedelta(days=29))
    assert store.query("SELECT COUNT(*) FROM decisions")[0][0] == 1
    store.prune(30, now=utcnow() + timedelta(days=31))
    assert store.query("SELECT COUNT(*) FROM decisions")[0][0] == 0
    assert store.query("SELECT COUNT(*) FROM workflow_runs")[0][0] == 0
    assert store.query("SELECT COUNT(*) FROM sessions")[0][0] == 0  # nothing left of it


def test_the_hud_hub_forgets_expired_captions():
    now = [1000.0]
    hub = HudHub(clock=lambda: now[0], max_remembered=50)

    async def show_many() -> None:
        for i in range(200):
            now[0] += 1
            await hub.show(Caption(topic_id=f"t{i}", title="t", text="t", lines=("t",), score=1.0, source="weibo",
                                   ttl_ms=5000, profile="even-g1", session_id=f"s{i}", created_at=now[0]))

    import asyncio

    asyncio.run(show_many())
    assert hub.remembered() <= 6  # the last few seconds' captions, not one per session ever seen
    assert hub.last_caption("s199") is not None and hub.last_caption("s0") is None
