"""Answers grounded in the ranked topics: for the chat API and the Lingzhu glasses agent.

With no LLM configured the answer is composed from templates, deterministically.
With one configured (OpenAI-compatible), it words the answer from the same
grounded topic list, and any failure or timeout falls back to the template.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

import httpx

from .digest import PLATFORM_NAMES, _fmt_heat
from .links import safe_link
from .models import Topic, detect_lang

if TYPE_CHECKING:
    from .runtime import Runtime

__all__ = ["Answer", "answer_question"]

log = logging.getLogger("trendlens.chat")

Style = Literal["chat", "glasses"]

# Category words → sources that cover them (the way people ask: "what's trending in tech?")
_CATEGORIES: tuple[tuple[re.Pattern[str], tuple[str, ...]], ...] = (
    (re.compile(r"\b(tech|technology|programming|developers?|coding|software|open source|ai)\b"
                r"|科技|技术|程序员|编程|开源", re.I), ("hackernews", "github_trending", "v2ex", "reddit")),
    (re.compile(r"\b(videos?|youtube)\b|视频|b站|哔哩|抖音", re.I), ("bilibili", "douyin")),
)
_FILLER = re.compile(
    r"(最近|现在|今天|有什么|有啥|哪些|关于|的|热梗|热搜|热点|新闻|吗|呢|啊|？|\?|what'?s|what is|trending|hot|today|"
    r"right now|in|about|the|any|are|is|news|tell me|me)", re.I)


@dataclass(frozen=True, kw_only=True)
class Answer:
    text: str
    topics: list[Topic]
    lang: Literal["zh", "en"]


def _lang_of(question: str) -> Literal["zh", "en"]:
    return "zh" if detect_lang(question) in ("zh", "ja") else "en"


def _where(topic: Topic, runtime: Runtime, lang: str) -> str:
    cluster = runtime.clusters.get(topic.id)
    members = cluster.members if cluster else [topic]
    parts = []
    for m in sorted(members, key=lambda m: m.rank or 999)[:3]:
        name = PLATFORM_NAMES.get(m.source, m.source)
        parts.append(f"{name}#{m.rank}" if m.rank else name)
    heat = cluster.heat if cluster else topic.heat
    heat_text = (_fmt_heat(heat) if lang == "zh" else f"{heat:,.0f}") if heat else ""
    sep = "、" if lang == "zh" else ", "
    if lang == "zh":
        return sep.join(parts) + (f"，热度{heat_text}" if heat_text else "")
    return sep.join(parts) + (f", heat {heat_text}" if heat_text else "")


def _template(question: str, topics: list[Topic], runtime: Runtime, lang: str, style: Style) -> str:
    if not topics:
        return "暂时没有找到相关的热门话题。" if lang == "zh" else "I found nothing trending about that right now."
    if style == "glasses":
        t = topics[0]
        if lang == "zh":
            more = f"另外还有「{topics[1].title}」。" if len(topics) > 1 else ""
            return f"最热的是「{t.title}」，{_where(t, runtime, lang)}。{more}"
        more = f" Also: {topics[1].title}." if len(topics) > 1 else ""
        return f"Top now: {t.title} ({_where(t, runtime, lang)}).{more}"
    head = "最近的相关热点：" if lang == "zh" else "Trending now:"
    lines = [head]
    for n, t in enumerate(topics, 1):
        link = safe_link(t)
        tail = f" {link}" if link else ""
        lines.append(f"{n}. {t.title} — {_where(t, runtime, lang)}{tail}")
    return "\n".join(lines)


async def _relevant(runtime: Runtime, question: str, limit: int) -> list[Topic]:
    lang = _lang_of(question)
    sources: tuple[str, ...] = ()
    for pattern, covered in _CATEGORIES:
        if pattern.search(question):
            sources = covered
            break
    core = _FILLER.sub(" ", question).strip()
    ranked = await runtime.rank(question, top_k=limit * 4, prior=True, mmr=True, gate=True) if core else []
    # relevance first; fall back to what is hottest in the asker's language (and category)
    picked = [r.topic for r in ranked
              if not sources or r.topic.source in sources]
    if len(picked) < limit:
        pool = [s.topic for s in sorted(runtime.stored.values(), key=lambda s: -(s.topic.heat or 0))]
        if sources:
            pool = [t for t in pool if t.source in sources]
        else:
            pool = [t for t in pool if (t.lang == "zh") == (lang == "zh")]
        if not picked or sources:
            picked += [t for t in pool if t.id not in {p.id for p in picked}]
    return picked[:limit]


async def answer_question(runtime: Runtime, question: str, *, style: Style = "chat", limit: int = 3) -> Answer:
    lang = _lang_of(question)
    topics = await _relevant(runtime, question, 2 if style == "glasses" else limit)
    text = _template(question, topics, runtime, lang, style)
    settings = runtime.settings
    if settings.llm_base_url and topics:
        worded = await _llm_wording(runtime, question, text, style, lang)
        if worded:
            text = worded
    return Answer(text=text, topics=topics, lang=lang)


async def _llm_wording(runtime: Runtime, question: str, grounded: str, style: Style, lang: str) -> str | None:
    s = runtime.settings
    assert s.llm_base_url
    rule = ("Answer in at most two short sentences for a smart-glasses display." if style == "glasses"
            else "Answer briefly; keep every platform, heat figure and link you use exactly as given.")
    messages = [
        {"role": "system", "content": "You answer questions about trending topics using ONLY these facts:\n"
                                      f"{grounded}\n{rule} Reply in {'Chinese' if lang == 'zh' else 'English'}."},
        {"role": "user", "content": question},
    ]
    headers = {"Authorization": f"Bearer {s.llm_api_key.get_secret_value()}"} if s.llm_api_key else {}
    client = runtime.llm_client
    if client is None:
        return None
    try:
        resp = await client.post(s.llm_base_url.rstrip("/") + "/chat/completions", headers=headers,
                                 json={"model": s.llm_model, "messages": messages, "temperature": 0.3},
                                 timeout=s.llm_timeout_s)
        resp.raise_for_status()
        content = resp.json()["choices"][0]["message"]["content"]
        return str(content).strip() or None
    except (httpx.HTTPError, KeyError, IndexError, TypeError, ValueError) as exc:
        log.warning("LLM wording failed (%s); answering from the template", type(exc).__name__)
        return None
