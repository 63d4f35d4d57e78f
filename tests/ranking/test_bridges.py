"""English lines about Chinese list items: the bridges turn what the line names into the titles' words."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from agent.models import Topic
from agent.ranking import HashEmbedder, Ranker
from agent.ranking.bridges import NAME_REF_N, bridge_terms, dictionary
from agent.ranking.embedders import Role
from agent.ranking.pinyin_names import PinyinNames, syllables
from agent.ranking.ranker import agreeing_rows
from agent.ranking.scoring import score
from agent.ranking.window import ConversationWindow

from .conftest import relevance_query

# Synthetic list entries (written here), titles as a Chinese list words them.
ENTRIES = [("weibo", "a", "岳云鹏嘴瓢"), ("baidu", "b", "华为发布新款折叠屏手机"), ("douyin", "c", "周杰伦新歌上线"),
           ("weibo", "d", "今天天气晴朗适合出游"), ("zhihu", "e", "如何评价某电视剧大结局")]


def _terms(names: PinyinNames, line: str, english: set[str]) -> list[str]:
    """The bigrams of every name the line says in pinyin, in order."""
    return [term for bigrams, _ in names.names(line, english) for term in bigrams]


def test_the_dictionary_names_people_and_brands_in_their_chinese_forms() -> None:
    made = bridge_terms("Did you hear Jay Chou's new song, and Huawei has a new phone?")
    assert "周杰伦" in made.text["cedict-name"] and "华为" in made.text["cedict-name"]
    assert not bridge_terms("今天吃什么").text  # a Chinese line needs no bridge


def test_a_name_said_in_pinyin_reads_as_the_titles_bigrams() -> None:
    assert syllables("yunpeng") == ["yun", "peng"] and syllables("nigmat") is None
    names = PinyinNames()
    names.refresh(["岳云", "云鹏", "嘴瓢", "天气"], owner=1)
    english = {"slipped", "up", "on", "stage"}
    assert _terms(names, "Yue Yunpeng slipped up on stage", english=english) == ["岳云", "云鹏"]
    assert _terms(names, "Yue", english=set()) == []  # one syllable alone names a hundred characters


def test_a_surname_that_is_also_an_english_word_is_read_as_pinyin_beside_a_given_name() -> None:
    """"Zhang" is a length and "Sun" a star to the dictionary; capitalised beside a pinyin given name they
    are the surname (章若楠, 孙越), and lower-case or alone they stay English."""
    names = PinyinNames()
    names.refresh(["章若", "若楠", "孙越", "岳云", "云鹏"], owner=1)
    english = {"zhang", "sun", "and", "the", "is", "out", "wore", "that"}
    assert _terms(names, "that cardigan Zhang Ruonan wore", english=english) == ["章若", "若楠"]
    assert _terms(names, "Yue Yunpeng and Sun Yue", english=english) == ["岳云", "云鹏", "孙越"]
    assert _terms(names, "the sun is out and Sun is out", english=english) == []


def test_a_name_written_in_capitals_ends_where_they_do() -> None:
    """"wore" is no word of the dictionary and reads as pinyin (wo re): run on after "Zhang Ruonan" it made a
    five-syllable name whose every bigram weighed half. Capitals mark a name; an uncased line reads on."""
    names = PinyinNames()
    names.refresh(["章若", "若楠", "我热"], owner=1)
    english = {"that", "cardigan"}
    assert names.names("that cardigan Zhang Ruonan wore", english) == [(["章若", "若楠"], 2)]
    assert names.names("that cardigan zhang ruonan wore", english) == [(["章若", "若楠", "我热"], 4)]


def test_a_surname_read_its_own_way_and_a_given_name_that_is_a_city_read_as_the_name() -> None:
    """单 reads dan in a word and shan as a surname; "Yichun" is a city to the dictionary. "Shan Yichun"
    is 单依纯 (synthetic titles); a given name's other readings stay out (可 as ge would make 胡可 "Hu Ge")."""
    names = PinyinNames()
    names.refresh(["单依", "依纯", "胡可", "胡歌"], owner=1)
    english = {"yichun", "song", "s"}
    assert _terms(names, "Shan Yichun's song", english) == ["单依", "依纯"]
    assert _terms(names, "yichun", english) == []  # lower-case and alone, the city
    assert _terms(names, "Hu Ge sang", {"sang"}) == ["胡歌"]


