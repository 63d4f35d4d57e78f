"""What `POST /v1/topics` may write: never a fetched item's id, and a bounded number per key.

An ingested topic keeps the id it was sent with, so without a rule an admin key could post
`zhihu:<question id>` with another title and link and every tenant would read the forgery in
place of the platform's item. The rule, checked before anything is written:

- an id in a fetcher's namespace (`<source>:…` for every platform TrendLens can fetch and every
  configured feed) is refused, 422: fetched ids are exactly `<source>:<item id>`, so no ingested
  topic can take one, even before the platform lists it;
- an id the store already holds for a fetched topic (a source since removed from the settings)
  or for another key's ingest is refused, 409: one key never rewrites what another posted;
- each key holds at most `ingest_topics_per_key` ingested topics (re-sending its own ids does not
  count twice); past it, 429.

An ingested topic may still name a platform as its `source` (a loader mirroring a list), with an
id of its own; it is marked `"ingested": true` and `"ingested_by": <key id>` wherever it is shown.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from ..platforms import known_platforms
from ..settings import Settings
from ..sources import REGISTRY
from ..store import Store
from ..store.ingested import ingested_count, owners
from .errors import ApiError

__all__ = ["IngestRules", "key_id"]


def key_id(key_hash: str) -> str:
    """The id `trendlens keys list` shows for a key: what an ingested topic names as its poster."""
    return key_hash[:12]


class IngestRules:
    def __init__(self, settings: Settings, fetched: Iterable[str] = ()) -> None:
        self.cap = settings.server.ingest_topics_per_key
        # every source that can ever fetch, configured or not: a source switched off today may be
        # switched on tomorrow, and its ids must not be taken meanwhile
        feeds = {f.name for f in settings.fetch.feeds}
        self.fetchers = frozenset(REGISTRY) | frozenset(known_platforms()) | feeds | set(fetched)

    def check_ids(self, ids: Sequence[str]) -> None:
        """422 for an id in a fetcher's namespace."""
        for topic_id in ids:
            namespace, sep, _ = topic_id.partition(":")
            if sep and namespace.strip().lower() in self.fetchers:
                raise ApiError(422, f"topic id {topic_id!r} is in the namespace of the fetched source "
                                    f"{namespace!r}; ingest under an id of your own (without '{namespace}:')",
                               param="id")

    def admit(self, store: Store, key_hash: str, ids: Sequence[str]) -> None:
        """409 for an id held by a fetched topic or another key's ingest; 429 past the key's cap.
        A blocking store read: call it off the event loop."""
        mine = key_id(key_hash)
        held = owners(store, ids)
        for topic_id in ids:
            if topic_id not in held:
                continue
            ingested, owner = held[topic_id]
            if not ingested:
                raise ApiError(409, f"topic id {topic_id!r} belongs to a fetched topic; ingest under an id of your own")
            if owner is not None and owner != mine:
                raise ApiError(409, f"topic id {topic_id!r} was ingested by another key; "
                                    "ingest under an id of your own")
        new = len({i for i in ids if i not in held})
        if not new:
            return
        count = ingested_count(store, mine)
        if count + new > self.cap:
            raise ApiError(429, f"this key holds {count} ingested topics and may hold {self.cap} "
                                f"(TRENDLENS_INGEST_TOPICS_PER_KEY); these {new} new ones would pass it. "
                                "Re-send ids it already holds, or wait until retention prunes old ones",
                           code="ingest_cap_reached")


