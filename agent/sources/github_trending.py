"""GitHub trending repositories (HTML): today's `article.Box-row` markup and 2019's `ol.repo-list` one."""

from __future__ import annotations

import re

from selectolax.lexbor import LexborHTMLParser as HTMLParser
from selectolax.lexbor import LexborNode as Node

from ..errors import BlockedError, ParseError
from ..models import Topic
from .base import Endpoint, Source, decode_text, ensure_not_blocked

_REPO = re.compile(r"^/([\w.-]+)/([\w.-]+)/?$")
_STARS_TODAY = re.compile(r"([\d,.]+\s*[kK]?)\s+stars?\s+(today|this week|this month)")
_EMPTY = "we don’t have any trending repositories"
_ABUSE = ("You have triggered an abuse detection mechanism", "exceeded a secondary rate limit")


def _text(node: Node | None) -> str:
    return " ".join(node.text(separator=" ").split()) if node is not None else ""


class GithubTrending(Source):
    name = "github_trending"
    title = "GitHub Trending"
    lang = "en"
    interval_s = 3600
    domains = ("github.com",)
    replay = "trending.html"

    def endpoints(self) -> list[Endpoint]:
        return [Endpoint("https://github.com/trending?since=daily", headers={"Accept": "text/html"})]

    def parse(self, body: bytes, *, url: str | None = None) -> list[Topic]:
        text = decode_text(body)
        for marker in _ABUSE:
            if marker in text[:20000]:
                raise BlockedError(self.name, f"blocked by GitHub ({marker!r})", url=url)
        tree = HTMLParser(text)
        rows = tree.css("article.Box-row")  # today's markup
        shape = "article"
        if not rows:
            rows = tree.css("ol.repo-list > li")  # 2019 markup
            shape = "repo-list"
        if not rows:
            ensure_not_blocked(self.name, text, url)
            if _EMPTY in text.replace("'", "’"):
                return []
            raise ParseError(self.name, "missing 'article.Box-row' (or 2019 'ol.repo-list > li') rows "
                             "in the page", url=url)
        topics: list[Topic] = []
        for row in rows:
            anchor = row.css_first("h2 a, h1 a, h3 a")
            match = _REPO.match((anchor.attributes.get("href") or "").strip()) if anchor is not None else None
            if match is None:
                continue
            full = f"{match.group(1)}/{match.group(2)}"
            stars_node = row.css_first("span.d-inline-block.float-sm-right")
            stars = _STARS_TODAY.search(_text(stars_node))
            total = next((_text(a) for a in row.css("a")
                          if (a.attributes.get("href") or "").endswith("/stargazers")), None)
            topics.append(self.topic(
                item_id=full, title=full, rank=len(topics) + 1, lang="en",
                summary=_text(row.css_first("p")) or None,
                heat_text=(_text(stars_node) or None) if stars else None,
                heat=stars.group(1).replace(",", "") if stars else None,
                url=f"https://github.com/{full}",
                extra={"language": _text(row.css_first("[itemprop=programmingLanguage]")) or None,
                       "stars": total, "markup": shape},
            ))
        if not topics:
            raise ParseError(self.name, "no trending row had an 'owner/repo' link in its heading", url=url)
        return topics
