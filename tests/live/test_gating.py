"""Each gating rule, as the wearer would notice it."""

from __future__ import annotations

from agent.live.gating import Candidate, GatePolicy, SessionGate

POLICY = GatePolicy(min_new_chars=8, display_lock_s=10, cooldown_s=4, dedupe_window_s=300,
                    replace_margin=0.15)
SPEECH = "今年春晚的机器人扭秧歌你们看了吗"


def gate(**kw) -> SessionGate:
    return SessionGate(policy=GatePolicy(**{**POLICY.__dict__, **kw}))


def c(tid: str, score: float) -> Candidate:
    return Candidate(topic_id=tid, score=score)


def say_and_decide(g: SessionGate, cands, now, text=SPEECH):
    g.hear(text)
    return g.decide(cands, now)


def test_shows_a_relevant_topic():
    d = say_and_decide(gate(), [c("a", 0.8), c("b", 0.6)], 0)
    assert d.show and d.reason == "shown" and d.topic_id == "a"


def test_relevance_is_not_judged_twice():
    # candidates arrive already past the ranker's relevance gate: a low score is still shown
    d = say_and_decide(gate(), [c("a", 0.01)], 0)
    assert d.show and d.reason == "shown"


def test_quiet_without_candidates():
    assert say_and_decide(gate(), [], 0).reason == "no_candidate"


def test_waits_for_enough_new_speech():
    g = gate()
    d = say_and_decide(g, [c("a", 0.9)], 0, text="嗯嗯")
    assert not d.show and d.reason == "not_enough_speech"
    d = say_and_decide(g, [c("a", 0.9)], 1, text="春晚那个机器人")
    assert d.show  # 2 + 7 characters now


def test_display_lock_holds_a_caption_on_screen():
    g = gate()
    assert say_and_decide(g, [c("a", 0.7)], 0).show
    d = say_and_decide(g, [c("b", 0.75)], 5)
    assert not d.show and d.reason == "display_locked"


def test_only_a_clearly_stronger_item_replaces():
    g = gate()
    say_and_decide(g, [c("a", 0.6)], 0)
    assert not say_and_decide(g, [c("b", 0.7)], 6).show  # within the margin of 0.15: held
    d = say_and_decide(g, [c("b", 0.9)], 7)
    assert d.show and d.reason == "replaced" and d.topic_id == "b"
    assert d.replaced == "a" and d.public()["replaced"] == {"story": "a", "topic_id": "a"}  # not itself
    assert d.detail.startswith("replaced a")  # the stored record says it too


def test_nothing_replaces_a_caption_before_it_can_be_read():
    g = gate(min_read_s=6)
    say_and_decide(g, [c("a", 0.6)], 0)
    d = say_and_decide(g, [c("b", 0.99)], 3)
    assert not d.show and d.reason == "display_locked" and "to read" in d.detail
    assert say_and_decide(g, [c("b", 0.99)], 6).reason == "replaced"


def test_a_meme_said_while_the_caption_is_read_goes_up_once_it_is_read():
    """Lines 3 s apart: the meme said 3 s after a caption waits for that caption's reading time and goes
    up on the next line, though that line (a greeting, small talk) brings nothing of its own."""
    g = gate(min_read_s=6)
    say_and_decide(g, [c("a", 0.6)], 0)
    held = say_and_decide(g, [c("b", 0.9)], 3)
    assert held.reason == "display_locked" and g.waiting(3) == c("b", 0.9)
    d = say_and_decide(g, [], 6)  # the next line matches nothing
    assert d.show and d.reason == "replaced" and d.topic_id == "b" and "held back 3.0s" in d.detail
    assert g.waiting(6) is None


def test_a_meme_held_back_goes_up_by_itself_once_the_caption_before_it_is_read():
    """Nobody speaks after the meme: it falls due at the moment the caption on screen has been read, and
    goes up then without a line, leaving the speech said meanwhile to the next line's decision."""
    g = gate(min_read_s=6)
    assert g.due() is None
    say_and_decide(g, [c("a", 0.6)], 0)
    assert g.due() is None  # nothing held back
    say_and_decide(g, [c("b", 0.9)], 3)
    assert g.due() == 6
    g.hear(SPEECH)
    d = g.decide([], 6, release=True)
    assert d.show and d.reason == "replaced" and d.topic_id == "b" and "held back 3.0s" in d.detail
    assert d.held_s == 3.0 and d.public()["held_s"] == 3.0  # the record says it is a late caption, and how late
    assert g.due() is None and g.chars_since_decision == len(SPEECH)
    assert g.decide([], 7, release=True).reason == "no_candidate"  # nothing waits: nothing goes up


