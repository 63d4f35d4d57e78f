"""The watch alerts: which (owner, group, story) alerted, on how many platforms, the alert, and
whether it has been sent.

An alert is claimed, then sent, then marked, and the claim is the row itself: the first caller's
`INSERT … ON CONFLICT DO NOTHING` (or, for a story that spread, its conditional `UPDATE`) changes
one row and every other caller's changes none, on SQLite and PostgreSQL alike, so two instances or
two concurrent checks agree on who sends it without reading first. A claimed alert is `pending`
with a lease; once a channel took it, it is `sent`. One whose sender died or failed is claimed
again when its lease ends (`reclaim_due`), until it is sent or `expires_at` passes (`expired`).

In the store, not in memory, so a story never alerts twice across a restart, nor once from each
instance sharing a database, and each key's `GET /v1/alerts` outlives the process.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from .base import Store

__all__ = ["ALERT_EXPIRES", "ALERT_LEASE", "Claim", "claim_alert", "expire_alerts", "mark_sent", "reclaim_due",
           "recent_alerts", "renew"]

ALERT_LEASE = timedelta(seconds=60)  # how long a claim is its sender's before another may send it
ALERT_EXPIRES = timedelta(hours=6)  # an alert not sent by then is news no longer

def _stamp(at: datetime) -> str:
    return at.isoformat(timespec="microseconds")  # one width, so stamps compare as text


@dataclass(frozen=True)
class Claim:
    """An alert this caller is to send: the row's key, the claim's stamp, the alert as stored, and the
    lease it holds (its stamp is the claim's token: `renew` succeeds only while it is unchanged)."""

    owner: str
    group: str
    story_id: str
    at: str
    alert: dict[str, Any]
    lease_until: str = ""


def claim_alert(store: Store, owner: str, group: str, story_id: str, *, platforms: int, again_at: int | None,
                now: datetime, first: dict[str, Any], again: dict[str, Any], lease: timedelta = ALERT_LEASE,
                expires: timedelta = ALERT_EXPIRES) -> Claim | None:
    """Claim the alert of `story_id` for `group`: `first` when it never alerted, `again` when it last
    alerted on fewer than `again_at` platforms and is on `platforms` >= `again_at` now; None when it is
    not due or another caller claimed it."""
    at = _stamp(now)
    until, expiry = _stamp(now + lease), _stamp(now + expires)
    with store.transaction() as db:
        inserted = db.execute(
            "INSERT INTO watch_alerts (owner, grp, story_id, platforms, at, alert, state, lease_until, expires_at, "
            "attempts) VALUES (?, ?, ?, ?, ?, ?, 'pending', ?, ?, 1) ON CONFLICT (owner, grp, story_id) DO NOTHING",
            (owner, group, story_id, platforms, at, json.dumps(first, ensure_ascii=False), until, expiry)).rowcount
        if inserted == 1:
            return Claim(owner, group, story_id, at, first, until)
        if again_at is None or platforms < again_at:
            return None
        updated = db.execute(
            "UPDATE watch_alerts SET platforms = ?, at = ?, alert = ?, state = 'pending', lease_until = ?, "
            "expires_at = ?, attempts = 1 WHERE owner = ? AND grp = ? AND story_id = ? AND platforms < ?",
            (platforms, at, json.dumps(again, ensure_ascii=False), until, expiry, owner, group, story_id,
             again_at)).rowcount
    return Claim(owner, group, story_id, at, again, until) if updated == 1 else None


def renew(store: Store, claim: Claim, now: datetime, lease: timedelta = ALERT_LEASE) -> Claim | None:
    """The claim with a fresh lease, just before it is sent; None when it is no longer this caller's
    (its lease ran out while it waited and another caller claimed it, or it was sent or expired)."""
    until = _stamp(now + lease)
    with store.transaction() as db:
        took = db.execute("UPDATE watch_alerts SET lease_until = ? WHERE owner = ? AND grp = ? AND story_id = ? "
                          "AND at = ? AND state = 'pending' AND lease_until = ?",
                          (until, claim.owner, claim.group, claim.story_id, claim.at, claim.lease_until)).rowcount
    return Claim(claim.owner, claim.group, claim.story_id, claim.at, claim.alert, until) if took == 1 else None


def mark_sent(store: Store, claim: Claim) -> None:
    """A channel took the alert claimed at `claim.at` (a later claim of the same story stays pending)."""
    with store.transaction() as db:
        db.execute("UPDATE watch_alerts SET state = 'sent', lease_until = NULL "
                   "WHERE owner = ? AND grp = ? AND story_id = ? AND at = ? AND state = 'pending'",
                   (claim.owner, claim.group, claim.story_id, claim.at))


def reclaim_due(store: Store, now: datetime, *, lease: timedelta = ALERT_LEASE, limit: int = 200,
                skip: frozenset[tuple[str, str, str]] = frozenset()) -> list[Claim]:
    """The pending alerts whose lease ended (a send failed, or its sender died), each claimed again by
    this caller only (a conditional update: another caller's reclaim of the same row changes nothing);
    `skip`: the rows this caller has just claimed."""
    expire_alerts(store, now)
    rows = store.query("SELECT owner, grp, story_id, at, alert FROM watch_alerts WHERE state = 'pending' "
                       "AND lease_until < ? ORDER BY at LIMIT ?", (_stamp(now), limit))
    claimed = []
    for r in rows:
        if (r["owner"], r["grp"], r["story_id"]) in skip:
            continue
        with store.transaction() as db:
            took = db.execute("UPDATE watch_alerts SET lease_until = ?, attempts = attempts + 1 "
                              "WHERE owner = ? AND grp = ? AND story_id = ? AND at = ? AND state = 'pending' "
                              "AND lease_until < ?",
                              (_stamp(now + lease), r["owner"], r["grp"], r["story_id"], r["at"], _stamp(now)))
            if took.rowcount == 1:
                claimed.append(Claim(r["owner"], r["grp"], r["story_id"], r["at"], json.loads(r["alert"]),
                                     _stamp(now + lease)))
    return claimed


def expire_alerts(store: Store, now: datetime) -> None:
    with store.transaction() as db:
        db.execute("UPDATE watch_alerts SET state = 'expired', lease_until = NULL "
                   "WHERE state = 'pending' AND expires_at < ?", (_stamp(now),))


def recent_alerts(store: Store, owner: str, limit: int = 200) -> list[dict[str, Any]]:
    """The owner's alerts, newest first (a story alerted again shows its latest), each with whether it
    was sent (`sent`, `pending`: not yet, retried until `expires_at`, `expired`: never sent)."""
    rows = store.query("SELECT alert, state, expires_at FROM watch_alerts WHERE owner = ? "
                       "ORDER BY at DESC, story_id LIMIT ?", (owner, limit))
    return [{**json.loads(r["alert"]), "state": r["state"], "expires_at": r["expires_at"]} for r in rows]
