"""How the chat reads what people say: real lines that ask nothing must not be read as trending questions,
and trending questions must never be read as small talk.

Real sets (../shared/devsets, see PROVENANCE.md there): conversation lines about a topic
(relevance.json queries) and everyday chit-chat (chitchat.json). Neither names a platform or asks
what is hottest, so any intent but a topic search or small talk is a misread. How many chit-chat
lines are read as small talk (a greeting, help, thanks) is shown too: that is a polite reply
instead of a list, never a misread.

There is no real set of chat questions per intent; the question tables of the tests
(tests/answers/chat/test_intents.py, written by us: synthetic) give each trending question with its
intent. For those the count is how many are read as small talk (must be 0) or as another intent.

    .venv/bin/python scripts/eval/intents.py
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from agent.answers.chat.intents import SmallTalk, detect_intent
from harness.intent_table import FOLLOW_UPS, TABLE

DEVSETS = Path(__file__).resolve().parents[3] / "shared" / "devsets"


def _row(name: str, lines: list[str], counts: Counter[str], misread: int, talk: int) -> str:
    kinds = ", ".join(f"{k} {v}" for k, v in counts.most_common() if k not in ("Search", "SmallTalk"))
    return f"| {name} | {len(lines)} | {misread} | {kinds or '—'} | {talk} |"


def main() -> int:
    relevance = json.loads((DEVSETS / "relevance.json").read_text(encoding="utf-8"))
    chitchat = json.loads((DEVSETS / "chitchat.json").read_text(encoding="utf-8"))
    sets = {f"relevance queries {lang} (real)": [q["text"] for q in relevance[lang]["queries"]]
            for lang in ("zh", "en")}
    sets |= {f"chit-chat {lang} (real)": [t if isinstance(t, str) else t["text"] for t in chitchat[lang]]
             for lang in ("zh", "en")}
    print("Lines that ask nothing of the chat:\n")
    print("| set | lines | misread as a trending question | as | read as small talk |")
    print("|---|---|---|---|---|")
    for name, lines in sets.items():
        counts = Counter(type(detect_intent(line)).__name__ for line in lines)
        misread = sum(v for k, v in counts.items() if k not in ("Search", "SmallTalk"))
        print(_row(name, lines, counts, misread, counts["SmallTalk"]))

    questions = [(q, i) for q, i in TABLE if not isinstance(i, SmallTalk)]
    talk = [(q, i) for q, i in TABLE if isinstance(i, SmallTalk)]
    as_talk = [q for q, _ in questions if isinstance(detect_intent(q), SmallTalk)]
    as_talk += [q for q, _ in FOLLOW_UPS if isinstance(detect_intent(q, has_history=True), SmallTalk)]
    other = [q for q, i in questions
             if not isinstance(detect_intent(q), SmallTalk) and type(detect_intent(q)) is not type(i)]
    talk_missed = [q for q, i in talk if detect_intent(q) != i]
    print("\nThe question tables of harness/intent_table.py (synthetic):\n")
    print("| set | lines | read as small talk | read as another intent |")
    print("|---|---|---|---|")
    print(f"| trending questions and follow-ups | {len(questions) + len(FOLLOW_UPS)} | {len(as_talk)} | "
          f"{len(other)} |")
    print(f"| greetings, help, thanks | {len(talk)} | {len(talk) - len(talk_missed)} | {len(talk_missed)} |")
    for q in as_talk:
        print(f"  read as small talk: {q!r}")
    return 1 if as_talk else 0


if __name__ == "__main__":
    raise SystemExit(main())
