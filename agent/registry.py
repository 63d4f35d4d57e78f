"""`Registry`: the names of one extension point (displays, workflow steps, sources, push channels), each once.

A second item under a name already taken is refused when it is registered, not found later as a
silent overwrite; an unknown name fails with the valid ones (`UnknownNameError`).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, MutableMapping
from typing import TypeVar, overload

from .errors import DuplicateNameError, UnknownNameError

__all__ = ["Registry"]

T = TypeVar("T")
D = TypeVar("D")


class Registry(MutableMapping[str, T]):
    """Names → items in registration order. `registry[name] = item` registers (a taken name is
    refused); `registry[name]` of an unknown name raises `UnknownNameError` listing the valid ones."""

    def __init__(self, kind: str, items: Iterable[tuple[str, T]] = ()) -> None:
        self.kind = kind
        self._items: dict[str, T] = {}
        for name, item in items:
            self.register(name, item)

    def register(self, name: str, item: T) -> T:
        if name in self._items:
            raise DuplicateNameError(self.kind, name)
        self._items[name] = item
        return item

    def __getitem__(self, name: str) -> T:
        try:
            return self._items[name]
        except KeyError:
            raise UnknownNameError(self.kind, name, tuple(self._items)) from None

    @overload
    def get(self, name: str, /) -> T | None: ...
    @overload
    def get(self, name: str, default: T | D, /) -> T | D: ...
    def get(self, name: str, default: object = None, /) -> object:
        return self._items.get(name, default)

    def __contains__(self, name: object) -> bool:
        return name in self._items

    def __setitem__(self, name: str, item: T) -> None:
        self.register(name, item)

    def __delitem__(self, name: str) -> None:
        del self._items[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)

    def __repr__(self) -> str:
        return f"Registry({self.kind!r}, {list(self._items)!r})"