def test_a_city_or_a_province_is_bridged_by_its_name_alone() -> None:
    """CC-CEDICT glosses 成都 "Chengdu subprovincial city and capital of Sichuan province …" and 四川 "Sichuan province
    (Szechuan) in southwest China": the whole gloss was the key, so "Chengdu" bridged to nothing and "Sichuan" to
    巴蜀 and 川滇藏 only. A place's gloss opens with its name, and the name is what is said, as it is in a gloss of
    two capitalised words or more followed by where the thing is (西湖, "West Lake in Hangzhou")."""
    made = bridge_terms("He is streaming from Chengdu tonight, the Sichuan food looks amazing").text["cedict-name"]
    assert "成都" in made.split() and made.split().index("四川") < made.split().index("巴蜀")
    assert "杭州" in bridge_terms("Our Hangzhou relatives brought vinegar fish").text["cedict-name"].split()
    assert {"成都", "四川", "杭州"} <= dictionary().places  # still places to the stories' terms
    # a name, then where it is ("West Lake in Hangzhou"): the name is what is said
    assert "西湖" in bridge_terms("They walked around West Lake at night").text["cedict-name"].split()


def test_a_foreign_persons_given_name_names_them_alone() -> None:
    """CC-CEDICT has 科比 for "Kobe Bryant": "Kobe" said alone names him. A word of a longer name that is no
    person's ("Gala" of "Spring Festival Gala"), a name of its own ("Paris", not Paris Hilton) or anyone's
    given name ("Robert", not Robert Burns) does not."""
    assert "科比" in bridge_terms("they unveiled Kobe's first statue").text["cedict-name"].split()
    assert "春晚" not in bridge_terms("did you see the Gala stage").text.get("cedict-name", "")
    assert bridge_terms("How was your vacation in Paris?").text["cedict-name"].split() == ["巴黎"]
    # a given name the dictionary transliterates for anyone (罗伯特, "Robert (name)") names no one person
    assert not bridge_terms("May I please speak to Robert?").text.get("cedict-name")


async def test_the_given_name_of_a_chinese_person_in_the_dictionary_names_no_one_alone() -> None:
    """CC-CEDICT glosses 伏明霞 "Fu Mingxia (1978-)": a Chinese name in its pinyin, surname first, so "Mingxia" is a
    given name many share, not the surname that names her alone (as "Messi" does). Read as English it kept a
    two-syllable name said alone from its pinyin: "Mingxia", a panda's name in a synthetic headline, reaches the
    headline that starts with 明霞, and the whole name still names the diver."""
    assert "伏明霞" not in bridge_terms("Mingxia the panda was dancing").text.get("cedict-name", "")
    assert "伏明霞" in bridge_terms("Fu Mingxia won the diving gold").text["cedict-name"].split()
    entries = ENTRIES + [("weibo", "p", "明霞龙年蹦迪")]
    ranker = Ranker(HashEmbedder(), [Topic(source=s, item_id=i, title=t, rank=1) for s, i, t in entries])
    found = await ranker.rank(relevance_query("Mingxia the panda was dancing for the new year", top_k=1, gate=True))
    assert found and found[0].topic.title == "明霞龙年蹦迪" and found[0].bridge == "pinyin"


async def test_an_english_line_naming_someone_reaches_a_short_headline_of_their_name() -> None:
    """A short title needs two of its terms to match (lexical.py); a two-character name is one bigram, so an
    English line naming 肖战 reached no "肖战龙头帽" (synthetic titles). The whole name is enough."""
    entries = ENTRIES + [("baidu", "xz", "肖战龙头帽"), ("weibo", "xy", "战斗民族过春节")]
    ranker = Ranker(None, [Topic(source=s, item_id=i, title=t, rank=1) for s, i, t in entries])
    found = await ranker.rank(relevance_query("Xiao Zhan in that dragon head hat, so cute.", top_k=1, gate=True))
    assert found and found[0].topic.title == "肖战龙头帽" and found[0].bridge == "pinyin"


