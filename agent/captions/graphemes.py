"""A small grapheme-cluster segmenter and the character classes line breaking needs.

Not full UAX #29: it covers what captions meet in practice — combining marks,
emoji ZWJ sequences, variation selectors (VS16), skin-tone modifiers, tag
sequences (subdivision flags), keycaps, regional-indicator pairs and Hangul
jamo — so a wrap or a truncation never cuts a user-perceived character in half.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator
from functools import lru_cache

__all__ = ["breaks_around", "clean_text", "graphemes", "is_emoji_cluster", "is_wide_cluster"]

ZWJ = "\u200d"
VS16 = "\ufe0f"
# Longest cluster kept: real emoji ZWJ sequences stay well under this; the cap
# stops "zalgo" text (hundreds of stacked marks) from forming one giant cluster.
MAX_CLUSTER_CODEPOINTS = 32

# Controls, invisible format characters that only confuse glasses fonts, and
# lone surrogates (which cannot be encoded as UTF-8 at all). ZWJ and tag
# characters are kept: emoji sequences need them.
_STRIP = re.compile(
    "[\x00-\x08\x0e-\x1f\x7f-\x9f\u00ad\u061c\u180e\u200b\u200e\u200f\u202a-\u202e"
    "\u2060-\u2064\u2066-\u2069\ufeff\ud800-\udfff]"
)


def clean_text(text: str) -> str:
    """Strip control/invisible characters and collapse every whitespace run to one space."""
    return " ".join(_STRIP.sub("", text).split())


def _is_regional_indicator(cp: int) -> bool:
    return 0x1F1E6 <= cp <= 0x1F1FF


@lru_cache(maxsize=4096)
def _extends(ch: str) -> bool:
    """True when `ch` attaches to the previous character (never starts a new cluster)."""
    cp = ord(ch)
    if ch == ZWJ or 0xFE00 <= cp <= 0xFE0F or 0xE0100 <= cp <= 0xE01EF:
        return True  # joiner and variation selectors
    if 0x1F3FB <= cp <= 0x1F3FF or 0xE0020 <= cp <= 0xE007F:
        return True  # skin-tone modifiers, tag characters
    if 0x1160 <= cp <= 0x11FF:
        return True  # Hangul medial vowels / final consonants join the syllable
    return unicodedata.category(ch) in ("Mn", "Me", "Mc")


def graphemes(text: str) -> Iterator[str]:
    """Yield the grapheme clusters of `text` in order."""
    cluster: list[str] = []
    after_zwj = False
    ri_open = False  # the cluster holds one regional indicator awaiting its pair
    for ch in text:
        cp = ord(ch)
        joins = bool(cluster) and (
            after_zwj or _extends(ch) or (ri_open and _is_regional_indicator(cp))
        )
        if joins:
            if len(cluster) < MAX_CLUSTER_CODEPOINTS:
                cluster.append(ch)
            ri_open = False
        else:
            if cluster:
                yield "".join(cluster)
            cluster = [ch]
            ri_open = _is_regional_indicator(cp)
        after_zwj = ch == ZWJ
    if cluster:
        yield "".join(cluster)


@lru_cache(maxsize=8192)
def is_emoji_cluster(cluster: str) -> bool:
    """True for clusters a HUD draws as a (double-width) emoji picture."""
    first = ord(cluster[0])
    if len(cluster) > 1 and (
        VS16 in cluster or ZWJ in cluster or _is_regional_indicator(first)
        or any(0x1F3FB <= ord(c) <= 0x1F3FF for c in cluster) or "\u20e3" in cluster
    ):
        return True
    return 0x1F000 <= first <= 0x1FAFF or 0x2600 <= first <= 0x27BF or _is_regional_indicator(first)


# Ambiguous-width punctuation that CJK fonts draw full-width; counting it as
# wide overestimates Latin text a little, which only ever wraps early, never overflows.
_WIDE_AMBIGUOUS = frozenset("“”‘’…—※")


@lru_cache(maxsize=8192)
def is_wide_cluster(cluster: str) -> bool:
    """True for CJK / full-width clusters and emoji (two terminal columns)."""
    base = cluster[0]
    return (
        unicodedata.east_asian_width(base) in ("W", "F")
        or base in _WIDE_AMBIGUOUS
        or is_emoji_cluster(cluster)
    )


def breaks_around(cluster: str) -> bool:
    """True when a line may break before or after this cluster with no space (Han, kana, emoji).

    The ambiguous punctuation above is wide but not breakable, so "it’s" stays whole.
    """
    return is_wide_cluster(cluster) and cluster[0] not in _WIDE_AMBIGUOUS
