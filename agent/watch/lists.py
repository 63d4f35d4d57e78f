"""Whose watch lists there are: the operator's (`TRENDLENS_WATCH`, or a `watch.yaml`) and each API
key's own (`PUT /v1/watch`), each with, for a key, its own channels (the alerts sent are in the
store: agent/store/alerts.py).

A key's list is kept in the store (agent/store/watch_lists.py), which every instance reads: each
reads the lists saved elsewhere before it checks (`refresh`). Lists an older release kept as files in
`<data dir>/watch/` are moved into the store at start.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from ..errors import ConfigError
from ..notify import Notifier
from ..notify.channel import ADMIN_KEY, CLIENT_KEY, ChannelPolicy
from ..notify.notifier import KEY_SENDS
from ..notify.outbox import Outbox
from ..notify.sending import is_global_address
from ..store.watch_lists import ChannelSeal, Role, lists_since, revoked_owners, save_list
from .rules import MAX_MEANINGS, WatchGroup, parse_watch

if TYPE_CHECKING:
    from ..settings import Settings
    from ..store import Store

__all__ = ["ALERTS_KEPT", "OPERATOR", "Alert", "Owner", "WatchLists", "watch_text"]

OPERATOR = "operator"
ALERTS_KEPT = 200  # the newest alerts GET /v1/alerts shows a key
log = logging.getLogger("trendlens.watch")


@dataclass(frozen=True, kw_only=True)
class Alert:
    group: str
    story_id: str
    title: str
    places: tuple[tuple[str, int | None], ...]
    url: str | None
    again: bool  # sent again because the story reached more platforms
    at: datetime

    def public(self) -> dict[str, Any]:
        return {"group": self.group, "story_id": self.story_id, "title": self.title,
                "platforms": [{"platform": s, "rank": r} for s, r in self.places], "url": self.url,
                "again": self.again, "at": self.at.isoformat()}

    @classmethod
    def of(cls, public: dict[str, Any]) -> Alert:
        """The alert as `public()` wrote it (the store keeps that)."""
        return cls(group=public["group"], story_id=public["story_id"], title=public["title"],
                   places=tuple((p["platform"], p["rank"]) for p in public["platforms"]), url=public["url"],
                   again=bool(public["again"]), at=datetime.fromisoformat(public["at"]))


@dataclass
class Owner:
    """One owner's list: its text as written, its groups, its channels (None: the operator's)."""

    text: str
    groups: list[WatchGroup]
    notifier: Notifier | None = None
    urls: list[str] = field(default_factory=list)


def watch_text(settings: Settings) -> str:
    """The operator's groups: TRENDLENS_WATCH, else the watch file (YAML `groups: [...]` or a
    TrendRadar `frequency_words.txt`), else none."""
    n = settings.notify
    if n.watch:
        return n.watch
    path = n.watch_file or Path("watch.yaml")
    if not path.is_file():
        if n.watch_file is not None:
            raise ConfigError(f"watch file {str(path)!r} (TRENDLENS_WATCH_FILE) does not exist")
        return ""
    text = path.read_text(encoding="utf-8")
    if path.suffix in (".yaml", ".yml"):
        try:
            data = yaml.safe_load(text) or {}
        except yaml.YAMLError as exc:
            raise ConfigError(f"watch file {str(path)!r} is not valid YAML: {exc}") from None
        groups = data.get("groups") if isinstance(data, dict) else data
        if not isinstance(groups, list) or not all(isinstance(g, str) for g in groups):
            raise ConfigError(f"watch file {str(path)!r}: expected `groups:` holding a list of lines")
        return "\n".join(groups)
    return text


POLICIES: dict[Role, ChannelPolicy] = {"client": CLIENT_KEY, "admin": ADMIN_KEY}
CLIENT_RETRIES = 1  # a key's channel: one more try at once; later checks retry the alert until it expires


class WatchLists:
    def __init__(self, operator_text: str, *, store: Store | None = None, folder: Path | None = None,
                 allowed: Callable[[str], bool] = is_global_address, seal: ChannelSeal | None = None) -> None:
        self.owners: dict[str, Owner] = {}
        self.store = store
        self.seal = seal  # seals the channel URLs in the store (the operator's key), when there is one
        self.outbox = Outbox()  # every owner's pushes, sent by workers of their own
        self.allowed = allowed  # the addresses a key's channels may reach (global ones)
        self._seen = ""  # the newest `updated_at` read from the store
        if operator_text.strip():
            self.owners[OPERATOR] = Owner(text=operator_text, groups=parse_watch(operator_text))
        if folder is not None and folder.is_dir():  # an older release's files: into the store, once
            for path in sorted(folder.glob("*.json")):
                try:
                    saved = json.loads(path.read_text(encoding="utf-8"))
                    self.set(path.stem, saved["watch"], saved.get("notify_urls") or [])
                    path.unlink()
                except (OSError, ValueError, KeyError, TypeError, ConfigError) as exc:
                    log.warning("watch list %s not loaded: %s", path.name, type(exc).__name__)
        self.refresh()

    @classmethod
    def from_settings(cls, settings: Settings, store: Store | None = None) -> WatchLists:
        secret = settings.store.utterance_secret()
        return cls(watch_text(settings), store=store, folder=settings.store.data_dir / "watch",
                   seal=ChannelSeal(secret) if secret else None)

    def refresh(self) -> None:
        """Take in the lists saved since the last look (by this instance or another); blocking."""
        if self.store is None:
            return
        for saved in lists_since(self.store, self._seen, self.seal):
            if saved.sealed:
                log.warning("watch list of %s: its channels are sealed with another key; held without them",
                            saved.owner[:8])
            try:
                self._hold(saved.owner, saved.text, saved.urls, saved.role)
            except ConfigError as exc:
                log.warning("watch list of %s not loaded: %s", saved.owner[:8], type(exc).__name__)
            self._seen = max(self._seen, saved.updated_at)
        for owner in revoked_owners(self.store) & self.owners.keys():  # a key's lists end with the key
            self._drop(owner)

    def set(self, owner: str, text: str, urls: list[str], role: Role = "client") -> Owner:
        """Replace `owner`'s list (ConfigError for a mistake in it, before anything changes), in the
        store when there is one; blocking. `role`: the key's, which says what channels it may set."""
        held = self._hold(owner, text, urls, role)
        if self.store is not None:
            save_list(self.store, owner, text, urls, role, self.seal)
        return held

    def _drop(self, owner: str) -> None:
        held = self.owners.pop(owner)
        if held.notifier is not None:
            held.notifier.close()

    def _hold(self, owner: str, text: str, urls: list[str], role: Role = "client") -> Owner:
        groups = parse_watch(text, meanings=MAX_MEANINGS if owner != OPERATOR else None)
        notifier = (Notifier(urls, policy=POLICIES[role], retries=CLIENT_RETRIES, allowed=self.allowed,
                             pool=KEY_SENDS) if urls else None)
        old = self.owners.get(owner)
        if old is not None and old.notifier is not None:
            old.notifier.close()
        held = Owner(text=text, groups=groups, notifier=notifier, urls=list(urls))
        self.owners[owner] = held
        return held

    def close(self) -> None:
        self.outbox.close()
        for owner in self.owners.values():
            if owner.notifier is not None:
                owner.notifier.close()
