"""Grapheme clusters and the character classes line breaking needs.

Clusters are the `regex` module's `\\X` (full UAX #29 extended grapheme clusters:
combining marks, emoji ZWJ sequences, variation selectors, skin tones, tag sequences,
keycaps, regional-indicator pairs, Hangul syllables, Indic conjuncts), so a wrap or a
truncation never cuts a user-perceived character in half. East Asian width comes from
`wcwidth`, whose tables follow the current Unicode release rather than the Python
build's `unicodedata` (14.0 on 3.11).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import lru_cache

import regex
import wcwidth

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


_CLUSTER = regex.compile(r"\X")


def _is_regional_indicator(cp: int) -> bool:
    return 0x1F1E6 <= cp <= 0x1F1FF


def graphemes(text: str) -> Iterator[str]:
    """Yield the grapheme clusters of `text` in order (each capped at MAX_CLUSTER_CODEPOINTS)."""
    for match in _CLUSTER.finditer(text):
        cluster = match.group()
        yield cluster if len(cluster) <= MAX_CLUSTER_CODEPOINTS else cluster[:MAX_CLUSTER_CODEPOINTS]


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
        wcwidth.wcwidth(base) == 2
        or base in _WIDE_AMBIGUOUS
        or is_emoji_cluster(cluster)
    )


def breaks_around(cluster: str) -> bool:
    """True when a line may break before or after this cluster with no space (Han, kana, emoji).

    The ambiguous punctuation above is wide but not breakable, so "it’s" stays whole.
    """
    return is_wide_cluster(cluster) and cluster[0] not in _WIDE_AMBIGUOUS
