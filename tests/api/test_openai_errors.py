"""The openai package, unchanged, against the service on 127.0.0.1: its own exception classes,
the four-field error envelope, /v1/models/{id} and stream_options.include_usage."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import openai
import pytest

from agent.api import create_app
from harness.apps import AUTH, KEY, LiveServer, make_runtime


@pytest.fixture(scope="module")
def server(tmp_path_factory) -> Iterator[LiveServer]:
    runtime = make_runtime(Path(tmp_path_factory.mktemp("oai")), max_request_bytes=20_000)
    app = create_app(runtime.settings, runtime=runtime, schedule=False, announce_key=False)
    with LiveServer(app) as live:
        yield live


def client(server: LiveServer, key: str = KEY):
    return openai.OpenAI(base_url=server.url + "/v1", api_key=key, max_retries=0, timeout=30)


def envelope(exc) -> dict:
    body = exc.response.json()
    assert set(body) == {"error"} and set(body["error"]) == {"message", "type", "param", "code"}, body
    assert body["error"]["message"] and "Traceback" not in exc.response.text
    return body["error"]


def test_invalid_requests_are_400_bad_request_errors(server):
    c = client(server)
    with pytest.raises(openai.BadRequestError) as exc:
        c.chat.completions.create(model="trendlens", messages=[])
    error = envelope(exc.value)
    assert exc.value.status_code == 400 and error["type"] == "invalid_request_error" and error["param"] == "messages"
    assert exc.value.code == "invalid_request" and exc.value.param == "messages"
    with pytest.raises(openai.BadRequestError) as exc:
        c.chat.completions.create(model="trendlens", temperature=7, messages=[{"role": "user", "content": "hi"}])
    assert envelope(exc.value)["param"] == "temperature"
    with pytest.raises(openai.BadRequestError):  # only a system message: nothing was asked
        c.chat.completions.create(model="trendlens", messages=[{"role": "system", "content": "be brief"}])
    r = httpx.post(server.url + "/v1/chat/completions", headers={**AUTH, "Content-Type": "application/json"},
                   content=b'{"messages": [')
    assert r.status_code == 400 and r.json()["error"]["message"] == "request body is not valid JSON"


def test_models_list_and_retrieve(server):
    c = client(server)
    assert [m.id for m in c.models.list()] == ["trendlens"]
    assert c.models.retrieve("trendlens").owned_by == "trendlens"
    with pytest.raises(openai.NotFoundError) as exc:
        c.models.retrieve("gpt-4o")
    assert envelope(exc.value)["code"] == "model_not_found" and exc.value.type == "not_found_error"


def test_wrong_key_is_an_authentication_error(server):
    with pytest.raises(openai.AuthenticationError) as exc:
        client(server, "wrong").models.list()
    assert envelope(exc.value)["type"] == "authentication_error"


def test_too_large_a_request_is_413_in_the_same_envelope(server):
    with pytest.raises(openai.APIStatusError) as exc:
        client(server).chat.completions.create(model="trendlens",
                                               messages=[{"role": "user", "content": "春晚" * 20_000}])
    assert exc.value.status_code == 413 and envelope(exc.value)["code"] == "payload_too_large"


def test_unknown_v1_path_is_a_404_envelope(server):
    r = httpx.get(server.url + "/v1/nothing-here", headers=AUTH)
    assert r.status_code == 404 and set(r.json()["error"]) == {"message", "type", "param", "code"}


def test_stream_usage_only_when_asked(server):
    c = client(server)
    question = [{"role": "user", "content": "what's trending in tech today?"}]
    chunks = list(c.chat.completions.create(model="trendlens", messages=question, stream=True,
                                            stream_options={"include_usage": True}))
    *body, last = chunks
    assert last.choices == [] and last.usage is not None
    assert last.usage.total_tokens == last.usage.prompt_tokens + last.usage.completion_tokens > 0
    assert all(ch.usage is None for ch in body) and "".join(ch.choices[0].delta.content or "" for ch in body)
    plain = list(c.chat.completions.create(model="trendlens", messages=question, stream=True))
    assert plain and all(ch.usage is None and ch.choices for ch in plain)


def test_rate_limit_is_a_rate_limit_error(tmp_path):
    runtime = make_runtime(tmp_path / "d", rate_limit_per_s=0.5, rate_limit_burst=2)
    app = create_app(runtime.settings, runtime=runtime, schedule=False, announce_key=False)
    with LiveServer(app) as live:
        c = client(live)
        c.models.list()
        c.models.list()
        with pytest.raises(openai.RateLimitError) as exc:
            c.models.list()
    assert envelope(exc.value)["type"] == "rate_limit_error" and int(exc.value.response.headers["Retry-After"]) >= 1
