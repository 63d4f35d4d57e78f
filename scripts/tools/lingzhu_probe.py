"""Probe a Lingzhu agent URL the way the Rokid Lingzhu platform will: the health route, then one question
over SSE, printing every frame as it arrives. Run it before registering the agent URL on the platform.

    .venv/bin/python scripts/tools/lingzhu_probe.py --url http://127.0.0.1:8000 --key $TRENDLENS_API_KEY
    .venv/bin/python scripts/tools/lingzhu_probe.py --url https://trendlens.example.com --question "What's trending?"

It checks what the public bridges (the OpenClaw Lingzhu plugin, DeepScientist's connector) do:
GET /metis/agent/api/health answers `{"ok": true, ...}`; POST /metis/agent/api/sse answers
text/event-stream with `:ok` first, `event: message` answer frames whose last has `is_finish: true`,
at most one `follow_up` frame of at most three suggestions, and `event: done` / `[DONE]` last, every
frame echoing the request's message_id and agent_id. Exit status 0 when all hold, 1 otherwise.
The key is read from --key or TRENDLENS_API_KEY and never printed.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import uuid

import httpx

HEALTH = "/metis/agent/api/health"
SSE = "/metis/agent/api/sse"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", default="http://127.0.0.1:8000", help="the service's base URL")
    parser.add_argument("--key", default=os.environ.get("TRENDLENS_API_KEY"), help="API key (the platform's AK)")
    parser.add_argument("--question", default="现在最火的是什么？")
    parser.add_argument("--agent-id", default="trendlens-probe")
    parser.add_argument("--timeout", type=float, default=60.0)
    args = parser.parse_args(argv)
    base = args.url.rstrip("/")
    problems: list[str] = []

    def check(ok: bool, what: str) -> None:
        print(f"  {'ok  ' if ok else 'FAIL'} {what}")
        if not ok:
            problems.append(what)

    print(f"GET {base}{HEALTH}")
    try:
        r = httpx.get(base + HEALTH, timeout=args.timeout)
    except httpx.HTTPError as exc:
        print(f"FAIL: cannot reach {base}: {exc}")
        return 1
    print(f"  {r.status_code} {r.text[:300]}")
    try:
        health = r.json()
    except ValueError:
        health = {}
    check(r.status_code == 200 and health.get("ok") is True, "health answers 200 with ok: true")
    check(health.get("endpoint") in (None, SSE), f"health names {SSE} as the endpoint")

    message_id = "probe-" + uuid.uuid4().hex[:12]
    body = {"message_id": message_id, "agent_id": args.agent_id,
            "message": [{"role": "user", "type": "text", "text": args.question}],
            "metadata": {"lang": "zh-CN", "battery": 80}}
    headers = {"Authorization": f"Bearer {args.key}"} if args.key else {}
    print(f"\nPOST {base}{SSE}  ({args.question!r}{', no key' if not args.key else ''})")
    started = time.monotonic()
    answers: list[dict] = []
    follow_ups: list[dict] = []
    first: str | None = None
    last_event: str | None = None
    try:
        with httpx.stream("POST", base + SSE, json=body, headers=headers, timeout=args.timeout) as r:
            check(r.status_code == 200, f"the SSE request is accepted (HTTP {r.status_code})")
            if r.status_code != 200:
                print(f"  {r.read().decode(errors='replace')[:300]}")
                return _verdict(problems)
            check(r.headers.get("content-type", "").startswith("text/event-stream"), "content-type text/event-stream")
            event = None
            for line in r.iter_lines():
                if not line:
                    continue
                print(f"  +{time.monotonic() - started:6.3f}s  {line}")
                if first is None:
                    first = line
                if line.startswith(":"):
                    continue
                if line.startswith("event:"):
                    event = line.split(":", 1)[1].strip()
                    last_event = event
                elif line.startswith("data:") and event == "message":
                    frame = json.loads(line.split(":", 1)[1])
                    if frame.get("message_id") != message_id or frame.get("agent_id") != args.agent_id:
                        problems.append("a frame does not echo message_id and agent_id")
                    (follow_ups if frame.get("type") == "follow_up" else answers).append(frame)
                elif line.startswith("data:") and event == "done":
                    check(line.split(":", 1)[1].strip() == "[DONE]", "done carries [DONE]")
    except httpx.HTTPError as exc:
        print(f"FAIL: the stream broke: {exc}")
        return 1
    print()
    check(first == ":ok", "the stream opens with the :ok comment")
    check(bool(answers) and all(f.get("type") == "answer" for f in answers), "answer frames arrived")
    check(bool(answers) and answers[-1].get("is_finish") is True
          and not any(f.get("is_finish") for f in answers[:-1]), "only the last answer frame has is_finish: true")
    check("message_id and agent_id" not in " ".join(problems), "every frame echoes message_id and agent_id")
    check(len(follow_ups) <= 1 and all(isinstance(f.get("follow_up"), list) and 0 < len(f["follow_up"]) <= 3
                                       for f in follow_ups), "at most one follow_up frame of 1-3 suggestions")
    check(last_event == "done", "the stream ends with event: done")
    print(f"\nanswer: {''.join(f.get('answer_stream', '') for f in answers)}")
    for f in follow_ups:
        print(f"follow-ups: {' | '.join(f['follow_up'])}")
    return _verdict(problems)


def _verdict(problems: list[str]) -> int:
    print("PASS: ready to register on the Lingzhu platform" if not problems else f"FAIL: {len(problems)} problem(s)")
    return 0 if not problems else 1


if __name__ == "__main__":
    sys.exit(main())
