"""The registry of trend sources: one visible tuple, no discovery magic."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..errors import UnknownNameError
from .base import Endpoint, Source
from .baidu import Baidu
from .toutiao import Toutiao
from .v2ex import V2ex
from .weibo import Weibo
from .zhihu import Zhihu

if TYPE_CHECKING:
    from ..settings import Settings

__all__ = ["REGISTRY", "Endpoint", "Source", "build_sources", "source_class"]

# Order is the display order in `trendlens sources`.
REGISTRY: dict[str, type[Source]] = {
    cls.name: cls
    for cls in (
        Weibo,
        Zhihu,
        Baidu,
        Toutiao,
        V2ex,
    )
}


def source_class(name: str) -> type[Source]:
    try:
        return REGISTRY[name]
    except KeyError:
        raise UnknownNameError("source", name, list(REGISTRY)) from None


def build_sources(settings: Settings, names: list[str] | None = None) -> list[Source]:
    """Instantiate the enabled sources (all registered ones when none are named)."""
    wanted = names or settings.sources or list(REGISTRY)
    return [source_class(name)(settings) for name in wanted]
