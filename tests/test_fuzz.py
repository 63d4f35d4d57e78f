"""Hypothesis fuzzing: parsers and the caption fitter meet hostile input."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent.errors import SourceError
from agent.sources import REGISTRY

PARSERS = [cls() for cls in REGISTRY.values()]

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | st.text(max_size=50),
    lambda children: st.lists(children, max_size=5) | st.dictionaries(st.text(max_size=12), children, max_size=5),
    max_leaves=40,
)


def parse_all(body: bytes) -> None:
    for parser in PARSERS:
        try:
            topics = parser.parse_body(body, url=None)
        except SourceError as exc:
            assert str(exc).startswith(parser.name.split(":")[0]) and "\n" not in str(exc)
            continue
        for t in topics:
            assert t.title.strip() and t.source == parser.name


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=2000))
def test_parsers_survive_arbitrary_bytes(body):
    parse_all(body)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(json_values)
def test_parsers_survive_arbitrary_json(value):
    parse_all(json.dumps(value).encode())


# Shapes close to the real ones, with hostile fields: the most likely way an upstream breaks us.
@settings(max_examples=100, deadline=None)
@given(st.lists(st.dictionaries(st.sampled_from(["word", "title", "num", "desc", "hot_value", "Title", "HotValue",
                                                 "id", "url", "replies", "target", "show_name", "heat_score"]),
                                json_values, max_size=8), max_size=6))
def test_parsers_survive_near_miss_shapes(items):
    for wrap in (
        {"data": {"realtime": items}}, {"data": {"word_list": items}}, {"data": items}, items,
        {"data": {"cards": [{"content": items, "card_group": items}]}}, {"list": items},
        {"data": {"list": items}, "code": 0}, {"hits": items}, {"items": [{"articles": items}]},
        {"data": {"children": [{"kind": "t3", "data": i} for i in items]}},
    ):
        parse_all(json.dumps(wrap).encode())


@settings(max_examples=60, deadline=None)
@given(st.integers(min_value=1, max_value=60))
def test_deep_nesting_is_a_clean_error(depth):
    parse_all(("[" * depth * 50 + "]" * depth * 50).encode())
    parse_all(('{"a":' * depth * 20 + "1" + "}" * depth * 20).encode())
