"""The /metrics text: our series names, standard process metrics, and a broken gauge left out."""

from __future__ import annotations

from prometheus_client.parser import text_string_to_metric_families

from agent.metrics import Metrics


def test_exposition_parses_and_keeps_our_names():
    m = Metrics()
    m.fetches.inc("weibo", "ok")
    m.fetches.inc("weibo", "ok")
    m.decisions.inc("shown")
    m.ranking_seconds.observe(0.03)
    m.gauge("trendlens_sessions_live", "Sessions held in memory", lambda: 2)
    m.gauge("trendlens_broken", "raises when read", lambda: 1 / 0)
    samples = {(s.name, tuple(sorted(s.labels.items()))): s.value
               for fam in text_string_to_metric_families(m.render()) for s in fam.samples}
    assert samples[("trendlens_fetches_total", (("outcome", "ok"), ("source", "weibo")))] == 2
    assert samples[("trendlens_caption_decisions_total", (("reason", "shown"),))] == 1
    assert samples[("trendlens_ranking_seconds_bucket", (("le", "0.05"),))] == 1
    assert samples[("trendlens_ranking_seconds_bucket", (("le", "0.025"),))] == 0
    assert samples[("trendlens_ranking_seconds_count", ())] == 1
    assert samples[("trendlens_sessions_live", ())] == 2
    assert not any(name == "trendlens_broken" for name, _ in samples)
    assert not any(name.endswith("_created") for name, _ in samples)
    assert ("python_info" in {name for name, _ in samples})


def test_two_runtimes_do_not_share_series():
    a, b = Metrics(), Metrics()
    a.decisions.inc("shown")
    assert 'trendlens_caption_decisions_total{reason="shown"}' not in b.render()


def test_stages_add_up_within_a_decision_and_nothing_is_kept_outside_one():
    import gc

    from agent.metrics import add_stage, decision_timing, timed

    add_stage("rank", 1.0)  # no decision open: nothing to add to
    with decision_timing() as times, timed("rank"):
        add_stage("rank", 0.5)
        gc.collect()  # a collection inside a decision is its `gc` stage
    assert times.seconds["rank"] >= 0.5 and times.seconds["gc"] > 0
    assert times.seconds["decision"] >= times.seconds["gc"]
    m = Metrics()
    m.observe_stages(times)
    assert 'trendlens_decision_stage_seconds_count{stage="gc"} 1.0' in m.render()


def test_a_late_wake_is_the_longest_stall():
    m = Metrics()
    m.loop_stalls.record(0.004)
    m.loop_stalls.record(0.12)
    m.loop_stalls.record(-0.001)  # early: no stall
    assert m.loop_stalls.longest_s == 0.12
    assert "trendlens_event_loop_longest_stall_seconds 0.12" in m.render()
