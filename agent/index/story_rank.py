"""One result per story: the ranking every surface gets.

The ranker scores items; a user sees stories. The live loop, chat, search and the watch lists
rank through `TopicIndex.rank`, which reads its published stories; `trendlens rank`, the
evaluation scripts and the benches hold a `Ranker` of their own and group its topics the way
the service does (`StoryRanking.grouped`). Both collapse here, so a figure measured on a file
of topics describes the ranking a wearer gets, not the ranker's raw list.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace

from agent.ranking import Ranked, Ranker, RankQuery
from agent.ranking.bridges import characters_said
from agent.ranking.lexical import tokenize
from agent.ranking.scoring import Channel
from agent.stories.grouping import StoryIndex, background_of, link_model_for
from agent.stories.linking import Story
from agent.stories.terms import speaker_of
from agent.text import is_han

__all__ = ["STORY_FANOUT", "StoryRanking", "one_per_story"]

STORY_FANOUT = 3
"""The ranker is asked for this many times the results wanted: members of one story collapse to
its best, and a story rarely has more than three members near the top of one query."""


def one_per_story(ranked: Iterable[Ranked], story_of: Mapping[str, Story], top_k: int,
                  said: str | None = None) -> list[Ranked]:
    """The best-scored member of each story, in the ranker's order, at most `top_k`.

    `said`: the newest line of a conversation window. The window chose the story; the line just said
    names which of its items to show: the member whose title shares the most of its terms, the best-scored
    on a tie, at the story's score. In a window the older lines weigh in, so a story of the Gala's robots
    led with the item about a chatbot driving them while the line said "醉拳" of another member
    (docs/relevance.md, "The line just said picks the story's item"). With a Chinese line, a first story told by a
    quote of someone the line does not name gives way to a later one about the subject (`_subject_first`)."""
    ranked = list(ranked)
    own = set(tokenize(said)) if said else set()
    # an English line shares no term with a Chinese title: what its words are in Chinese tells the items apart
    chinese = characters_said(said) if said else frozenset()
    seen: set[str] = set()
    out: list[Ranked] = []
    for r in ranked:
        story = story_of.get(r.topic.id)
        key = story.id if story is not None else r.topic.id
        if key in seen:
            continue
        seen.add(key)
        if own and story is not None:
            mates = [m for m in ranked if story_of.get(m.topic.id) is story]
            if len(mates) > 1:
                r = _named_by_the_line(r, mates, own, chinese)
        out.append(r)
        if len(out) == top_k:
            break
    return _subject_first(out, own)


def _quotes_unnamed(title: str, said: set[str]) -> bool:
    """Whether `title` opens with a speaker (某主持人：…) that a Chinese line (`said`: its terms) does not name: it
    tells what that speaker said of the subject, a moment of their own. An English line names a speaker only
    through the bridges, which this reading does not hold."""
    speaker = speaker_of(title)
    return bool(speaker) and not (speaker & said) and any(is_han(t[0]) for t in said)


def _subject_first(out: list[Ranked], said: set[str]) -> list[Ranked]:
    """The stories in order, but for a first one told by what someone the line does not name said of the subject,
    when a later one shares a word of the line and quotes no one: that one is what the line is about, at the first
    one's score. On one list a quote is a story of its own, which the members' pick (`_named_by_the_line`) cannot
    reach."""
    if len(out) < 2 or not said or not _quotes_unnamed(out[0].topic.title, said):
        return out
    other = next((i for i, r in enumerate(out[1:], 1)
                  if said.intersection(tokenize(r.topic.title)) and not _quotes_unnamed(r.topic.title, said)), None)
    if other is None:
        return out
    return [replace(out[other], score=out[0].score), *(r for i, r in enumerate(out) if i != other)]


def _named_by_the_line(best: Ranked, members: list[Ranked], said: set[str],
                       chinese: frozenset[str] = frozenset()) -> Ranked:
    """Of a story's ranked members (best-scored first), the one whose title shares the most of `said`'s
    terms, or holds the most of what an English line's words are in Chinese (`chinese`: 帽 and 龙 of "that
    dragon hat", each counted where at most half the members hold it, so that it tells them apart), at the
    story's score (`best`'s)."""
    titles = [m.topic.title for m in members]
    telling = [w for w in chinese if 2 * sum(w in t for t in titles) <= len(titles)]
    shared = [len(said.intersection(tokenize(t))) + sum(w in t for w in telling) for t in titles]
    # a Chinese line that does not name the speaker a headline opens with is about the subject, which another
    # member sharing the line's words tells
    quoted = [_quotes_unnamed(t, said) for t in titles]
    top = max(range(len(members)), key=lambda i: (shared[i] > 0 and not quoted[i], shared[i], -i))
    chosen = members[top]
    return best if chosen is best else replace(chosen, score=best.score)


@dataclass(frozen=True)
class StoryRanking:
    """A ranker with the stories of its topics (`story_of`: topic id -> story; `members`: story id ->
    its topic ids): one published generation for the whole of a query."""

    ranker: Ranker
    story_of: Mapping[str, Story] = field(default_factory=dict)
    members: Mapping[str, frozenset[str]] = field(default_factory=dict)

    @classmethod
    def grouped(cls, ranker: Ranker) -> StoryRanking:
        """The ranker's held topics grouped into stories as the service groups them (its vectors too)."""
        index = StoryIndex(background=background_of(ranker.embedder), model=link_model_for(ranker.embedder))
        snapshot = ranker.snapshot
        # keyed by `Topic.id`, as the collapse reads it: a file's own ids (`trendlens rank`) may differ
        index.update([e.topic for e in snapshot.entries],
                     snapshot.matrix if ranker.embedder is not None and len(snapshot.entries) else None)
        story_of, members = index.story_maps()
        return cls(ranker, story_of, members)

    def related(self, ids: Iterable[str]) -> set[str]:
        """These topics and every other member of their stories."""
        out = set(ids)
        for tid in list(out):
            story = self.story_of.get(tid)
            if story is not None:
                out |= self.members.get(story.id, frozenset())
        return out

    async def rank(self, q: RankQuery) -> list[Ranked]:
        """`q` ranked, one result per story: the ranker is asked for more, as members collapse."""
        raw = await self.ranker.rank(replace(q, top_k=q.top_k * STORY_FANOUT), related=self.related)
        return one_per_story(raw, self.story_of, q.top_k, q.latest)

    def rank_queries_sync(self, queries: Sequence[RankQuery], *, channels: Channel = "hybrid") -> list[list[Ranked]]:
        """Blocking `rank` over many queries, for the CLI, scripts and benches."""
        raw = self.ranker.rank_queries_sync([replace(q, top_k=q.top_k * STORY_FANOUT) for q in queries],
                                            channels=channels, related=self.related)
        return [one_per_story(r, self.story_of, q.top_k, q.latest) for q, r in zip(queries, raw, strict=True)]
