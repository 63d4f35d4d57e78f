"""What a user checks of each tool, on the synthetic demo snapshot and on a real recorded day; the
same checks run over stdio (tests/mcp/test_stdio.py) and over HTTP (tests/api/test_mcp_http.py)."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

from mcp.client.session import ClientSession

from agent.models import Topic

from .client import call, fails, resource

ESCAPES = re.compile(r"%[0-9A-F]{2}%[0-9A-F]{2}")  # percent-escaped letters: a link nobody can read


async def check_synthetic(session: ClientSession) -> None:
    """Each tool and resource on the synthetic demo snapshot (agent/synthetic)."""
    # all platforms, on fair heat: the Spring Festival robot story leads on several lists
    text, hot = await call(session, "trending", limit=5)
    assert hot["order"] == "fair heat" and len(hot["items"]) == 5
    lead = hot["items"][0]
    assert "春晚" in lead["title"] and len(lead["platforms"]) >= 3, lead
    assert text.startswith("Hottest across platforms now:") and lead["title"] in text
    assert not ESCAPES.search(text), text
    # one platform, in its own order, worded in Chinese
    text, zhihu = await call(session, "trending", platform="知乎", limit=3, lang="zh")
    assert zhihu["platform"] == "zhihu" and zhihu["order"] == "platform rank"
    assert [i["platforms"][0]["rank"] for i in zhihu["items"]] == [1, 2, 3]
    assert {p["platform"] for i in zhihu["items"] for p in i["platforms"]} == {"zhihu"}
    assert text.startswith("知乎现在的前3名")
    # a call the schema admits is answered: no argument is the day's biggest story
    _, biggest = await call(session, "story")
    assert biggest["found"] and biggest["story"]["title"] == lead["title"]
    # a story by the id another tool gave, and by words
    text, story = await call(session, "story", id=lead["id"])
    assert story["found"] and story["story"]["title"] == lead["title"] and story["story"]["platforms"]
    assert story["story"]["url"].startswith("https://") and story["story"]["first_seen"]
    assert lead["title"] in text and "first seen" in text
    _, by_words = await call(session, "story", words="沈腾马丽")
    assert by_words["found"] and "沈腾" in by_words["story"]["title"]
    text, missing = await call(session, "story", words="quokka zebra marathon")
    assert missing == {"found": False, "story": None} and "nothing trending" in text
    # what the glasses would show: a caption for table talk about a trend, silence for the rest
    text, shown = await call(session, "glasses_preview", line="春晚机器人扭秧歌太好笑了", profile="even-g1")
    assert shown["show"] and shown["reason"] == "shown"
    assert shown["caption"]["lines"][0] == "春晚机器人扭秧歌" and shown["caption"]["profile"] == "even-g1"
    assert shown["match"]["title"] == "春晚机器人扭秧歌" and "春晚机器人扭秧歌" in shown["shared_words"]
    assert shown["score"] > 0 and shown["components"]["lexical"] > 0
    assert text.startswith("The glasses would show")
    text, quiet = await call(session, "glasses_preview", line="我明天要去医院复查牙齿，好紧张")
    assert not quiet["show"] and quiet["reason"] == "no_candidate" and quiet["caption"] is None
    assert text.startswith("Silent")
    _, short = await call(session, "glasses_preview", line="嗯")
    assert not short["show"] and short["reason"] == "not_enough_speech"
    # new or rising: the snapshot was fetched just now, so everything is new
    text, fresh = await call(session, "new_or_rising", hours=2, limit=4)
    assert fresh["hours"] == 2 and len(fresh["items"]) == 4 and all(i["trend"] == "new" for i in fresh["items"])
    assert text.startswith("New or rising in the last 2 hours")
    # the digest of a window
    text, digest = await call(session, "digest", hours=24, limit=5)
    assert len(digest["items"]) == 5 and digest["items"][0]["score"] >= digest["items"][-1]["score"]
    assert all(p["url"] is None or p["url"].startswith("http") for i in digest["items"] for p in i["platforms"])
    assert text.startswith("Digest since") and digest["items"][0]["title"] in text
    # resources: today's digest and the sources with their health
    today = await resource(session, "trendlens://digest/today")
    assert today["items"] and today["items"][0]["title"] == digest["items"][0]["title"]
    sources = await resource(session, "trendlens://sources")
    by_name = {s["name"]: s for s in sources["items"]}
    assert by_name["weibo"]["status"] == "ok" and by_name["weibo"]["last_count"] > 0
    assert sources["data"] == "synthetic demo snapshot"
    # the kept history: a search by words within a period, a story's heat over time, two periods compared
    text, kept = await call(session, "search_history", words="春晚 机器人", period="今天", limit=5)
    assert kept["items"] and all("春晚" in i["title"] or "机器人" in i["title"] for i in kept["items"])
    assert kept["items"][0]["best_rank"] and kept["items"][0]["fetches"] >= 1 and text.startswith("Listed 今天")
    _, nothing = await call(session, "search_history", words="春晚 !春晚", period="today")
    assert nothing["items"] == []
    text, heat = await call(session, "heat_over_time", id=lead["id"])
    assert heat["found"] and heat["series"][0]["id"] == lead["id"] and heat["series"][0]["points"]
    assert {s["platform"] for s in heat["series"]} == {p["platform"] for p in lead["platforms"]} and "fetches" in text
    _, compared = await call(session, "compare_periods", first="yesterday", second="today", limit=50)
    assert compared["left"] == [] and compared["stayed"] == [] and len(compared["arrived"]) == 50


async def check_bad_arguments(session: ClientSession) -> None:
    """Each mistake is a tool error that says what to fix; the session answers on afterwards."""
    assert "limit" in await fails(session, "trending", limit=0)
    err = await fails(session, "trending", platform="myspace")
    assert "myspace" in err and "zhihu" in err and "hackernews" in err
    assert "line" in await fails(session, "glasses_preview", line="")
    assert "line" in await fails(session, "glasses_preview", line="   ")
    assert "profile" in await fails(session, "glasses_preview", line="春晚机器人", profile="google-glass")
    assert "hours" in await fails(session, "new_or_rising", hours=-1)
    assert "ISO 8601" in await fails(session, "digest", since="yesterday")
    assert "period" in await fails(session, "search_history", words="春晚", period="someday")
    assert "words" in await fails(session, "search_history", words="/[/", period="today")
    assert "period" in await fails(session, "compare_periods", first="2024-02-30")
    assert "Unknown tool: delete_everything" in await fails(session, "delete_everything")
    _, still = await call(session, "trending", limit=1)
    assert len(still["items"]) == 1


async def check_real_day(session: ClientSession, lists: dict[str, list[Topic]]) -> None:
    """Each tool on the real Zhihu, Baidu, Douyin and V2EX lists of two recorded days (harness/realdata.py)."""
    zhihu, baidu, douyin = lists["zhihu"], lists["baidu"], lists["douyin"]
    # one platform: Zhihu's own list, in its order
    text, top = await call(session, "trending", platform="zhihu", limit=5)
    assert [i["title"] for i in top["items"]] == [t.title for t in zhihu[:5]]
    assert text.startswith("Top 5 on Zhihu now:")
    # all platforms: the tariff story, #1 on Zhihu and #3 on Baidu, leads
    _, hot = await call(session, "trending", limit=3)
    lead = hot["items"][0]
    assert lead["title"] == zhihu[0].title
    assert {(p["platform"], p["rank"]) for p in lead["platforms"]} >= {("zhihu", 1), ("baidu", 3)}
    # a story by words: on Baidu both days, #6 yesterday and #7 today, cooling
    text, story = await call(session, "story", words="反网络霸权 网警在行动")
    s = story["story"]
    assert story["found"] and s["platforms"] == [{"platform": "baidu", "name": "Baidu", "rank": 7}]
    assert s["trend"] == "falling" and len(s["heat_history"]) == 2 and s["heat_history"][0] > s["heat_history"][1]
    first_seen = datetime.fromisoformat(s["first_seen"])
    assert timedelta(hours=19) < datetime.now(UTC) - first_seen < timedelta(hours=21)
    assert "Baidu #7" in text and "cooling" in text and "first seen 20 hours ago" in text
    assert s["url"].startswith("https://www.baidu.com/s?wd=%") and "https://www.baidu.com/s?wd=反网络霸权" in text
    # its history kept: both days' places, found by words within a period and by the story tool's id
    _, kept = await call(session, "search_history", words="反网络霸权", period="last 7 days")
    assert [(i["platform"], i["best_rank"], i["fetches"]) for i in kept["items"]] == [("baidu", 6, 2)]
    _, heat = await call(session, "heat_over_time", id=s["id"])
    assert [p["rank"] for p in heat["series"][0]["points"]] == [6, 7]
    # a story by the id `trending` gave: the chat's own story answer, every platform and why it is one story
    text, by_id = await call(session, "story", id=lead["id"])
    s = by_id["story"]
    assert s["title"] == lead["title"] and {p["platform"] for p in s["platforms"]} >= {"zhihu", "baidu"}
    assert s["items"] == 3 and "美对华加征245%关税" in s["shared"]["wording"] and "美对华加征245%关税" in s["why"], s
    assert s["why"] in text and "Zhihu #1" in text and "Baidu #3" in text, text
    # the glasses: a line about the tariff war brings up a tariff story; small talk brings nothing
    _, shown = await call(session, "glasses_preview", line="美国又加征关税了，245%也太离谱了吧")
    assert shown["show"] and "关税" in shown["match"]["title"] and shown["caption"]["lines"]
    _, quiet = await call(session, "glasses_preview", line="我明天要去医院复查牙齿，好紧张")
    assert not quiet["show"]
    # new or rising in the last 6 hours: today's lists only (Douyin's is a day old)
    _, fresh = await call(session, "new_or_rising", hours=6, limit=10)
    seen = {p["platform"] for i in fresh["items"] for p in i["platforms"]}
    assert fresh["items"] and "douyin" not in seen and seen <= {"zhihu", "baidu", "v2ex"}
    # the digest of a window: the last 24 hours hold both days, the last two hours only today's
    _, day = await call(session, "digest", hours=24, limit=200)
    _, recent = await call(session, "digest", since=(datetime.now(UTC) - timedelta(hours=2)).isoformat(), limit=200)
    titles = {p["title"] for i in day["items"] for p in i["platforms"]}
    recent_titles = {p["title"] for i in recent["items"] for p in i["platforms"]}
    assert douyin[0].title in titles and douyin[0].title not in recent_titles
    assert baidu[0].title in recent_titles