def test_a_held_back_meme_shown_meanwhile_does_not_fall_due():
    g = gate(min_read_s=6, display_lock_s=1, cooldown_s=1, replace_margin=-1)
    say_and_decide(g, [c("a", 0.6)], 0)
    say_and_decide(g, [c("b", 0.9)], 3)
    g.shown.append((4, "b"))  # another line put it up (a shared session, another instance)
    assert g.due() is None


def test_the_line_just_said_comes_before_the_one_held_back():
    g = gate(min_read_s=6)
    say_and_decide(g, [c("a", 0.6)], 0)
    say_and_decide(g, [c("b", 0.9)], 3)
    d = say_and_decide(g, [c("x", 0.9), c("b", 0.9)], 6)  # the step puts the held-back story last
    assert d.topic_id == "x"


def test_a_weaker_story_waits_for_the_caption_s_time_on_screen_and_not_for_long():
    """Below the replace margin a story never displaces the caption, but it is not lost either: it goes up
    when the caption's time on screen ends, if that is within its wait (`held_back_s`) of its line."""
    g = gate(min_read_s=6, held_back_s=6, display_lock_s=8)
    say_and_decide(g, [c("a", 0.6)], 0)
    assert say_and_decide(g, [c("weak", 0.5)], 3).reason == "display_locked"
    assert g.waiting(3) is not None and g.due() == 8  # the lock's end, not the reading time
    up = g.decide([], 8, release=True)
    assert up.show and up.reason == "shown" and up.topic_id == "weak" and "held back 5.0s" in up.detail
    g = gate(min_read_s=6, held_back_s=6, display_lock_s=10)
    say_and_decide(g, [c("a", 0.6)], 0)
    say_and_decide(g, [c("weak", 0.5)], 3)
    assert g.due() is None  # the lock ends 7 s after its line: past one reading time, let go
    say_and_decide(g, [c("b", 0.9)], 4)
    assert g.waiting(10) is not None and g.waiting(10.5) is None  # one reading time, then let go


def test_by_default_a_weaker_meme_said_right_after_a_caption_goes_up_when_that_caption_ends():
    """The table's pace: a caption, then 3 s later a weaker meme, then nobody speaks. It goes up as the
    caption before it ends (the default lock), not never."""
    g = SessionGate(policy=GatePolicy(replace_margin=0.15))
    say_and_decide(g, [c("a", 0.6)], 0)
    assert say_and_decide(g, [c("weak", 0.5)], 3).reason == "display_locked"
    assert g.due() == GatePolicy().display_lock_s
    up = g.decide([], g.due(), release=True)
    assert up.show and up.topic_id == "weak"


def test_a_weaker_meme_goes_up_once_a_short_caption_has_been_read_three_times():
    """A short headline is taken in long before its time on screen ends: a weaker meme said meanwhile
    waits for three of its readings, not its whole 10 s, so the meme the table says next does not take
    its place first. Before three readings it still never displaces the caption."""
    g = SessionGate(policy=GatePolicy(replace_margin=0.0))
    say_and_decide(g, [c("a", 0.8)], 0)
    g.reading(2.5, on_screen_s=10.0)  # an 11-character headline, kept 10 s by the display
    held = say_and_decide(g, [c("weak", 0.4)], 3)
    assert held.reason == "display_locked" and "4.5s more" in held.detail
    assert g.due() == 7.5  # three readings, before the caption's 10 s end
    up = g.decide([], 7.5, release=True)
    assert up.show and up.reason == "replaced" and up.topic_id == "weak"
    g = SessionGate(policy=GatePolicy(replace_margin=0.0))
    say_and_decide(g, [c("a", 0.8)], 0)
    g.reading(2.5, on_screen_s=10.0)
    assert say_and_decide(g, [c("weak", 0.4)], 7).reason == "display_locked"  # two readings and a half
    assert say_and_decide(g, [c("other", 0.3)], 8).reason == "replaced"  # a new line's, once it yields
    g = SessionGate()
    say_and_decide(g, [c("a", 0.8)], 0)
    g.reading(6.0, on_screen_s=10.0)  # a long headline: its time on screen ends first
    say_and_decide(g, [c("weak", 0.4)], 3)
    assert g.due() == 10.0


def test_the_same_story_is_never_held_back():
    g = gate(min_read_s=6, held_back_s=6)
    say_and_decide(g, [Candidate(topic_id="a1", score=0.6, key="s")], 0)
    say_and_decide(g, [Candidate(topic_id="a2", score=0.9, key="s")], 3)
    assert g.held_back is None and g.due() is None


