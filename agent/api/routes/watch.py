"""/v1/watch and /v1/alerts: each key's own watch list, its own push channels and the alerts it got.

The list is written as `TRENDLENS_WATCH` is (`机器人 !广告; 关税 +美国`, see agent/watch/rules.py);
a key's channels are apprise URLs, named back only by scheme and place (`tgram#1`), never shown.
"""

from __future__ import annotations

import asyncio
from typing import Annotated

from fastapi import APIRouter, Request
from pydantic import BaseModel, Field

from ...errors import ConfigError
from ...notify.channel import MAX_URL_CHARS
from ...store.alerts import recent_alerts
from ...watch import Watcher
from ...watch.lists import ALERTS_KEPT, Owner
from ..deps import ApiKey, RuntimeDep
from ..errors import AUTHED_ERRORS, ApiError
from ..ingest_rules import key_id

router = APIRouter(prefix="/v1", tags=["watch"], responses=AUTHED_ERRORS)


class WatchIn(BaseModel):
    watch: str = Field(max_length=10_000, description="groups: `;` or new lines between them, spaces between "
                                                      "words; +word required, !word excluded, /regex/, @N, ^N")
    notify_urls: list[Annotated[str, Field(max_length=MAX_URL_CHARS)]] = Field(
        default_factory=list, max_length=10, description=(
            "apprise URLs this key's alerts go to (none: only GET /v1/alerts); a client key may use the "
            "services docs/security.md lists, without options that choose a method, header, field, template "
            "or timeout, and only public hosts"))


class WatchOut(BaseModel):
    watch: str
    groups: list[str]
    channels: list[str] = Field(description="the channels by scheme and place; their URLs are never shown")


def _out(owner: Owner | None) -> WatchOut:
    if owner is None:
        return WatchOut(watch="", groups=[], channels=[])
    channels = [c.name for c in owner.notifier.channels] if owner.notifier else []
    return WatchOut(watch=owner.text, groups=[g.name for g in owner.groups], channels=channels)


@router.put("/watch", summary="Set this key's watch list and push channels")
async def put_watch(body: WatchIn, key: ApiKey, runtime: RuntimeDep, request: Request) -> WatchOut:
    watcher: Watcher = runtime.watcher
    role = request.app.state.keys.role(key)
    try:
        owner = await asyncio.to_thread(watcher.lists.set, key_id(key), body.watch, body.notify_urls, role)
    except ConfigError as exc:
        param = "notify_urls" if str(exc).startswith("channel") else "watch"
        raise ApiError(422, str(exc), param=param) from None
    return _out(owner)


@router.get("/watch", summary="This key's watch list")
async def get_watch(key: ApiKey, runtime: RuntimeDep) -> WatchOut:
    # an instance that runs no fetch job checks no lists: it reads what was saved elsewhere first
    await asyncio.to_thread(runtime.watcher.lists.refresh)
    return _out(runtime.watcher.lists.owners.get(key_id(key)))


@router.get("/alerts", summary="The alerts this key's watch list raised, newest first, each with its `state` "
                                "(sent, pending: retried until `expires_at`, expired)")
async def alerts(key: ApiKey, runtime: RuntimeDep) -> dict:
    return {"items": await asyncio.to_thread(recent_alerts, runtime.store, key_id(key), ALERTS_KEPT)}