def test_a_name_spelt_in_another_romanisation_reads_as_the_characters_that_sound_like_it() -> None:
    """"Dilraba" is no pinyin (迪丽热巴 reads di li re ba): its consonants d-l-r-b are the pinyin's, in order.
    A short word (m-s-k) names no run, and y and w, which pinyin writes for a vowel, count as none."""
    names = PinyinNames()
    names.refresh(["迪丽", "丽热", "热巴", "三大", "大爷", "马斯", "斯克", "今天"], owner=1)
    english = {"did", "you", "see", "in", "the", "new", "drama", "on"}
    assert names.spelt("Did you see Dilraba in the new drama", english) == ["迪丽热巴"]
    assert names.spelt("Did you see Musk on Sunday", english) == []
    assert names.spelt("did you see dilraba", english) == []  # not capitalised: no name said


async def test_an_english_line_naming_someone_in_another_romanisation_gets_the_headline_that_names_them() -> None:
    """Synthetic headlines: "Dilraba" reaches the one that names 迪丽热巴. "Michael" sounds like 么处理 too, but
    in "这件事该怎么处理" those characters run across two words, where no name stands, so it reaches nothing."""
    entries = ENTRIES + [("weibo", "f", "迪丽热巴新剧今晚开播"), ("baidu", "g", "这件事该怎么处理")]
    ranker = Ranker(HashEmbedder(), [Topic(source=s, item_id=i, title=t, rank=1) for s, i, t in entries])
    found = await ranker.rank(relevance_query("Did you see Dilraba in that new drama tonight?", top_k=1, gate=True))
    assert found and found[0].topic.title == "迪丽热巴新剧今晚开播" and found[0].bridge == "pinyin"
    assert await ranker.rank(relevance_query("Michael is coming over tonight", top_k=1, gate=True)) == []


async def test_a_name_in_another_romanisation_reaches_a_question_that_names_them_after_other_words() -> None:
    """Synthetic headlines: a question names its subject after other words ("如何看待晚会中迪丽热巴…"), where
    the tagger reads a person; "Dilraba" reaches it though no headline opens with her name. "Michael" still
    reaches nothing: 么处理 runs across two words of "这件事该怎么处理", and the tagger reads no person there. Nor
    does a sentence's first word, whose capital says no name: "Hanging" sounds h-ng-ng, as 侯永永 does."""
    entries = ENTRIES + [("zhihu", "f", "如何看待晚会中迪丽热巴的古装造型？你觉得好看吗？"),
                         ("baidu", "g", "这件事该怎么处理"),
                         ("zhihu", "h", "国足名单出炉，归化球员侯永永入选，如何看待？")]
    ranker = Ranker(HashEmbedder(), [Topic(source=s, item_id=i, title=t, rank=1) for s, i, t in entries])
    found = await ranker.rank(relevance_query("Did you see Dilraba at the gala tonight?", top_k=1, gate=True))
    assert found and found[0].topic.item_id == "f" and found[0].bridge == "pinyin"
    assert await ranker.rank(relevance_query("Michael is coming over tonight", top_k=1, gate=True)) == []
    assert "侯永" not in ranker._bridged("Hanging lanterns by the door tonight.", ranker.snapshot).terms


async def test_a_two_character_name_said_alone_reaches_the_headline_that_names_it() -> None:
    """Synthetic headlines: "Qiqi", a panda's name of two syllables said alone, reaches the one that starts with
    琪琪. "Huahua" reads as 花花 too, but in "满屏花花绿绿的弹幕" those characters are inside a word, where no name
    stands; "Hangzhou" reads as 杭州, a word the dictionary lists and glosses itself: neither is bridged by its
    sound."""
    entries = ENTRIES + [("weibo", "p", "琪琪龙年蹦迪"), ("douyin", "q", "满屏花花绿绿的弹幕"),
                         ("baidu", "h", "杭州人的年夜饭菜单")]
    ranker = Ranker(HashEmbedder(), [Topic(source=s, item_id=i, title=t, rank=1) for s, i, t in entries])
    found = await ranker.rank(relevance_query("Qiqi the panda was dancing for the new year", top_k=1, gate=True))
    assert found and found[0].topic.title == "琪琪龙年蹦迪" and found[0].bridge == "pinyin"
    snapshot = ranker.snapshot
    assert "花花" not in ranker._bridged("Huahua was so cute on stage", snapshot).terms
    assert ranker._bridged("Our Hangzhou relatives brought vinegar fish", snapshot).carried.get("杭州") != "pinyin"