def test_a_line_that_goes_on_about_the_caption_on_screen_puts_nothing_else_up():
    """A line about the caption on screen ranks it first; a second story it also matches (another story of
    the same meme, a word in passing) neither replaces the caption nor waits for it, however long it is up."""
    g = SessionGate()
    say_and_decide(g, [Candidate(topic_id="a1", score=0.5, key="story-a")], 0)
    on_it = [Candidate(topic_id="a2", score=0.62, key="story-a"), Candidate(topic_id="b1", score=0.38, key="story-b")]
    d = say_and_decide(g, on_it, 3)
    assert d.reason == "display_locked" and d.topic_id == "a2" and "goes on about a1" in d.detail
    assert g.held_back is None and g.due() is None  # story-b does not wait for the display
    d = say_and_decide(g, on_it, 8)  # read long since, and story-b would go up once it yields: still the caption's
    assert not d.show and g.held_back is None
    # the line's own first match is another story: it is held back as before, and goes up when due
    d = say_and_decide(g, [Candidate(topic_id="b1", score=0.38, key="story-b")], 9)
    assert d.reason == "display_locked" and g.due() == 10  # when the caption's time on screen ends
    assert g.decide([], 10, release=True).topic_id == "b1"


def test_a_new_story_nearly_as_strong_replaces_by_default_and_a_weaker_one_waits():
    g = SessionGate()  # the shipped policy: a story within 0.1 of the caption's score, once it is read
    say_and_decide(g, [Candidate(topic_id="a1", score=0.6, key="story-a")], 0)
    d = say_and_decide(g, [Candidate(topic_id="b1", score=0.52, key="story-b")], 6)
    assert d.reason == "replaced" and d.replaced == "story-a" and d.replaced_topic == "a1"
    held = say_and_decide(g, [Candidate(topic_id="c1", score=0.4, key="story-c")], 12.5)
    assert held.reason == "display_locked"  # weaker: the caption keeps its time on screen ...
    assert g.due() == 16  # ... and the weaker story goes up when it ends


def test_cooldown_after_lock_expires():
    g = gate(display_lock_s=2, cooldown_s=4)
    say_and_decide(g, [c("a", 0.7)], 0)
    d = say_and_decide(g, [c("b", 0.7)], 3)
    assert not d.show and d.reason == "cooldown"
    assert say_and_decide(g, [c("b", 0.7)], 5).show


def test_same_topic_not_repeated_within_dedupe_window():
    g = gate(display_lock_s=1, cooldown_s=1)
    say_and_decide(g, [c("a", 0.9)], 0)
    d = say_and_decide(g, [c("a", 0.9)], 60)
    assert not d.show and d.reason == "duplicate"
    d = say_and_decide(g, [c("a", 0.9), c("b", 0.8)], 61)
    assert d.show and d.topic_id == "b"  # the next-best fresh topic
    g.hear(SPEECH)
    assert g.decide([c("a", 0.9)], 400).show  # window over


def test_frequency_setting_moves_relevance_bar_and_cooldown():
    low, high = POLICY.with_frequency("low"), POLICY.with_frequency("high")
    assert low.relevance_offset > POLICY.relevance_offset > high.relevance_offset
    assert low.cooldown_s > POLICY.cooldown_s > high.cooldown_s


def test_a_short_headline_frees_the_display_sooner():
    """The caption up is read at the wearer's pace: a meme said while a short headline is read goes up
    once that headline is read, not a whole `min_read_s` later; never sooner than one line's time."""
    g = gate(min_read_s=6)
    say_and_decide(g, [c("a", 0.6)], 0)
    g.reading(3.2)
    say_and_decide(g, [c("b", 0.9)], 2)
    assert g.due() == 3.2
    assert g.decide([], 3.2, release=True).topic_id == "b"
    g.reading(0.2)
    assert g.read_s == 1.8
    g.reading(60)
    assert g.read_s == 6


def test_the_caption_s_time_on_screen_is_its_ttl():
    """The display keeps a caption for its TTL; the gate's time on screen ends with it, so a weaker meme
    waiting for the display goes up as the caption fades, not at a lock of the gate's own."""
    g = gate(min_read_s=6, held_back_s=6, display_lock_s=10)
    say_and_decide(g, [c("a", 0.6)], 0)
    g.reading(3.0, on_screen_s=7.0)
    assert g.on_screen_until == 7.0
    say_and_decide(g, [c("weak", 0.5)], 3)
    assert g.due() == 7.0


def _ranked(item_id: str, score: float):
    from agent.models import Topic
    from agent.ranking import Ranked

    topic = Topic(source="weibo", item_id=item_id, title=f"标题{item_id}")
    return Ranked(id=topic.id, topic=topic, score=score, components={})


