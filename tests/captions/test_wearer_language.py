"""The caption keeps the topic's own title; its meta line is in the language the wearer speaks."""

from __future__ import annotations

from agent.models import detect_lang
from agent.runtime import Runtime


async def test_an_english_title_asked_about_in_chinese_gets_a_chinese_meta_line(runtime: Runtime) -> None:
    title = next(s.topic.title for s in runtime.index.stored.values()
                 if detect_lang(s.topic.title) == "en" and s.topic.heat and len(s.topic.title.split()) >= 4)
    shown = {}
    for lang, line in (("en", title), ("zh", f"{title} 对吧")):
        session, _ = runtime.sessions.create("hud-web")
        out = await runtime.handle_utterance(session, line, now=0.0)
        assert out.captions, (lang, out.decision)
        shown[lang] = out.captions[-1]
    assert shown["zh"].title == shown["en"].title  # the topic's own title, whoever asks
    # the meta line: where it ranks ("HN #2" / "微博#3"); a gist may follow it as the last line
    meta = {lang: next(line for line in c.lines if "#" in line) for lang, c in shown.items()}
    assert meta["zh"] != meta["en"]
    assert detect_lang(meta["zh"]) == "zh" and detect_lang(meta["en"]) != "zh", meta