async def test_an_english_line_gets_the_chinese_caption_and_the_record_names_the_bridge() -> None:
    ranker = Ranker(HashEmbedder(), [Topic(source=s, item_id=i, title=t, rank=1) for s, i, t in ENTRIES])
    found = await ranker.rank(relevance_query("Yue Yunpeng totally flubbed his lines last night", top_k=1, gate=True))
    assert found and found[0].topic.title == "岳云鹏嘴瓢" and found[0].bridge == "pinyin"
    assert found[0].public()["bridge"] == "pinyin"
    brand = await ranker.rank(relevance_query("Huawei has a new folding phone out", top_k=1, gate=True))
    assert brand and brand[0].topic.title.startswith("华为") and brand[0].bridge == "cedict-name"


async def test_without_the_bridges_the_english_line_gets_nothing() -> None:
    ranker = Ranker(HashEmbedder(), [Topic(source=s, item_id=i, title=t, rank=1) for s, i, t in ENTRIES], bridges=())
    said = relevance_query("Yue Yunpeng totally flubbed his lines last night", top_k=1, gate=True)
    assert await ranker.rank(said) == []


async def test_a_two_character_name_bridges_as_strongly_as_a_three_character_one() -> None:
    """王菲 and 李健 are one bigram each, 撒贝宁 two: each names one person, so an English line naming any
    of them brings its title the same evidence (synthetic titles of one length among a list's worth of
    others; the lexical channel alone, so that nothing but the bridged name carries the line)."""
    firsts, seconds = "山水云雨花鸟鱼虫松竹梅兰琴棋书画诗酒茶灯" * 5, "金木火土日月星辰江河湖海风霜雪露春夏秋冬" * 5
    others = [("weibo", f"o{n}", f"{a}{b}{c}{d}新闻") for n, (a, b, c, d) in
              enumerate(zip(firsts, seconds, "东南西北上下左右前后" * 10, "甲乙丙丁戊己庚辛壬癸" * 10, strict=True))]
    named = [("baidu", "wf", "王菲一开口全场都安静了下来"), ("douyin", "lj", "李健重返舞台唱哭全场观众"),
             ("baidu", "sb", "撒贝宁现挂满分全场爆笑")]
    ranker = Ranker(None, [Topic(source=s, item_id=i, title=t, rank=1) for s, i, t in named + others])
    evidence = []
    for line, title in [("Is that Faye Wong?", named[0][2]), ("Was that Li Jian?", named[1][2]),
                        ("Was that Sa Beining?", named[2][2])]:
        found = await ranker.rank(relevance_query(line, top_k=1, gate=True))
        assert found and found[0].topic.title == title, line
        evidence.append(found[0].components["lexical"])
    assert min(evidence) >= 0.8 * max(evidence), evidence


async def test_a_person_told_of_by_many_items_is_named_as_strongly_as_one_told_of_once() -> None:
    """Synthetic night: ten of a hundred titles are about 王菲, one about 李健. Her name is no rare term on
    this list, but it names one person as his does: an English line naming her brings her item the
    evidence a line naming him brings his (the lexical channel alone, as above)."""
    firsts, seconds = "山水云雨花鸟鱼虫松竹梅兰琴棋书画诗酒茶灯" * 5, "金木火土日月星辰江河湖海风霜雪露春夏秋冬" * 5
    others = [("weibo", f"o{n}", f"{a}{b}{c}{d}新闻") for n, (a, b, c, d) in
              enumerate(zip(firsts, seconds, "东南西北上下左右前后" * 10, "甲乙丙丁戊己庚辛壬癸" * 10, strict=True))]
    hers = [("baidu", f"wf{k}", f"王菲{tail}") for k, tail in
            enumerate(("一开口全场都安静了", "大水滴耳坠又要火了", "春晚表演女儿发表情", "时隔多年再唱春晚",
                       "耳坠同款卖断货了", "唱完全场起立鼓掌", "现场首唱新歌", "造型引热议", "女儿也来了", "再登舞台"))]
    his = [("douyin", "lj", "李健重返舞台唱哭全场")]
    ranker = Ranker(None, [Topic(source=s, item_id=i, title=t, rank=1) for s, i, t in hers + his + others[:89]])
    evidence = {}
    for line, who in [("Is that Faye Wong? Time slows down when she sings.", "wf"),
                      ("Was that Li Jian? Time slows down when he sings.", "lj")]:
        found = await ranker.rank(relevance_query(line, top_k=1, gate=True))
        assert found and found[0].topic.item_id.startswith(who), line
        evidence[who] = found[0].components["lexical"]
    assert evidence["wf"] >= 0.95 * evidence["lj"], evidence