def test_a_line_asks_the_gate_twice_plan_before_ranking_and_choose_after():
    g = gate(min_read_s=6)
    g.hear(SPEECH)
    plan = g.plan(0)
    assert plan.quiet is None and plan.recent == frozenset()
    a = _ranked("a", 0.6)
    decision, shown = g.choose([a], lambda tid: tid, 0, again=lambda tid, score: None)
    assert decision.show and shown is a
    assert g.plan(1).quiet is not None  # no new speech: quiet before any ranking
    g.hear(SPEECH)
    assert g.plan(3).recent == {a.topic.id}
    assert g.plan(3).showing == a.topic.id  # still on screen: ranked with the rest, not left out
    assert g.plan(11).showing is None  # its time on screen is over: left out as recent


def test_choose_lets_go_of_a_held_back_story_no_longer_on_the_lists():
    g = gate(min_read_s=6)
    g.hear(SPEECH)
    g.choose([_ranked("a", 0.6)], lambda tid: tid, 0, again=lambda tid, score: None)
    g.hear(SPEECH)
    b = _ranked("b", 0.9)
    decision, shown = g.choose([b], lambda tid: tid, 3, again=lambda tid, score: None)
    assert decision.reason == "display_locked" and shown is None and g.held_back is not None
    decision, shown = g.choose([], lambda tid: tid, 6, again=lambda tid, score: None, release=True)
    assert shown is None and g.held_back is None  # gone from the lists: nothing goes up
    g.hear(SPEECH)
    g.choose([b], lambda tid: tid, 6.5, again=lambda tid, score: None)
    decision, shown = g.choose([], lambda tid: tid, 12.5, again=lambda tid, score: b, release=True)
    assert decision.reason == "no_candidate"  # b went up at 6.5: nothing waits any more


def test_a_recogniser_s_unfinished_piece_waits_for_the_rest_of_its_sentence():
    """Once a session's recogniser is seen cutting sentences (a piece was joined), a caption that a piece which
    may go on would put up waits; the sentence is decided whole when no more of it came within the wait. A
    piece whose decision is quiet is not delayed, and a finished sentence is decided at once."""
    g = gate(sentence_wait_s=1.0)
    g.heard_piece(joined=False, more=True, now=0)
    g.hear(SPEECH)
    assert g.decide([c("a", 0.6)], 0).show  # not known to cut: decided at once, as a client's lines are
    g.heard_piece(joined=True, more=True, now=20)  # a sentence joined from pieces: this recogniser cuts
    g.hear(SPEECH)
    d = g.decide([c("b", 0.9)], 20)
    assert not d.show and d.reason == "not_enough_speech" and "decided whole in 1.0s" in d.detail
    assert g.due() == 21 and g.chars_since_decision == len(SPEECH)  # the speech waits for the whole
    g.heard_piece(joined=True, more=True, now=20.5)  # the rest came: the whole would still show, and waits on
    assert g.decide([c("b", 0.9)], 20.5).reason == "not_enough_speech" and g.due() == 21.5
    g.sentence_due = None  # its moment came (the live loop's release): the sentence is decided as a line
    assert g.decide([c("b", 0.9)], 21.5).show
    g.heard_piece(joined=True, more=True, now=30)
    g.hear(SPEECH)
    assert g.decide([], 30).reason == "no_candidate" and g.due() is None  # quiet: it stands, nothing waits
    g.heard_piece(joined=True, more=False, now=40)  # a piece ending its sentence is decided at once
    g.hear(SPEECH)
    assert g.decide([c("x", 0.9)], 40).show


def test_no_sentence_wait_when_it_is_off():
    g = gate(sentence_wait_s=0)
    g.heard_piece(joined=True, more=True, now=0)
    g.hear(SPEECH)
    assert g.cut and g.decide([c("a", 0.9)], 0).show


def test_a_partial_of_the_rest_keeps_the_sentence_waiting_and_one_past_it_ends_the_wait():
    g = gate(sentence_wait_s=0.6)
    g.heard_piece(joined=True, more=True, now=10)
    g.hear(SPEECH)
    assert g.decide([c("a", 0.9)], 10).reason == "not_enough_speech" and g.due() == 10.6
    g.heard_partial(more=True, now=10.5)  # the speaker went on: its words so far
    assert g.due() == 11.1
    g.heard_partial(more=False, now=10.8)  # a partial that starts another sentence: this one is whole
    assert g.due() == 10.8
    g.sentence_due = None
    g.heard_partial(more=True, now=11)  # nothing waits: a partial sets no moment
    assert g.due() is None
