"""Links as a person reads them in a reply, and in full where a program reads them."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from wcwidth import wcswidth

from agent.sources.links import READABLE_LINK_WIDTH, readable_link

BAIDU = ("https://www.baidu.com/s?wd=%E7%89%B9%E6%9C%97%E6%99%AE%E5%90%AC%E6%95%85%E5%AE%AB%E4%B8%89%E5%8E%9F"
         "%E8%89%B2%E9%81%93%E7%90%86%E5%90%8E%E6%87%B5%E4%BA%86&sa=fyb_news&rsv_dl=fyb_news")


@pytest.mark.parametrize(("url", "shown"), [
    # a real Baidu link: 181 characters for a 14-character title
    (BAIDU, "https://www.baidu.com/s?wd=特朗普听故宫三原色道理后懵了"),
    # '#' and '&' inside a value stay escaped: decoding them would change where the link goes
    ("https://s.weibo.com/weibo?q=%23%E6%98%A5%E6%99%9A%23", "https://s.weibo.com/weibo?q=%23春晚%23"),
    ("https://www.baidu.com/s?wd=A%26B+%E5%9B%9E%E5%BA%94", "https://www.baidu.com/s?wd=A%26B+回应"),
    ("https://www.zhihu.com/question/1895809164938277476", "https://www.zhihu.com/question/1895809164938277476"),
    ("https://example.com/a?utm_source=x&spm=1&id=7#comments", "https://example.com/a?id=7"),
    # invisible and bidirectional characters are never shown raw
    ("https://example.com/%E2%80%8Bx%E2%80%AE", "https://example.com/%E2%80%8Bx%E2%80%AE"),
    ("https://example.com/%E3%80%80", "https://example.com/%E3%80%80"),  # ideographic space
    (None, None), ("", None),
])
def test_readable_link(url, shown):
    assert readable_link(url) == shown


def test_a_link_still_too_wide_is_left_out():
    long_title = "特朗普" * 40
    assert readable_link(f"https://www.baidu.com/s?wd={long_title}") is None
    assert readable_link("https://example.com/" + "a" * 200) is None


def test_chat_answers_on_a_real_day_carry_only_readable_links(tmp_path: Path):
    """Every link in the chat's answers on the real lists is short and readable; the JSON keeps the full URL."""
    from fastapi.testclient import TestClient

    from agent.api import create_app
    from harness.apps import AUTH
    from harness.realdata import need_upstream, real_runtime

    need_upstream()
    runtime = real_runtime(tmp_path)
    with TestClient(create_app(runtime.settings, runtime=runtime, schedule=False, announce_key=False)) as c:
        links: list[str] = []
        for question in ("今天最火的是什么？", "百度热搜是什么？", "What's new in the last few hours?",
                         "中方回应美对华加征245%关税是怎么回事？", "百度第一是什么"):
            r = c.post("/v1/chat/completions", headers=AUTH, json={"messages": [{"role": "user", "content": question}]})
            links += re.findall(r"https?://\S+", r.json()["choices"][0]["message"]["content"])
        full = c.get("/v1/topics?source=baidu&limit=1", headers=AUTH).json()["items"][0]["url"]
    assert any("baidu.com" in link for link in links)
    for link in links:
        assert wcswidth(link) <= READABLE_LINK_WIDTH and not re.search(r"%[89A-F][0-9A-F]", link), link
        assert "rsv_dl" not in link and "sa=fyb" not in link
    assert full.startswith("https://www.baidu.com/s?wd=%") and "rsv_dl" in full  # structured: the full URL
