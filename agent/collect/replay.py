"""Offline replay: an httpx transport answering each source's requests from a snapshot folder.

The snapshot is the package's synthetic demo snapshot unless configured
(`snapshot_dir`): hot lists we wrote, not recordings. Used by `--offline` and
when the network does not answer, so the whole pipeline (fetch → parse → store
→ rank → caption) runs with no network at all.
"""

from __future__ import annotations

import mimetypes
from collections.abc import Sequence
from pathlib import Path
from urllib.parse import urlsplit

import httpx

from agent.sources.base import Source

__all__ = ["ReplayTransport"]


class ReplayTransport(httpx.AsyncBaseTransport):
    """Answers a request with the snapshot file its source names, or 404."""

    def __init__(self, sources: Sequence[Source], snapshot_dir: Path) -> None:
        self.snapshot_dir = snapshot_dir
        self.sources = list(sources)
        self._by_host: dict[str, list[Source]] = {}
        for source in self.sources:
            for endpoint in source.endpoints():
                host = urlsplit(endpoint.url).hostname or ""
                self._by_host.setdefault(host, []).append(source)

    def _candidates(self, host: str) -> list[Source]:
        # endpoint hosts first; then any source whose domain covers the host (auth/token hosts)
        direct = self._by_host.get(host, [])
        related = [s for s in self.sources if s not in direct
                   and any(host == d or host.endswith("." + d) for d in s.domains)]
        return direct + related

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        for source in self._candidates(request.url.host):
            case = source.replay_case(request)
            if not case:
                continue
            # Feed sources are named per user config but share the "feed" snapshot files
            folder = self.snapshot_dir / getattr(type(source), "name", source.name)
            path = folder / case
            if path.is_file():
                media = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
                return httpx.Response(200, content=path.read_bytes(), headers={"Content-Type": media},
                                      request=request)
        return httpx.Response(404, text="no snapshot file for this request", request=request)
