from __future__ import annotations

import httpx
import pytest

from agent.errors import BlockedError, ParseError
from agent.settings import FeedConfig, Settings
from agent.sources.feed import Feed, feed_sources
from harness.required import need_shared
from tests.conftest import SHARED_UPSTREAM, case_path
from tests.sources.mock_http import fetch_with


def test_real_rss_recording_parses_as_a_generic_feed(settings) -> None:
    # No feed-specific recording exists; the Google Trends RSS is a real RSS 2.0 body.
    folder = SHARED_UPSTREAM / "google_trends"
    need_shared("upstream/google_trends")
    files = sorted(folder.glob("*.xml"))
    assert files, f"no RSS recordings in {folder}"
    for path in files:
        topics = Feed().parse(path.read_bytes())
        assert len(topics) == 10
        assert topics[0].title == "西堀" and topics[0].rank == 1
        assert topics[0].heat is None
        assert all(t.url == "https://trends.google.com/trending/rss?geo=JP" for t in topics)


@pytest.mark.parametrize(("case", "count", "first"), [
    ("rss.xml", 18, "DeepSeek open-sources R2, a reasoning model under the MIT license"),
    ("atom.xml", 6, "Announcing Rust 1.85.0 and Rust 2024"),
    ("jsonfeed.json", 5, "Starship Flight 8 recap: second booster catch and a splashdown"),
])
def test_each_format_is_recognised_by_content(settings, case: str, count: int, first: str) -> None:
    topics = Feed().parse(case_path("feed", case).read_bytes())
    assert len(topics) == count and topics[0].title == first
    assert [t.rank for t in topics] == list(range(1, count + 1))
    assert all(t.url and t.url.startswith("https://") for t in topics)
    assert all(t.heat is None for t in topics)
    assert len({t.item_id for t in topics}) == count


def test_titles_keep_upstream_markup_and_untitled_items_use_their_text(settings) -> None:
    rss = Feed().parse(case_path("feed", "rss.xml").read_bytes())
    assert "Why <b> is not <strong>: a short history of HTML semantics" in [t.title for t in rss]
    assert rss[0].extra["comments"] == "912"
    note = Feed().parse(case_path("feed", "jsonfeed.json").read_bytes())[2]
    assert note.title.startswith("Quick note: the winter storm")


def test_hostile_and_broken_bodies(settings) -> None:
    feed = Feed()
    with pytest.raises(ParseError, match="DOCTYPE"):
        feed.parse(case_path("feed", "billion-laughs.xml").read_bytes())
    with pytest.raises(ParseError, match="malformed XML"):
        feed.parse(case_path("feed", "broken.xml").read_bytes())
    with pytest.raises(ParseError, match="JSON Feed"):
        feed.parse(case_path("feed", "not-a-json-feed.json").read_bytes())
    with pytest.raises(BlockedError):
        feed.parse(case_path("feed", "cloudflare-challenge.html").read_bytes())
    with pytest.raises(ParseError, match="unknown feed root"):
        feed.parse(b"<opml version='2.0'><body/></opml>")
    assert feed.parse(b"<rss version='2.0'><channel><title>empty</title></channel></rss>") == []


def test_unconfigured_feed_only_parses(settings) -> None:
    feed = Feed()
    assert feed.name == "feed" and feed.endpoints() == []
    assert feed.disabled_reason()


def test_feed_sources_builds_one_per_config(tmp_path) -> None:
    settings = Settings(data_dir=tmp_path, feeds=[
        FeedConfig(name="hn-best", url="https://hnrss.org/best", lang="en", interval_s=600),
        FeedConfig(name="rust-blog", url="https://blog.rust-lang.org/feed.xml"),
    ])
    hn, rust = feed_sources(settings)
    assert (hn.name, hn.interval, hn.domains) == ("hn-best", 600, ("hnrss.org",))
    assert (rust.name, rust.interval, rust.domains) == ("rust-blog", 900, ("blog.rust-lang.org",))
    assert Feed.name == "feed"  # the class itself is untouched
    assert hn.disabled_reason() is None


async def test_fetch_requests_the_configured_url(settings) -> None:
    feed = FeedConfig(name="hn-best", url="https://hnrss.org/best", lang="en")
    settings = settings.model_copy(update={"feeds": [feed]})
    (source,) = feed_sources(settings)
    seen: list[httpx.Request] = []
    body = case_path("feed", "rss.xml").read_bytes()

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, content=body, headers={"Content-Type": "application/rss+xml"})

    topics = await fetch_with(source, handler)
    assert [str(r.url) for r in seen] == ["https://hnrss.org/best"]
    assert "application/rss+xml" in seen[0].headers["Accept"]
    assert all(t.source == "hn-best" and t.lang == "en" for t in topics)
    assert topics[0].id == "hn-best:https://news.ycombinator.com/item?id=43011120"


def test_namespaced_authors_and_rss1_feeds_are_read(settings) -> None:
    # dc:creator is how Hacker News (and most RSS 2.0 generators) name the author.
    rss = Feed().parse(case_path("feed", "rss.xml").read_bytes())
    assert rss[0].extra["author"] == "deepseek_fan"
    rdf = (b'<?xml version="1.0"?><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" '
           b'xmlns="http://purl.org/rss/1.0/" xmlns:dc="http://purl.org/dc/elements/1.1/">'
           b'<channel rdf:about="https://example.org/"><title>t</title><link>https://example.org/</link></channel>'
           b'<item rdf:about="https://example.org/a"><title>RSS 1.0 item</title><link>https://example.org/a</link>'
           b'<dc:date>2025-02-10T11:00:07Z</dc:date></item></rdf:RDF>')
    topics = Feed().parse(rdf)
    assert [t.title for t in topics] == ["RSS 1.0 item"] and topics[0].url == "https://example.org/a"


def test_a_body_is_never_read_as_a_local_path(settings, tmp_path, monkeypatch) -> None:
    # feedparser opens bytes as a file name when such a file exists; the body must be what is parsed.
    body = b"<rss version='2.0'><channel><item><title>from the body</title></item></channel></rss>"
    monkeypatch.chdir(tmp_path)
    decoy = tmp_path / body.decode()
    decoy.parent.mkdir(parents=True)
    decoy.write_bytes(body.replace(b"from the body", b"from a local file"))
    assert [t.title for t in Feed().parse(body)] == ["from the body"]
