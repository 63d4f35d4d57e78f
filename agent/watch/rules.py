"""A watch list as written: groups of words, one group per line or `;` (`机器人 !广告; 关税 +美国`).

TrendRadar's `frequency_words.txt` is read too: when the text holds a blank line, blank lines part
the groups and each line is a word of its group, as there. In a group:

- `word`: any one of the group's plain words must appear (none written: the `+` words suffice);
- `+word`: must appear; `!word`: must not;
- `/regex/`: a word written as a regular expression (case-blind; `\\s`, not a space, since spaces part words),
  matched by the `regex` package under a deadline of `REGEX_TIMEOUT_S` per title: one that runs past it
  (catastrophic backtracking) matches nothing from then on (`SlowPattern` is raised once, the first time);
- `@N`: at most N alerts of this group per fetch cycle (TrendRadar's cap on a group's items);
- `^N`: alert a story once more when it reaches N platforms (it grew from 2 to 4: `^4`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import regex

from ..errors import ConfigError, TrendLensError
from ..text import HAN, HANGUL, KANA

__all__ = ["MAX_GROUPS", "MAX_MEANINGS", "REGEX_TIMEOUT_S", "SlowPattern", "Term", "WatchGroup", "parse_watch"]

MAX_GROUPS = 100  # one key's lists are checked against every story after every cycle: bounded
MAX_TERMS = 30
MAX_TERM_CHARS = 100
# a key's `~` meanings, every group together: each is a ranking on the shared encoder per index generation
MAX_MEANINGS = 10
REGEX_TIMEOUT_S = 0.05  # one `/regex/` word against one story's titles
# what a regex's `{m,n}` counts may multiply to: compiling unrolls them, and no deadline bounds the
# compile (`(a{65535}){65535}` runs for minutes); 10,000 compiles in about 10 ms
MAX_REPEATS = 10_000
_REPEAT = re.compile(r"\{(\d*)(?:,(\d*))?\}")


class SlowPattern(TrendLensError):
    """A `/regex/` word ran past REGEX_TIMEOUT_S; from now on it matches nothing."""
# scripts matched as substrings: Han and kana are written without spaces, and a Korean word takes
# particles straight after it (서울에서), so none of the three has word boundaries to match on
_CJK = re.compile(rf"[{KANA}{HAN}{HANGUL}]")


@dataclass(frozen=True)
class Term:
    text: str  # as written, without its mark
    pattern: re.Pattern[str] | regex.Pattern[str]
    written: bool = False  # a `/regex/` a person wrote: matched under the deadline
    _slow: list[bool] = field(default_factory=list, compare=False, repr=False)  # [True] once it ran past it

    def found(self, text: str) -> bool:
        """Whether the word is in `text`; SlowPattern the first time a written regex runs out of time."""
        if not self.written:
            return self.pattern.search(text) is not None
        if self._slow:
            return False
        try:
            found = self.pattern.search(text, timeout=REGEX_TIMEOUT_S, concurrent=True)  # type: ignore[call-overload]
            return found is not None
        except TimeoutError:
            self._slow.append(True)
            raise SlowPattern(f"{self.text!r} took longer than {REGEX_TIMEOUT_S * 1000:.0f} ms on one title; "
                              "it matches nothing until it is rewritten (no nested repetition)") from None

    @classmethod
    def of(cls, text: str) -> Term:
        if len(text) > 2 and text.startswith("/") and text.endswith("/"):
            product = 1
            for low, high in _REPEAT.findall(text):
                product *= max(int(low or 0), int(high or 0), 1)
                if product > MAX_REPEATS:
                    raise ConfigError(f"watch: {text[:40]!r} is not a regular expression this service runs: its "
                                      f"repeat counts multiply past {MAX_REPEATS}")
            try:
                return cls(text, regex.compile(text[1:-1], regex.I | regex.V0), written=True)
            except (regex.error, OverflowError, ValueError, RecursionError) as exc:
                raise ConfigError(f"watch: {text!r} is not a regular expression ({exc})") from None
        folded = text.casefold()
        if _CJK.search(folded):  # Chinese (and Japanese, Korean) has no spaces between words: a substring
            return cls(text, re.compile(re.escape(folded)))
        # English by whole word: "mac" is not in "machine"
        return cls(text, re.compile(r"(?<![\w])" + re.escape(folded) + r"(?![\w])"))


@dataclass(frozen=True)
class WatchGroup:
    name: str  # the group as a person reads it, e.g. "机器人 !广告"
    any_of: tuple[Term, ...]
    required: tuple[Term, ...] = ()
    excluded: tuple[Term, ...] = ()
    cap: int | None = None  # @N
    again_at: int | None = None  # ^N
    # ~meaning: a description matched by the embedding ranker behind the live gate's evidence, not by
    # its words ("~机器人跳舞" matches "Robots dancing the yangge…"); `_` stands for a space ("~robots_dancing")
    meanings: tuple[str, ...] = ()


def _group(words: list[str]) -> WatchGroup | None:
    any_of: list[Term] = []
    required: list[Term] = []
    excluded: list[Term] = []
    meanings: list[str] = []
    cap = again = None
    if len(words) > MAX_TERMS:
        raise ConfigError(f"watch: a group of {len(words)} words ({' '.join(words[:3])[:40]!r}…); at most {MAX_TERMS}")
    for word in words:
        if len(word) > MAX_TERM_CHARS:
            raise ConfigError(f"watch: a word of more than {MAX_TERM_CHARS} characters ({word[:20]!r}…)")
        if re.fullmatch(r"@\d{1,4}", word):
            cap = int(word[1:]) or None
        elif re.fullmatch(r"\^\d{1,3}", word):
            again = int(word[1:]) or None
        elif word[0] == "+" and len(word) > 1:
            required.append(Term.of(word[1:]))
        elif word[0] == "!" and len(word) > 1:
            excluded.append(Term.of(word[1:]))
        elif word[0] == "~" and len(word) > 1:
            meanings.append(word[1:].replace("_", " "))
        else:
            any_of.append(Term.of(word))
    if not any_of and not required and not meanings:
        return None  # only exclusions or caps: nothing to look for
    return WatchGroup(name=" ".join(w for w in words if not re.fullmatch(r"[@^]\d+", w)), any_of=tuple(any_of),
                      required=tuple(required), excluded=tuple(excluded), cap=cap, again_at=again,
                      meanings=tuple(meanings))


def parse_watch(text: str, *, meanings: int | None = None) -> list[WatchGroup]:
    """The groups of a watch list; a mistake (a broken regex, too many groups, more than `meanings`
    `~` meanings in all) is a ConfigError."""
    lines = [line.split("#", 1)[0] if line.lstrip().startswith("#") else line for line in text.splitlines()]
    if any(not line.strip() for line in lines) and sum(bool(line.strip()) for line in lines) > 1:
        # TrendRadar's file: blank lines part groups, each line holds one word of its group
        blocks: list[list[str]] = [[]]
        for line in lines:
            if line.strip():
                blocks[-1].extend(line.split())
            elif blocks[-1]:
                blocks.append([])
    else:
        blocks = [part.split() for line in lines for part in line.split(";")]
    groups = [g for g in (_group(b) for b in blocks if b) if g is not None]
    if len(groups) > MAX_GROUPS:
        raise ConfigError(f"watch: {len(groups)} groups; at most {MAX_GROUPS}")
    held = len({m for g in groups for m in g.meanings})
    if meanings is not None and held > meanings:
        raise ConfigError(f"watch: {held} ~meanings; at most {meanings} per key (each is ranked against every "
                          "story after every fetch)")
    return groups
