from __future__ import annotations

import json

import pytest

from agent.commands.cli import main

TOPICS = [
    {"id": "t1", "title": "春晚机器人扭秧歌", "source": "weibo", "heat": 100},
    {"id": "t2", "title": "刘谦春晚魔术揭秘"},
    {"id": 3, "title": "国内油价或出现近三年来最大跌幅", "heat": "n/a"},
    {"id": "t4", "title": "Cardinal Robert Prevost elected Pope Leo XIV", "lang": "en", "url": "https://x"},
    {"id": "t5", "title": "Egg prices hit record high amid bird flu", "summary": "A dozen eggs now costs $8"},
]


def queries_file(tmp_path, lines: list[str]):
    p = tmp_path / "q.jsonl"
    p.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return p


def test_queries_contract(tmp_path, write_topics, capsys) -> None:
    topics = write_topics(TOPICS)
    q = queries_file(
        tmp_path,
        [
            json.dumps({"text": "春晚那个扭秧歌的机器人"}, ensure_ascii=False),
            "",
            json.dumps({"text": "the new pope is from chicago", "relevant": ["t4"]}),
            json.dumps({"text": "   "}),
        ],
    )
    rc = main(["rank", "--topics", str(topics), "--queries", str(q), "--top", "3", "--embedder", "hash"])
    assert rc == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 3  # one per query, blank lines skipped
    first, second, third = (json.loads(x) for x in lines)
    assert list(first) == ["ranked"]
    assert [r["id"] for r in first["ranked"]][0] == "t1"
    assert len(first["ranked"]) == 3 and set(first["ranked"][0]) == {"id", "score"}
    scores = [r["score"] for r in first["ranked"]]
    assert scores == sorted(scores, reverse=True)
    assert second["ranked"][0]["id"] == "t4"
    assert third == {"ranked": []}


def test_default_top_is_ten_or_all(tmp_path, write_topics, capsys) -> None:
    many = [{"id": f"x{i}", "title": f"topic number {i} about things"} for i in range(15)]
    q = queries_file(tmp_path, [json.dumps({"text": "topic number 3"})])
    assert main(["rank", "--topics", str(write_topics(many)), "--queries", str(q), "--embedder", "hash"]) == 0
    assert len(json.loads(capsys.readouterr().out)["ranked"]) == 10
    assert (
        main(["rank", "--topics", str(write_topics(TOPICS)), "--queries", str(q), "--embedder", "lexical"])
        == 0
    )
    out = json.loads(capsys.readouterr().out)["ranked"]
    assert len(out) == 5 and {r["id"] for r in out} == {"t1", "t2", "3", "t4", "t5"}  # ids as strings


def test_text_json_and_human(write_topics, capsys) -> None:
    topics = str(write_topics(TOPICS))
    assert (
        main(["rank", "--topics", topics, "--text", "egg prices bird flu", "--json", "--embedder", "hash"])
        == 0
    )
    line = capsys.readouterr().out.splitlines()
    assert len(line) == 1 and json.loads(line[0])["ranked"][0]["id"] == "t5"
    assert (
        main(
            ["rank", "--topics", topics, "--text", "egg prices bird flu", "--top", "2", "--embedder", "hash"]
        )
        == 0
    )
    human = capsys.readouterr().out
    assert "Egg prices" in human and "[t5]" in human and len(human.splitlines()) == 2
    assert main(["rank", "--topics", topics, "--text", "把盐递给我", "--gate", "--embedder", "hash"]) == 0
    assert "nothing relevant" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("records", "needle"),
    [
        ([{"id": "a", "title": "ok"}, {"title": "no id here"}], "record #2 (index 1) has no usable 'id'"),
        ([{"id": "a", "title": "ok"}, {"id": "b"}], "record #2 (index 1) (id 'b') has no usable 'title'"),
        ([{"id": "a", "title": "   "}], "record #1 (index 0)"),
        ({"id": "a"}, "expected a JSON array"),
        (["just a string"], "is not an object"),
    ],
)
def test_bad_topics_exit_2_with_one_line(tmp_path, write_topics, capsys, records, needle) -> None:
    rc = main(["rank", "--topics", str(write_topics(records)), "--text", "hi", "--embedder", "hash"])
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 2
    assert len(err) == 1 and needle in err[0] and "Traceback" not in err[0]


def test_bad_json_files_name_the_line(tmp_path, write_topics, capsys) -> None:
    broken = tmp_path / "broken.json"
    broken.write_text('[{"id": "a", "title": "x"},\n{oops}]', encoding="utf-8")
    assert main(["rank", "--topics", str(broken), "--text", "hi", "--embedder", "hash"]) == 2
    assert "line 2" in capsys.readouterr().err
    q = queries_file(tmp_path, [json.dumps({"text": "ok"}), "{not json", json.dumps({"text": "ok"})])
    assert (
        main(["rank", "--topics", str(write_topics(TOPICS)), "--queries", str(q), "--embedder", "hash"]) == 2
    )
    err = capsys.readouterr().err
    assert "line 2" in err and len(err.strip().splitlines()) == 1
    q2 = queries_file(tmp_path, [json.dumps({"txt": "wrong key"})])
    assert (
        main(["rank", "--topics", str(write_topics(TOPICS)), "--queries", str(q2), "--embedder", "hash"]) == 2
    )
    assert main(["rank", "--topics", str(tmp_path / "missing.json"), "--text", "x"]) == 2


def test_unknown_embedder_is_exit_2(write_topics, capsys) -> None:
    assert main(["rank", "--topics", str(write_topics(TOPICS)), "--text", "x", "--embedder", "nope"]) == 2
    assert "valid:" in capsys.readouterr().err


def test_one_result_per_story_as_the_live_loop_ranks(tmp_path, write_topics, capsys) -> None:
    """Two platforms' items of one launch are one story: `trendlens rank` gives its best member once, and
    the next result is another story (the raw ranker would list both members first)."""
    topics = write_topics([
        {"id": "w1", "title": "华为发布Mate70系列 售价5499元起", "source": "weibo"},
        {"id": "b1", "title": "华为Mate70系列正式发布 5499元起", "source": "baidu"},
        {"id": "z1", "title": "如何评价电影哪吒2的票房", "source": "zhihu"},
    ])
    q = queries_file(tmp_path, [json.dumps({"text": "华为Mate70发布了 5499元起"}, ensure_ascii=False)])
    assert main(["rank", "--topics", str(topics), "--queries", str(q), "--top", "3", "--embedder", "hash"]) == 0
    ids = [r["id"] for r in json.loads(capsys.readouterr().out)["ranked"]]
    assert ids[0] in {"w1", "b1"}
    assert ids[1:] == ["z1"]  # the story's other member is not a second result
