"""The product holds nothing of the labelled days it is judged on.

The story and relevance figures are read leave-one-day-out on labelled days (`../shared/devsets`).
A rule in `agent/` that names one of those days' headlines, or its date, knows the answer before the
day is left out, so that day's figure is in sample however the evaluation splits. This test fails
when a labelled day's item title (four characters or more), a festival night's near entry, a clause of
one of its Chinese table lines (six characters or more; greetings aside, which are everyday phrases), or
its date appears in any file under `agent/`, code, data and docstrings alike.

Not scanned: `harness/`, the harness that loads the labelled days for tests and scripts (it
must name them), and the `fitted_on` note of `agent/ranking/profiles.json`, which the tuner writes
to say what the shipped profile was fitted on and no decision reads.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from harness.paths import ROOT, SHARED
from harness.required import needs_shared

STORY_DAYS = ("2025-03-31", "2025-04-01", "2025-04-15")
FESTIVALS = ("2024-02-09", "2026-02-16")
DAYS = (*STORY_DAYS, *FESTIVALS)
AGENT = ROOT / "agent"

pytestmark = needs_shared(*(f"devsets/stories-{day}.json" for day in STORY_DAYS),
                          *(f"devsets/festival-{night}.json" for night in FESTIVALS))
_CLAUSE = re.compile(r"[，,。！？!?；;：:、\s]+")


def labelled_titles() -> set[str]:
    """Every item title of the labelled days, without hashtag marks, of four characters or more."""
    titles = []
    for day in STORY_DAYS:
        stories = json.loads((SHARED / "devsets" / f"stories-{day}.json").read_text("utf-8"))
        titles += [item["title"] for item in stories["items"]]
    for night in FESTIVALS:
        festival = json.loads((SHARED / "devsets" / f"festival-{night}.json").read_text("utf-8"))
        titles += [item["title"] for trend in festival["trends"] for item in trend["items"]]
        titles += [item["title"] for item in festival["generic"]]
        titles += [item["title"] for conv in festival["conversations"] for line in conv["lines"]
                   for item in line.get("near", [])]
    cores = {" ".join(t.strip().strip("#").split()) for t in titles}
    return {t for t in cores if len(t) >= 4}


def table_clauses() -> set[str]:
    """The clauses of six characters or more of each festival night's Chinese lines, greetings aside (a toast
    is an everyday phrase, which the greetings sample holds on purpose)."""
    clauses = set()
    for night in FESTIVALS:
        festival = json.loads((SHARED / "devsets" / f"festival-{night}.json").read_text("utf-8"))
        for conv in festival["conversations"]:
            if conv["lang"] == "zh":
                clauses.update(c for line in conv["lines"] if line["kind"] != "greeting"
                               for c in _CLAUSE.split(line["text"]) if len(c) >= 6)
    return clauses


def date_forms() -> re.Pattern[str]:
    """Each labelled date as written: 2025-03-31, 20250331, 2025/03/31, 2025.03.31, 3月31日, 03月31号."""
    forms = []
    for day in DAYS:
        year, month, date = day.split("-")
        forms += [re.escape(day), rf"(?<!\d){year}{month}{date}(?!\d)", rf"{year}/{month}/{date}",
                  rf"{year}\.{month}\.{date}", rf"(?<!\d)0?{int(month)}月0?{int(date)}[日号]"]
    return re.compile("|".join(forms))


def product_text(path: Path) -> str | None:
    """What `path` says, as text; None for a binary file."""
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        return None
    if path == AGENT / "ranking" / "profiles.json":
        profiles = json.loads(text)
        for profile in profiles if isinstance(profiles, list) else [profiles]:
            profile.pop("fitted_on", None)
        text = json.dumps(profiles, ensure_ascii=False)
    return text


def test_no_labelled_day_title_or_date_is_in_the_product() -> None:
    titles, clauses, dates = labelled_titles(), table_clauses(), date_forms()
    assert len(titles) > 500 and len(clauses) > 100  # the sets were read: three story days and both festival nights
    found = []
    for path in sorted(AGENT.rglob("*")):
        if not path.is_file() or "__pycache__" in path.parts:
            continue
        text = product_text(path)
        if text is None:
            continue
        where = path.relative_to(ROOT).as_posix()
        found += [f"{where}: title {t!r}" for t in sorted(titles) if t in text]
        found += [f"{where}: a table line's {c!r}" for c in sorted(clauses) if c in text]
        found += [f"{where}: date {d!r}" for d in sorted({m.group(0) for m in dates.finditer(text)})]
    assert found == [], "labelled-day knowledge in the product:\n" + "\n".join(found)
