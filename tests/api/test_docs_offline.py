"""/docs and /redoc render their list of operations in a real browser with the outside network blocked."""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest

from tests.browser import chromium_page, needs_chromium

LOOPBACK = {"127.0.0.1", "localhost", "::1", "[::1]"}


def test_docs_pages_reference_no_outside_host(client):
    for path in ("/docs", "/redoc"):
        page = client.get(path)
        assert page.status_code == 200
        assert "http://" not in page.text and "https://" not in page.text and "//cdn" not in page.text
        assert "default-src 'none'" in page.headers["content-security-policy"]
    assert client.get("/docs-assets/swagger-ui-bundle.js").status_code == 200
    assert client.get("/docs-assets/redoc.standalone.js").status_code == 200


@pytest.mark.slow
@needs_chromium
@pytest.mark.parametrize(("path", "operation"), [
    ("/docs", ".opblock .opblock-summary-path"),
    ("/redoc", "[data-section-id^='tag/'] h2, [data-section-id*='operation/'] h2"),
])
def test_docs_render_operations_with_the_network_blocked(live_server, path: str, operation: str) -> None:
    blocked: list[str] = []

    def only_loopback(route) -> None:
        host = urlsplit(route.request.url).hostname or ""
        if host in LOOPBACK:
            route.continue_()
        else:
            blocked.append(route.request.url)
            route.abort()

    with chromium_page() as page:
        page.route("**/*", only_loopback)
        page.goto(live_server.url + path)
        page.wait_for_selector(operation, timeout=20000)
        text = page.inner_text("body")
    assert page_lists_operations(text), text[:500]
    assert blocked == []  # nothing was even attempted outside


def page_lists_operations(text: str) -> bool:
    return all(op in text for op in ("/v1/topics", "/v1/sessions", "/v1/chat/completions", "/v1/digest"))
