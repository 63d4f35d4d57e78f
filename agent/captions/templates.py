"""Compose a trending topic into a caption: the title, then where it is hot and how it moves.

    微博热搜第一的那个话题            ← title (as many lines as the profile spares)
    微博#3 · 抖音#5 ↑ 1854万          ← meta line, always kept
"""

from __future__ import annotations

import time
from typing import Literal, assert_never

from ..models import Trend
from ..models import zh_or_en as caption_lang  # the one rule: models.zh_or_en
from ..platforms import caption_label, heat_unit
from ..text import format_heat
from .caption import Caption
from .fit import fit_text
from .graphemes import clean_text
from .profiles import DisplayProfile, resolve_profile

__all__ = ["Trend", "compose_caption", "format_heat", "meta_line"]  # format_heat: agent/text.py, re-exported

CaptionLang = Literal["zh", "en"]

_SEP = " · "
_MAX_PLATFORMS = 4


def _trend_marks(trend: Trend, lang: CaptionLang, emoji: bool) -> tuple[str, str]:
    """(prefix, suffix) around the platform list."""
    if trend == "new":
        return ("🆕 " if emoji else ("新 " if lang == "zh" else "NEW ")), ""
    if trend == "rising":
        return "", " ↑"
    if trend == "falling":
        return "", " ↓"
    if trend == "steady":
        return "", ""
    assert_never(trend)


def meta_line(
    platforms: list[tuple[str, int | None]], heat: float | None, trend: Trend, lang: CaptionLang,
    *, emoji: bool = True, more: int = 0,
) -> str:
    """"微博#3 · 抖音#5 ↑ 1854万" / "🆕 HN #2 · 412 pts" (not yet fitted); `more` platforms of the
    story that do not fit are counted ("微博#3 · 抖音#5 +2"), so the line never undercounts a story."""
    hash_sep = "#" if lang == "zh" else " #"
    where = _SEP.join(
        caption_label(p) + (f"{hash_sep}{rank}" if rank is not None else "") for p, rank in platforms
    ) + (f" +{more}" if more > 0 else "")
    prefix, suffix = _trend_marks(trend, lang, emoji)
    line = f"{prefix}{where}{suffix}".strip()
    if heat is not None and heat > 0:
        amount = format_heat(heat, lang)
        if lang == "zh":
            line = f"{line} {amount}" if line else amount
        else:
            unit = heat_unit(platforms[0][0]) if platforms else ""
            amount = f"{amount} {unit}" if unit else amount
            line = f"{line}{_SEP}{amount}" if line else amount
    return line


def _fitted_meta(
    prof: DisplayProfile, platforms: list[tuple[str, int | None]], heat: float | None, trend: Trend,
    lang: CaptionLang,
) -> str:
    """The meta line on one line: fewer platforms before truncating with an ellipsis."""
    shown = platforms[:_MAX_PLATFORMS]
    while True:
        line = meta_line(shown, heat, trend, lang, emoji=prof.emoji, more=len(platforms) - len(shown))
        fits = prof.width(line) <= prof.line_width and (
            prof.max_bytes is None or len(line.encode()) <= prof.max_bytes
        )
        if fits or len(shown) <= 1:
            break
        shown = shown[:-1]
    fitted = fit_text(line, prof, max_lines=1)
    return fitted[0] if fitted else ""


def _title_lines(title: str, prof: DisplayProfile, meta: str, *, with_summary: bool) -> list[str]:
    """The title in the lines and bytes the meta line leaves; with a summary, one line fewer while
    the title would still have two."""
    budget = None if prof.max_bytes is None else prof.max_bytes - len(meta.encode()) - 1
    room = prof.max_lines - (1 if meta else 0)
    if with_summary and room >= 2:
        room -= 1
    return fit_text(title, prof, room, max_bytes=budget) if budget is None or budget > 0 else []


def _summary_lines(summary: str | None, prof: DisplayProfile, above: list[str]) -> list[str]:
    """The summary in whatever lines and bytes the title and meta line (`above`) left, if any."""
    room = prof.max_lines - len(above)
    if not summary or room <= 0:
        return []
    left = None if prof.max_bytes is None else prof.max_bytes - len("\n".join(above).encode()) - 1
    if left is not None and left <= 0:
        return []
    return fit_text(summary, prof, room, max_bytes=left)


def compose_caption(
    *,
    title: str,
    platforms: list[tuple[str, int | None]],
    heat: float | None,
    trend: Trend,
    profile: DisplayProfile | str,
    summary: str | None = None,
    score: float,
    topic_id: str,
    ttl_ms: int | None = None,
    session_id: str | None = None,
    lang: CaptionLang | None = None,
    now: float | None = None,
) -> Caption:
    """A caption that fits `profile`: title lines, the meta line, then the summary if room is left.

    `platforms` are (platform, rank) pairs, best first; `lang` is the meta line's language,
    the wearer's (the title is always the topic's own); it defaults to the title's script
    (Chinese → 万/亿, otherwise k/M). The meta line is always kept; the title gets up to
    max_lines-1 lines (one fewer when a summary is given).
    """
    prof = resolve_profile(profile)
    title = clean_text(title)
    meta = _fitted_meta(prof, platforms, heat, trend, lang or caption_lang(title))
    meta_lines = [meta] if meta else []
    title_lines = _title_lines(title, prof, meta, with_summary=bool(summary))
    lines = tuple(title_lines + meta_lines + _summary_lines(summary, prof, title_lines + meta_lines))
    return Caption(
        topic_id=topic_id,
        title=title,
        text="\n".join(lines),
        lines=lines,
        score=score,
        source="+".join(p for p, _ in platforms),
        ttl_ms=prof.ttl_ms if ttl_ms is None else ttl_ms,
        profile=prof.name,
        created_at=time.time() if now is None else now,
        session_id=session_id,
        headline=len(title_lines) + len(meta_lines),
    )
