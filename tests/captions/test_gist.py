"""The caption's gist says what the meme is, without what the list puts before every item."""

from __future__ import annotations

from agent.captions.gist import Openers, gist, openers
from agent.captions.templates import compose_caption
from tests.stories.helpers import topic

# Synthetic summaries written here in the shape of a list's descs on a festival night.
NIGHT = [
    topic("baidu", "a", "主持人穿帮",
          summary="X月X日晚，央视春晚播出。魔术环节只有主持人的牌没对上，网友笑称他汗流浃背。"),
    topic("baidu", "b", "小品演员毛衣", summary="X月X日晚，央视春晚播出。小品演员的同款粉色毛衣十分钟售罄。"),
    topic("baidu", "c", "开场歌舞", summary="X月X日晚，央视春晚播出。开场歌舞燃爆舞台。"),
    topic("baidu", "d", "西安分会场", summary="9日，西安分会场秒变长安，演员与李白同框。"),
]


def repeated_of(items):
    counts = Openers()
    for t in items:
        counts.add(t.source, t.summary)
    found = counts.repeated()
    return lambda source, opening: (source, opening) in found


def test_the_sentence_every_summary_opens_with_is_not_the_gist() -> None:
    assert openers(NIGHT[0].summary or "") == ("X月X日晚，", "X月X日晚，央视春晚播出。")
    said = gist(NIGHT[0], [NIGHT[0]], repeated_of(NIGHT))
    assert said == "魔术环节只有主持人的牌没对上，网友笑称他汗流浃背。"


def test_an_opening_only_one_summary_has_stays() -> None:
    said = gist(NIGHT[3], [NIGHT[3]], repeated_of(NIGHT))
    assert said is not None and said.startswith("9日，西安分会场秒变长安")


def test_without_a_summary_another_platforms_title_that_adds_something_is_the_gist() -> None:
    lead = topic("weibo", "w", "主持人穿帮")
    members = [lead, topic("douyin", "d", "主持人穿帮"), topic("baidu", "b", "主持人扑克牌全国唯一没对上")]
    assert gist(lead, members, lambda _s, _o: False) == "主持人扑克牌全国唯一没对上"
    # a title saying nothing new is no gist
    assert gist(lead, members[:2], lambda _s, _o: False) is None


def test_removing_an_opening_counted_forgets_it() -> None:
    counts = Openers()
    for t in NIGHT[:3]:
        counts.add(t.source, t.summary)
    assert ("baidu", "X月X日晚，央视春晚播出。") in counts.repeated()
    counts.remove("baidu", NIGHT[0].summary)
    assert ("baidu", "X月X日晚，央视春晚播出。") not in counts.repeated()


def test_the_gist_is_the_captions_last_line_where_the_profile_has_room() -> None:
    said = gist(NIGHT[0], [NIGHT[0]], repeated_of(NIGHT))
    caption = compose_caption(title="主持人穿帮", platforms=[("baidu", 1)], heat=None, trend="steady",
                              profile="even-g1", summary=said, score=0.9, topic_id="baidu:a")
    assert caption.lines[0] == "主持人穿帮"
    assert "牌没对上" in caption.lines[-1] and "央视春晚播出" not in caption.text


def test_a_summary_that_shares_nothing_with_the_storys_titles_is_no_gist() -> None:
    """A Zhihu question's excerpt is often its asker's own musing: the story's other headline says more."""
    lead = topic("zhihu", "z", "如何评价某魔术师在春晚表演的魔术？",
                 summary="这应该跟有一个什么生日手机数字最后怎么着一样吧，就是不管怎么算，最后剩的都是这张。")
    members = [lead, topic("douyin", "d", "魔术师春晚带观众集体变魔术"), topic("weibo", "w", "魔术师是什么原理")]
    assert gist(lead, members, lambda _s, _o: False) == "魔术师春晚带观众集体变魔术"
    # the same sentence naming what the headlines name is a gist
    lead = topic("zhihu", "z", "如何评价某魔术师在春晚表演的魔术？",
                 summary="全场观众跟着撕扑克牌，最后手里的半张都对上了，魔术师说这是数学。")
    assert gist(lead, [lead, *members[1:]], lambda _s, _o: False) == lead.summary


def test_function_words_of_a_question_add_nothing_to_a_title_gist() -> None:
    """"到底是什么" holds more new bigrams than "带观众集体变魔术", and says less of what happened."""
    lead = topic("zhihu", "z", "如何评价魔术师在春晚表演的魔术《守岁》？")
    members = [lead, topic("zhihu", "q", "魔术师的魔术到底是什么数学原理？"),
               topic("douyin", "d", "魔术师春晚带观众集体变魔术")]
    assert gist(lead, members, lambda _s, _o: False) == "魔术师春晚带观众集体变魔术"


def test_a_sentence_sharing_only_the_occasions_word_with_the_titles_is_no_gist() -> None:
    """Under a gala night's word, "the gala began" is which night it is, not what the act was."""
    lead = topic("baidu", "r", "机器人功夫惊艳全场",
                 summary="X月X日，晚会春晚拉开帷幕。在功夫节目中，人形机器人化身武术高手，一招一式行云流水。")
    members = [lead, topic("douyin", "d", "春晚机器人打醉拳")]
    assert gist(lead, members, lambda _s, _o: False) == "X月X日，晚会春晚拉开帷幕。"  # 春晚 is in a title
    said = gist(lead, members, lambda _s, _o: False, occasion=["春晚"])
    assert said is not None and said.startswith("在功夫节目中，人形机器人化身武术高手")


