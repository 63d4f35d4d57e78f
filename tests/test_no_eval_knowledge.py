"""The product holds nothing of the labelled days it is judged on.

The story and relevance figures are read leave-one-day-out on labelled days (`../shared/devsets`).
A rule in `agent/` that names one of those days' headlines, or its date, knows the answer before the
day is left out, so that day's figure is in sample however the evaluation splits. This test fails
when a labelled day's item title (four characters or more) or its date appears in any file under
`agent/`, code, data and docstrings alike.

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
FESTIVAL = "2024-02-09"
DAYS = (*STORY_DAYS, FESTIVAL)
AGENT = ROOT / "agent"

pytestmark = needs_shared(*(f"devsets/stories-{day}.json" for day in STORY_DAYS), f"devsets/festival-{FESTIVAL}.json")


def labelled_titles() -> set[str]:
    """Every item title of the labelled days, without hashtag marks, of four characters or more."""
    titles = []
    for day in STORY_DAYS:
        stories = json.loads((SHARED / "devsets" / f"stories-{day}.json").read_text("utf-8"))
        titles += [item["title"] for item in stories["items"]]
    festival = json.loads((SHARED / "devsets" / f"festival-{FESTIVAL}.json").read_text("utf-8"))
    titles += [item["title"] for trend in festival["trends"] for item in trend["items"]]
    titles += [item["title"] for item in festival["generic"]]
    cores = {" ".join(t.strip().strip("#").split()) for t in titles}
    return {t for t in cores if len(t) >= 4}


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
    titles, dates = labelled_titles(), date_forms()
    assert len(titles) > 500  # the sets were read: three story days and the festival night
    found = []
    for path in sorted(AGENT.rglob("*")):
        if not path.is_file() or "__pycache__" in path.parts:
            continue
        text = product_text(path)
        if text is None:
            continue
        where = path.relative_to(ROOT).as_posix()
        found += [f"{where}: title {t!r}" for t in sorted(titles) if t in text]
        found += [f"{where}: date {d!r}" for d in sorted({m.group(0) for m in dates.finditer(text)})]
    assert found == [], "labelled-day knowledge in the product:\n" + "\n".join(found)