async def test_a_name_said_reaches_its_headline_on_one_short_list_as_on_a_days_lists() -> None:
    """Synthetic lists: 撒贝宁's title among 40 others (one platform's list of a night) and among as many as the
    bridge bar was chosen on (`NAME_REF_N`). BM25 weighs a term held once by log N, so on the short list the bridged
    name fell under the bar the full lists set; a name is no less specific on a shorter list, so it brings the
    title what it brings there."""
    firsts, seconds = "山水云雨花鸟鱼虫松竹梅兰琴棋书画诗酒茶灯" * 10, "金木火土日月星辰江河湖海风霜雪露春夏秋冬" * 10
    others = [("weibo", f"o{n}", f"{a}{b}{c}{d}新闻") for n, (a, b, c, d) in
              enumerate(zip(firsts, seconds, "东南西北上下左右前后" * 20, "甲乙丙丁戊己庚辛壬癸" * 20, strict=True))]
    named = ("douyin", "sb", "撒贝宁现挂满分全场爆笑")
    evidence = []
    for held in (40, NAME_REF_N - 1):
        ranker = Ranker(None, [Topic(source=s, item_id=i, title=t, rank=1) for s, i, t in [named, *others[:held]]])
        found = await ranker.rank(relevance_query("Was that Sa Beining?", top_k=1, gate=True))
        assert found and found[0].topic.item_id == "sb", held
        evidence.append(found[0].components["lexical"])
    assert evidence[0] >= 0.999 * evidence[1], evidence


# Synthetic headlines of a night's short lists: robots in several, kung fu in several, one holds both.
NIGHT = [("baidu", "r1", "机器人登台扭秧歌"), ("douyin", "r2", "大模型接上晚会机器人"),
         ("baidu", "r3", "机器人概念股大涨"), ("baidu", "k1", "少林功夫走进校园"),
         ("douyin", "k2", "功夫熊猫新片定档"), ("douyin", "rk", "机器人中国功夫夯爆了"),
         ("baidu", "x1", "今晚烟花秀直播"), ("douyin", "x2", "除夕年夜饭吃什么"), ("baidu", "x3", "春运返程高峰")]


def _landed(ranker: Ranker, line: str) -> list[str]:
    snapshot = ranker.snapshot
    agree = agreeing_rows(snapshot, ranker._bridged(line, snapshot).landings)
    return [] if agree is None else [e.topic.title for e, yes in zip(snapshot.entries, agree, strict=True) if yes]


def test_two_things_an_english_line_names_land_together_where_one_headline_holds_both() -> None:
    """"robots" and "kung fu" land together in one headline; one of them alone, or a one-character headword
    (狗 of "dog", 要 of "needs": inside half the titles), lands nowhere together."""
    ranker = Ranker(HashEmbedder(), [Topic(source=s, item_id=i, title=t, rank=1) for s, i, t in NIGHT])
    assert _landed(ranker, "Wait, are those robots doing kung fu on stage?") == ["机器人中国功夫夯爆了"]
    assert _landed(ranker, "My robot vacuum got stuck under the sofa again") == []
    dog = Ranker(HashEmbedder(), [Topic(source="douyin", item_id="d", title="狗狗过年要穿新衣")])
    assert _landed(dog, "our dog needs a red outfit") == []


def _faintly_like(matrix: np.ndarray, row: int) -> np.ndarray:
    """A query vector nearest to `row`'s title of all, yet far from it: the title plus a direction no title
    has, ten times as long (a meaning the dense gate alone would not pass)."""
    rng = np.random.default_rng(0)
    away = rng.standard_normal(matrix.shape[1]).astype(np.float32)
    basis, _ = np.linalg.qr(matrix.T)
    away -= basis @ (basis.T @ away)
    q = matrix[row] + 10 * away / np.linalg.norm(away)
    return (q / np.linalg.norm(q)).astype(np.float32)


