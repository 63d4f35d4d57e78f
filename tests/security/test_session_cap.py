"""The cap on sessions held in memory: one key making sessions pushes out its own, never another key's.

An evicted session comes back from the store with an empty conversation window, so eviction is
what a wearer would notice: the table's last minute of talk forgotten mid-conversation.
"""

from __future__ import annotations

from agent.live.sessions import SessionManager

A, B, C = "a" * 64, "b" * 64, "c" * 64  # owners: the hashes of three keys


def test_a_key_making_sessions_past_its_cap_evicts_only_its_own(store) -> None:
    manager = SessionManager(store, max_live=100, max_live_per_owner=3)
    wearer, _ = manager.create("even-g1", owner=B)
    wearer.window.add("今年春晚你看了吗", 0.0)
    made = [manager.create(owner=A)[0] for _ in range(50)]
    assert manager.peek(wearer.id) is wearer and wearer.window.newest() == "今年春晚你看了吗"  # B's window is whole
    assert [s.id for s in made if manager.peek(s.id) is not None] == [s.id for s in made[-3:]]
    assert len(manager) == 4


def test_at_the_global_cap_the_largest_holder_pays(store) -> None:
    manager = SessionManager(store, max_live=6, max_live_per_owner=5)
    small = [manager.create(owner=B)[0] for _ in range(2)]
    for _ in range(30):
        manager.create(owner=A)
    assert all(manager.peek(s.id) is s for s in small)
    # a third key's first session: room is made from A's, the largest, not from B's
    newcomer, _ = manager.create(owner=C)
    assert all(manager.peek(s.id) is s for s in small) and manager.peek(newcomer.id) is newcomer
    assert len(manager) == 6


def test_an_evicted_session_is_still_its_owner_s(store) -> None:
    manager = SessionManager(store, max_live=10, max_live_per_owner=1)
    first, token = manager.create("even-g1", owner=A)
    manager.create(owner=A)
    assert manager.peek(first.id) is None
    again = manager.get(first.id)  # from the store, and held again
    assert again is not None and again.owned_by(A) and again.check_token(token)
    manager.erase(first.id)
    assert manager.get(first.id) is None and len(manager) == 0
