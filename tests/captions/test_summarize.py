from __future__ import annotations

import asyncio
import json

import httpx

from agent.captions import summarize

ARGS = dict(base_url="https://llm.example/v1", api_key="sk-test", model="tiny", timeout_s=0.5)


def _client(handler) -> httpx.AsyncClient:
    return httpx.AsyncClient(transport=httpx.MockTransport(handler))


async def test_returns_the_models_sentence() -> None:
    seen: dict = {}

    def handler(request: httpx.Request) -> httpx.Response:
        seen["url"] = str(request.url)
        seen["auth"] = request.headers["authorization"]
        seen["body"] = json.loads(request.content)
        return httpx.Response(200, json={"choices": [{"message": {"content": "  “两人恋爱八年终官宣。” "}}]})

    async with _client(handler) as client:
        text = await summarize("某明星官宣结婚", "他们终于结婚了", client=client, **ARGS)
    assert text == "两人恋爱八年终官宣。"
    assert seen["url"] == "https://llm.example/v1/chat/completions"
    assert seen["auth"] == "Bearer sk-test"
    assert seen["body"]["model"] == "tiny" and "某明星官宣结婚" in seen["body"]["messages"][1]["content"]


async def test_http_error_garbage_and_timeout_give_none() -> None:
    async def slow(request: httpx.Request) -> httpx.Response:
        await asyncio.sleep(5)
        return httpx.Response(200)

    handlers = [
        lambda r: httpx.Response(500, text="boom"),
        lambda r: httpx.Response(200, text="not json"),
        lambda r: httpx.Response(200, json={"choices": []}),
        lambda r: httpx.Response(200, json={"choices": [{"message": {"content": ""}}]}),
        lambda r: httpx.Response(200, json={"choices": [{"message": {"content": "x" * 1000}}]}),
        slow,
    ]
    for handler in handlers:
        async with _client(handler) as client:
            assert await asyncio.wait_for(summarize("t", "c", client=client, **ARGS), 2) is None
