"""Homophone errors, the Chinese recogniser's commonest: a Han character heard right and written
as another character of the same pinyin (tone included), for the evaluations' --homophones mode.

The substitutes come from the characters of the development sets themselves (topics, mentions,
small talk): characters people write, so a substitute is a plausible recogniser output, not a
rare character no recogniser's language model would choose. Seeded, so a figure reproduces.
"""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Iterable

from agent.text import is_han

__all__ = ["Homophones"]


class Homophones:
    def __init__(self, corpus: Iterable[str], *, seed: int = 24) -> None:
        from pypinyin import Style, pinyin  # only this mode needs it (a dev dependency)

        self._pinyin = lambda ch: pinyin(ch, style=Style.TONE3, heteronym=False)[0][0]
        chars = sorted({ch for text in corpus for ch in text if is_han(ch)})
        self.by_sound: dict[str, list[str]] = defaultdict(list)
        for ch in chars:
            self.by_sound[self._pinyin(ch)].append(ch)
        self.rng = random.Random(seed)

    def noisy(self, text: str, rate: float) -> str:
        """`text` with `rate` of its Han characters (those that have a homophone) replaced."""
        out = list(text)
        slots = [k for k, ch in enumerate(out) if is_han(ch) and len(self.by_sound[self._pinyin(ch)]) > 1]
        want = rate * sum(is_han(ch) for ch in text)  # rounded at random, so short lines get their share too
        n = min(len(slots), int(want) + (self.rng.random() < want - int(want)))
        for k in self.rng.sample(slots, n):
            others = [c for c in self.by_sound[self._pinyin(out[k])] if c != out[k]]
            out[k] = self.rng.choice(others)
        return "".join(out)
