"""Wrap text into display lines by rendered width, with Chinese line-breaking rules.

Layout works on grapheme clusters (never splitting an emoji or an accented
letter), grouped into unbreakable tokens: a Latin word, one Han character or
emoji, with closing punctuation glued to what precedes it and opening
punctuation glued to what follows — so no line starts with "，" or ends with "「".
Lines are filled greedily; overflow ends in "…" and the UTF-8 size of the joined
lines never exceeds the profile's byte limit.
"""

from __future__ import annotations

from itertools import islice

from .graphemes import breaks_around, clean_text, graphemes
from .profiles import DisplayProfile, resolve_profile
from .widths import WidthFn

__all__ = ["CLOSING", "ELLIPSIS", "OPENING", "fit_text"]

ELLIPSIS = "…"
# May not start a line (Chinese 避头 rules, plus Latin sentence punctuation).
CLOSING = frozenset("，。！？、；：）」』】》〉”’….,!?;:)]}％%〕〗〙〛｝］｠｣〞")
# Also never line-initial: iteration marks, the prolonged sound mark and small kana.
_NO_START = CLOSING | frozenset("々〻ゝゞーァィゥェォッャュョヮヵヶぁぃぅぇぉっゃゅょゎ・")
# May not end a line (避尾).
OPENING = frozenset("（「『【《〈“‘([{〔〖〘〚｛［｟｢〝")
# Dropped before an ellipsis so a cut reads "我们今天…" rather than "我们今天，…".
_SOFT_TAIL = frozenset("，、；：,;:-—·") | OPENING
_UNIT_AFTER_DIGIT = frozenset("万亿千百")


class _Token:
    """An unbreakable run of clusters; `space` = a space separates it from the token before.

    Width and UTF-8 size are kept as running totals so trimming stays linear.
    """

    __slots__ = ("clusters", "nbytes", "space", "width", "widths")

    def __init__(self, space: bool) -> None:
        self.clusters: list[str] = []
        self.widths: list[int] = []
        self.space = space
        self.width = 0
        self.nbytes = 0

    def push(self, cluster: str, width: int) -> None:
        self.clusters.append(cluster)
        self.widths.append(width)
        self.width += width
        self.nbytes += len(cluster.encode())

    def pop(self) -> None:
        self.width -= self.widths.pop()
        self.nbytes -= len(self.clusters.pop().encode())

    @property
    def text(self) -> str:
        return "".join(self.clusters)


def _may_break(prev: str, cur: str) -> bool:
    """May a line break between two adjacent non-space clusters?"""
    if cur in _NO_START or prev in OPENING:
        return False
    if cur in _UNIT_AFTER_DIGIT and prev.isdigit():
        return False  # keep "1854万" whole
    if breaks_around(prev) or breaks_around(cur):
        return True
    # Inside a Latin word only after a hyphen ("state-of-" / "the-art").
    return prev == "-" and cur.isalpha()


def _tokenize(clusters: list[str], measure: WidthFn) -> list[_Token]:
    tokens: list[_Token] = []
    cur: _Token | None = None
    pending_space = False
    prev = ""
    for c in clusters:
        if c == " ":
            pending_space = True
            continue
        w = measure(c)
        if cur is not None and pending_space and (c in _NO_START or prev in OPENING):
            # "你好 ，" or "「 x": the space is no break opportunity here, keep it inside.
            cur.push(" ", measure(" "))
            cur.push(c, w)
        elif cur is not None and not pending_space and not _may_break(prev, c):
            cur.push(c, w)
        else:
            if cur is not None:
                tokens.append(cur)
            cur = _Token(pending_space and cur is not None)
            cur.push(c, w)
        pending_space = False
        prev = c
    if cur is not None:
        tokens.append(cur)
    return tokens


def _hard_break(tok: _Token, limit: int) -> list[_Token]:
    """Split an over-long token (a URL, a long word) at cluster boundaries.

    A glued token can hold spaces (". . . ." glues every "." to what precedes it);
    those are preferred as break points and never start or end a piece.
    """
    pieces: list[_Token] = []
    cur = _Token(tok.space)
    for c, w in zip(tok.clusters, tok.widths, strict=True):
        if w > limit:
            continue  # a glyph wider than the whole line cannot be shown at all
        if cur.clusters and cur.width + w > limit:
            carry = _Token(False)
            if " " in cur.clusters[1:]:
                cut = len(cur.clusters) - 1 - cur.clusters[::-1].index(" ")
                for cc, ww in zip(cur.clusters[cut + 1 :], cur.widths[cut + 1 :], strict=True):
                    carry.push(cc, ww)
                del cur.clusters[cut:], cur.widths[cut:]
                cur.width, cur.nbytes = sum(cur.widths), sum(len(x.encode()) for x in cur.clusters)
            pieces.append(cur)
            cur = carry
            if cur.clusters and cur.width + w > limit:  # the carried tail is still too long
                pieces.append(cur)
                cur = _Token(False)
        if c == " " and not cur.clusters:
            continue
        cur.push(c, w)
    while cur.clusters and cur.clusters[-1] == " ":
        cur.pop()
    if cur.clusters:
        pieces.append(cur)
    return pieces


