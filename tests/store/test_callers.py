"""What sessions, API keys and workflow runs write through the store seam, on SQLite and PostgreSQL alike."""

from __future__ import annotations

from types import SimpleNamespace

from agent.api.security import KeyRing
from agent.captions.caption import Caption
from agent.engine.runner import RunRecord, StepOutcome, WorkflowEngine
from agent.live.gating import Decision
from agent.live.sessions import SessionManager


def test_sessions_and_their_captions_survive_a_new_manager(store):
    manager = SessionManager(store)
    session, token = manager.create("even-g1", "high")
    caption = Caption(topic_id="weibo:春晚", title="春晚", text="春晚 · 微博", lines=("春晚 · 微博",), score=0.81,
                      source="weibo", ttl_ms=8000, profile="even-g1", session_id=session.id)
    manager.record(session, "今年春晚你看了吗", Decision(show=True, reason="shown", topic_id="weibo:春晚", score=0.81),
                   caption)
    manager.record(session, "嗯", Decision(show=False, reason="not_enough_speech"), None)
    manager.ensure("lingzhu-42", "rokid-glasses")
    manager.ensure("lingzhu-42", "rokid-glasses")  # a second sight of the same platform session is not an error

    fresh = SessionManager(store)  # another instance, or this one after a restart
    again = fresh.get(session.id)
    assert again is not None and again.profile == "even-g1" and again.frequency == "high" and again.check_token(token)
    shown = fresh.history(session.id)
    # the words are not kept by default: their length and a keyed hash are
    assert [c["title"] for c in shown] == ["春晚"] and shown[0]["decision"]["utterance"] is None
    assert shown[0]["decision"]["chars"] == len("今年春晚你看了吗")
    assert [h["decision"]["reason"] for h in fresh.history(session.id, shown_only=False)] == ["shown",
                                                                                          "not_enough_speech"]
    assert fresh.get("lingzhu-42") is not None


def test_api_keys_are_shared_through_the_store(store, settings):
    key = KeyRing(settings, store).create("ops")
    assert KeyRing(settings, store).check(key) is not None  # a second key ring (instance) accepts it
    assert KeyRing(settings, store).check(key + "x") is None


def test_workflow_runs_are_recorded_and_listed(store, tmp_path):
    engine = WorkflowEngine(SimpleNamespace(store=store), tmp_path)  # type: ignore[arg-type]  # only its store
    record = RunRecord(workflow="live_captions", trigger="utterance", started_at="2026-01-01T00:00:00",
                       finished_at="2026-01-01T00:00:01", status="error", error="rank: boom",
                       steps=[StepOutcome(step="rank", status="error", elapsed_ms=1.5, detail="boom")])
    engine._save(record)
    runs = engine.recent_runs(workflow="live_captions")
    assert [(r["workflow"], r["status"], r["error"]) for r in runs] == [("live_captions", "error", "rank: boom")]
    assert runs[0]["steps"][0]["step"] == "rank"