def test_a_headline_holding_two_things_passes_the_gate_when_the_lines_meaning_ranks_it_first() -> None:
    """Its bridged terms weigh little (each thing is in a third of the titles); the agreement lifts it to the
    gate, but only for the title the dense channel ranks first, and never without a model."""
    ranker = Ranker(HashEmbedder(), [Topic(source=s, item_id=i, title=t, rank=1) for s, i, t in NIGHT])
    snapshot, profile = ranker.snapshot, ranker.profile
    parts = [("Wait, are those robots doing kung fu on stage?", 1.0)]
    bridged = {"机器": 0.05, "器人": 0.05, "功夫": 0.05}  # weights that leave every row under the bar
    agree = agreeing_rows(snapshot, [[(("机器", "器人"), 2)], [(("功夫",), 1)]])
    row = [e.topic.title for e in snapshot.entries].index("机器人中国功夫夯爆了")
    bar = profile.gate_threshold("en", len(snapshot), "hybrid")
    near, far = _faintly_like(snapshot.matrix, row), _faintly_like(snapshot.matrix, 8)
    for qvec, mask, passes in ((near, None, False), (near, agree, True), (far, agree, False)):
        scores = score(snapshot, profile, qvec, parts, bridged=bridged, bridge_bar=0.9, agreeing=mask)
        assert bool(scores.gate_evidence[row] >= bar) == passes
    lexical_only = score(snapshot, profile, None, parts, bridged=bridged, bridge_bar=0.9, agreeing=agree)
    assert lexical_only.gate_evidence[row] < profile.gate_threshold("en", len(snapshot), "lexical")


def test_a_persons_name_said_is_agreement_enough_in_the_headline_the_lines_meaning_ranks_first() -> None:
    """Synthetic headlines: 梅西 in two of them. The name said ("Messi", a person in CC-CEDICT) lands on both as
    agreement; the one the line's meaning ranks first passes, the other does not, and without a model neither."""
    night = [*NIGHT, ("weibo", "m1", "主办方称要求梅西向球迷解释但未成功"), ("weibo", "m2", "梅西杭州行取消")]
    ranker = Ranker(HashEmbedder(), [Topic(source=s, item_id=i, title=t, rank=1) for s, i, t in night])
    snapshot, profile = ranker.snapshot, ranker.profile
    line = "Did you hear the Messi organizers are refunding half the ticket money?"
    bridged = ranker._bridged(line, snapshot)
    ids = [e.topic.item_id for e in snapshot.entries]
    m1, m2 = ids.index("m1"), ids.index("m2")
    agree = agreeing_rows(snapshot, bridged.landings, bridged.persons)
    assert bridged.persons and agree is not None and agree[m1] and agree[m2]
    alone = agreeing_rows(snapshot, bridged.landings)  # the name as one thing among others
    assert alone is None or not (alone[m1] or alone[m2])
    parts = [(line, 1.0)]
    weak = {"梅西": 0.05}  # a weight that leaves every row under the bar
    bar = profile.gate_threshold("en", len(snapshot), "hybrid")
    for near, passes in ((m1, (True, False)), (m2, (False, True)), (ids.index("x1"), (False, False))):
        qvec = _faintly_like(snapshot.matrix, near)
        scores = score(snapshot, profile, qvec, parts, bridged=weak, bridge_bar=0.9, agreeing=agree,
                       named=bridged.named)
        assert (bool(scores.gate_evidence[m1] >= bar), bool(scores.gate_evidence[m2] >= bar)) == passes
    lexical_only = score(snapshot, profile, None, parts, bridged=weak, bridge_bar=0.9, agreeing=agree,
                         named=bridged.named)
    assert (lexical_only.gate_evidence[[m1, m2]] < profile.gate_threshold("en", len(snapshot), "lexical")).all()