def test_a_summary_naming_its_story_in_a_later_sentence_is_about_it_from_the_first() -> None:
    """The city comes last: the sentence before it says what the fireworks were like."""
    lead = topic("baidu", "f", "被某城的烟花美翻了", summary="一城烟火，满屏年味，漫天璀璨。今晚被某城的烟花美翻了。")
    assert gist(lead, [lead], lambda _s, _o: False, occasion=["春晚"]) == "一城烟火，满屏年味，漫天璀璨。"
    musing = topic("zhihu", "m", "某城烟花好看吗？", summary="满屏年味，漫天璀璨。我家楼下也放了。")
    assert gist(musing, [musing], lambda _s, _o: False) is None  # no sentence names the story


def test_a_title_of_the_items_own_list_tied_to_it_is_the_gist_when_nothing_else_says_more() -> None:
    lead = topic("douyin", "1", "林夏接仙气周舟接地气")
    akin = [topic("douyin", "2", "林夏周舟第8次携手登台")]
    assert gist(lead, [lead], lambda _s, _o: False) is None
    assert gist(lead, [lead], lambda _s, _o: False, akin=akin) == "林夏周舟第8次携手登台"
    # the story's own titles come first: the entry of the same list is the last resort
    other = topic("zhihu", "3", "如何评价林夏周舟的小品《团圆饭》？")
    assert gist(lead, [lead, other], lambda _s, _o: False, akin=akin) == other.title
    # an entry that adds nothing the title lacks is no gist
    assert gist(lead, [lead], lambda _s, _o: False, akin=[topic("douyin", "4", "林夏接仙气")]) is None


def test_the_member_nearest_the_matched_title_tells_its_story_first() -> None:
    """Synthetic. A story of one host's two moments of a night: the hotter member's summary is about the other
    moment and names the host too; the member whose title says what the matched one does tells the gist."""
    lead = topic("douyin", "d", "某主持人蜡笔小新眉毛又火了")
    ages = topic("baidu", "a", "某主持人和搭档加起来100岁了",
                 summary="晚会上，主持人某主持人与搭档读到网友留言：两位老师年龄加起来正好100岁。")
    brows = topic("baidu", "b", "某主持人依旧蜡笔小新眉毛",
                  summary="晚会现场，某主持人的蜡笔小新眉毛又出现了，网友期待他戴生肖帽。")
    assert gist(lead, [lead, ages, brows], lambda _s, _o: False) == brows.summary
    # with no nearer member, the hotter one's summary that names the story is still its gist
    assert gist(lead, [lead, ages], lambda _s, _o: False) == ages.summary


def test_a_summary_keeping_one_of_the_duo_a_headline_names_is_the_other_moments() -> None:
    """Synthetic (invented names). A story grown from one comedian's name holds the duo's sketch and the short film
    he acted in alone: the film's summary names him and not his partner, so the sketch's caption says what a title
    of the sketch says instead."""
    lead = topic("douyin", "d", "张小明和李大伟做蹲起")
    film = topic("baidu", "f", "张小明餐馆小哥转身那滴泪",
                 summary="张小明在开场短片中扮演餐馆小哥，转身那滴泪感动着每个异乡的游子。")
    sketch = topic("zhihu", "z", "如何评价张小明李大伟表演的相声？")
    assert gist(lead, [lead, film, sketch], lambda _s, _o: False) == sketch.title
    # a summary naming both, or neither (what happened, in other words), still tells it
    both = topic("baidu", "b", "张小明李大伟相声", summary="张小明和李大伟在相声里一起做蹲起，台下笑成一片。")
    assert gist(lead, [lead, film, both], lambda _s, _o: False) == both.summary
    neither = topic("baidu", "n", "相声做蹲起", summary="两位相声演员在台上一起做蹲起，台下笑成一片。")
    assert gist(lead, [lead, neither], lambda _s, _o: False) == neither.summary


def test_what_someone_said_of_the_story_is_not_the_gist_of_another_member() -> None:
    """Synthetic (invented names). A story of one host's cards holds another host's quip about them, a headline that
    opens with its speaker ("李大伟：…"): its summary and its title are what he said, not what the matched item is,
    so the gist is another member's title. The quote itself, or a title that names its speaker, still takes it."""
    lead = topic("weibo", "w", "小明你撒谎")
    quip = topic("baidu", "q", "李大伟：小明扑克牌全国唯一没对上",
                 summary="在魔术表演结束后，李大伟现挂：小明扑克牌全国唯一没对上。网友：今晚第一爆笑！")
    sweat = topic("weibo", "s", "汗流浃背了吧小明")
    assert gist(lead, [lead, quip, sweat], lambda _s, _o: False) == sweat.title
    assert gist(lead, [lead, quip], lambda _s, _o: False) is None
    assert gist(quip, [quip, lead, sweat], lambda _s, _o: False) == quip.summary.split("。")[0] + "。"
    named = topic("douyin", "n", "李大伟说小明的牌")
    assert gist(named, [named, quip], lambda _s, _o: False) is not None