def _layout(
    tokens: list[_Token], limit: int, space_w: int, max_lines: int
) -> tuple[list[list[_Token]], bool]:
    """Greedy fill; returns (lines, overflowed) and stops as soon as `max_lines` are full."""
    lines: list[list[_Token]] = []
    line: list[_Token] = []
    used = 0
    for tok in tokens:
        sep = space_w if tok.space and line else 0
        if used + sep + tok.width <= limit:
            line.append(tok)
            used += sep + tok.width
            continue
        if line:
            lines.append(line)
            if len(lines) >= max_lines:
                return lines, True
        pieces = [tok] if tok.width <= limit else _hard_break(tok, limit)
        for piece in pieces[:-1]:
            lines.append([piece])
            if len(lines) >= max_lines:
                return lines, True
        line = pieces[-1:]
        used = line[0].width if line else 0
    if line:
        lines.append(line)
    return lines, False


def _render(line: list[_Token]) -> str:
    return "".join((" " if i and t.space else "") + t.text for i, t in enumerate(line))


def _line_width(line: list[_Token], space_w: int) -> int:
    return sum(t.width + (space_w if i and t.space else 0) for i, t in enumerate(line))


def _drop_last(line: list[_Token]) -> None:
    """Shorten a line by one word/Han character, or one cluster when a single token is left."""
    if len(line) > 1:
        line.pop()
        return
    tok = line[0]
    tok.pop()
    while tok.clusters and tok.clusters[-1] == " ":
        tok.pop()
    if not tok.clusters:
        line.pop()


def _line_bytes(line: list[_Token]) -> int:
    return sum(t.nbytes + (1 if i and t.space else 0) for i, t in enumerate(line))


def _fit_bytes(lines: list[list[_Token]], budget: int) -> list[list[_Token]]:
    kept: list[list[_Token]] = []
    used = -1  # the first line has no "\n" before it
    for line in lines:
        room = budget - used - 1
        size = _line_bytes(line)
        while line and size > room:
            _drop_last(line)
            size = _line_bytes(line)
        if not line:
            break
        kept.append(line)
        used += 1 + size
        if used >= budget:
            break
    return kept


def _end_with_ellipsis(line: list[_Token], limit: int, measure: WidthFn, space_w: int) -> None:
    ell_w = measure(ELLIPSIS)
    while line and (
        _line_width(line, space_w) + ell_w > limit or line[-1].clusters[-1] in _SOFT_TAIL
    ):
        _drop_last(line)
    if line:
        line[-1].push(ELLIPSIS, ell_w)
    elif ell_w <= limit:
        line.append(_Token(False))
        line[-1].push(ELLIPSIS, ell_w)


def fit_text(
    text: str,
    profile: DisplayProfile | str,
    max_lines: int | None = None,
    *,
    max_bytes: int | None = None,
) -> list[str]:
    """Wrap `text` into at most `max_lines` lines that fit `profile`.

    `max_lines` and `max_bytes` can only tighten the profile's own limits. Text
    that does not fit ends with "…" at a word (Latin) or character (CJK) boundary.
    Control characters are stripped and whitespace collapsed; empty text gives [].
    """
    prof = resolve_profile(profile)
    limit_lines = prof.max_lines if max_lines is None else min(max_lines, prof.max_lines)
    byte_cap = prof.max_bytes if max_bytes is None else min(max_bytes, prof.max_bytes or max_bytes)
    cleaned = clean_text(text)
    if not cleaned or limit_lines <= 0 or (byte_cap is not None and byte_cap <= 0):
        return []
    measure, limit = prof.measure, prof.line_width
    space_w = measure(" ")
    # Every cluster is at least one unit wide, so more than this can never be shown;
    # the cap keeps a megabyte of input as cheap as a sentence.
    cap = limit_lines * (limit + 1) + 2
    clusters = list(islice(graphemes(cleaned), cap))
    lines, truncated = _layout(_tokenize(clusters, measure), limit, space_w, limit_lines)

    ell_bytes = len(ELLIPSIS.encode())
    if byte_cap is not None:
        total = sum(_line_bytes(line) for line in lines) + len(lines) - 1
        if total + (ell_bytes if truncated else 0) > byte_cap:
            truncated = True
            reserve = ell_bytes if byte_cap >= ell_bytes else 0
            lines = _fit_bytes(lines, byte_cap - reserve)
            if not reserve:
                return [_render(line) for line in lines]
    if truncated:
        if not lines:
            lines = [[]]
        _end_with_ellipsis(lines[-1], limit, measure, space_w)
        if not lines[-1]:
            lines.pop()
    return [_render(line) for line in lines]