def test_the_same_headline_on_two_lists_is_first_by_meaning_whichever_of_them_the_model_puts_first() -> None:
    """One list gives the headline a summary (where the things the line names are), the other the title alone:
    the line's meaning ranks the bare one first by a hair, and the agreeing one is the same headline."""
    summary = "人形机器人在晚会上打了一套醉拳"
    topics = [Topic(source=s, item_id=i, title=t, rank=1, summary=summary if i == "rk" else None) for s, i, t in NIGHT]
    bare_topic = Topic(source="weibo", item_id="rk-bare", title="机器人中国功夫夯爆了", rank=1)
    ranker = Ranker(HashEmbedder(), [*topics, bare_topic])
    snapshot, profile = ranker.snapshot, ranker.profile
    parts = [("Wait, are those robots doing kung fu on stage?", 1.0)]
    bridged = {"机器": 0.05, "器人": 0.05, "功夫": 0.05}
    ids = [e.topic.item_id for e in snapshot.entries]
    row, bare = ids.index("rk"), ids.index("rk-bare")
    agree = np.zeros(len(snapshot), dtype=bool)
    agree[row] = True  # only the summarised one holds both things
    qvec = _faintly_like(snapshot.matrix, bare)
    scores = score(snapshot, profile, qvec, parts, bridged=bridged, bridge_bar=0.9, agreeing=agree)
    assert np.argmax(scores.dense) == bare and scores.dense[row] < scores.dense[bare]
    assert scores.gate_evidence[row] >= profile.gate_threshold("en", len(snapshot), "hybrid")


def test_an_english_lines_words_are_chinese_characters_too() -> None:
    """"that dragon hat" is 龙 and 帽 (CC-CEDICT's one-character words), "thinner" 瘦: what tells 撒贝宁龙帽 from
    撒贝宁现挂 and 沈腾瘦了 from 沈腾也嘴瓢了 within their stories (`story_rank.one_per_story`); a Chinese line has
    its own terms."""
    from agent.ranking.bridges import characters_said

    assert {"龙", "帽"} <= characters_said("Sa Beining wearing that dragon hat")
    assert "瘦" in characters_said("Shen Teng looks so much thinner this year")
    assert characters_said("撒贝宁的龙帽") == frozenset()


class _Meant(HashEmbedder):
    """Hashed titles; the lines a test names mean what it says (`meant`: line -> query vector)."""

    def __init__(self) -> None:
        super().__init__()
        self.meant: dict[str, np.ndarray] = {}

    def encode(self, texts: Sequence[str], *, role: Role = "query") -> np.ndarray:
        out = super().encode(texts, role=role)
        for i, text in enumerate(texts):
            if role == "query" and text in self.meant:
                out[i] = self.meant[text]
        return out


async def test_the_headline_the_line_itself_ranks_first_agrees_whatever_was_said_before_it() -> None:
    """The things an English line names are its own, and so is the meaning that must rank their headline first:
    a line of small talk before it pulled the window's mean to another headline, and the line got nothing."""
    embedder = _Meant()
    ranker = Ranker(embedder, [Topic(source=s, item_id=i, title=t, rank=1) for s, i, t in NIGHT])
    titles = [e.topic.title for e in ranker.snapshot.entries]
    before, line = "Our dinner tonight was so good.", "Wait, are those robots doing kung fu on stage?"
    embedder.meant = {before: ranker.snapshot.matrix[titles.index("今晚烟花秀直播")],
                      line: _faintly_like(ranker.snapshot.matrix, titles.index("机器人中国功夫夯爆了"))}
    window = ConversationWindow()
    window.add(before, 1000.0)
    await ranker.rank(relevance_query(window, top_k=1, gate=True, latest=before))  # as the live loop heard it
    window.add(line, 1003.0)
    found = await ranker.rank(relevance_query(window, top_k=1, gate=True, latest=line, latest_top_k=10))
    assert found and found[0].topic.title == "机器人中国功夫夯爆了"


async def test_a_recogniser_writing_no_capitals_still_names_someone_spelt_in_another_romanisation() -> None:
    """A line with no capital at all gives no word its capital to license it as a name: "dilraba" reaches the
    headline where those characters are a person the tagger reads, and not one where they sound alike but
    name nobody (得了热病, "caught a fever"), as a lower-cased word of English news would."""
    line = "did you see dilraba in that new drama tonight"
    named = Ranker(HashEmbedder(), [Topic(source=s, item_id=i, title=t, rank=1)
                                    for s, i, t in [*ENTRIES, ("weibo", "f", "迪丽热巴新剧今晚开播")]])
    found = await named.rank(relevance_query(line, top_k=1, gate=True))
    assert found and found[0].topic.title == "迪丽热巴新剧今晚开播" and found[0].bridge == "pinyin"
    nobody = Ranker(HashEmbedder(), [Topic(source=s, item_id=i, title=t, rank=1)
                                     for s, i, t in [*ENTRIES, ("baidu", "h", "得了热病怎么办")]])
    assert await nobody.rank(relevance_query(line, top_k=1, gate=True)) == []
