"""How often real text that asks nothing of the chat is misread as a platform, hottest, new or story question.

The real sets in ../shared/devsets hold conversation lines about a topic (relevance.json queries)
and everyday chit-chat (chitchat.json); neither names a platform or asks what is hottest. Each
line's intent is read by `detect_intent`; anything but a topic search is counted as a misread.
There is no real set of chat questions per intent: those are covered by the question table in
tests/chat/test_intents.py and the real-list tests in tests/api/test_chat_intents.py.

    .venv/bin/python scripts/eval_intents.py
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agent.chat.intents import Search, detect_intent  # noqa: E402

DEVSETS = Path(__file__).resolve().parents[2] / "shared" / "devsets"


def main() -> int:
    relevance = json.loads((DEVSETS / "relevance.json").read_text(encoding="utf-8"))
    chitchat = json.loads((DEVSETS / "chitchat.json").read_text(encoding="utf-8"))
    sets = {f"relevance queries {lang}": [q["text"] for q in relevance[lang]["queries"]] for lang in ("zh", "en")}
    sets |= {f"chit-chat {lang}": [t if isinstance(t, str) else t["text"] for t in chitchat[lang]]
             for lang in ("zh", "en")}
    print("| set | lines | misread | as |")
    print("|---|---|---|---|")
    for name, lines in sets.items():
        intents = [detect_intent(line) for line in lines]
        wrong = Counter(type(i).__name__ for i in intents if not isinstance(i, Search))
        print(f"| {name} | {len(lines)} | {sum(wrong.values())} | {', '.join(f'{k} {v}' for k, v in wrong.items())} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
