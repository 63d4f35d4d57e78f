"""Schemathesis over the whole OpenAPI spec: whatever a client sends, never a 5xx."""

from __future__ import annotations

import asyncio
import tempfile
from pathlib import Path

import pytest

schemathesis = pytest.importorskip("schemathesis")
from hypothesis import HealthCheck, settings  # noqa: E402
from schemathesis.checks import not_a_server_error  # noqa: E402

from agent.api import create_app  # noqa: E402
from agent.api.security import KeyRing, RateLimiter  # noqa: E402
from tests.api.conftest import AUTH, make_runtime  # noqa: E402


def _started_app():
    # Started once at collection: schemathesis drives the ASGI app without its lifespan.
    runtime = make_runtime(Path(tempfile.mkdtemp(prefix="tl-schema-")), rate_limit_per_s=1e6, rate_limit_burst=10**6)
    asyncio.run(runtime.start())
    app = create_app(runtime.settings, runtime=runtime, schedule=False, announce_key=False)
    app.state.runtime = runtime
    app.state.keys = KeyRing(runtime.settings, runtime.store)
    app.state.limiter = RateLimiter(1e6, 10**6)
    session, token = runtime.sessions.create("hud-web")
    return app, session.id


APP, SESSION_ID = _started_app()
schema = schemathesis.openapi.from_asgi("/openapi.json", APP)


@schema.parametrize()
@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
def test_no_input_makes_the_api_fail_with_5xx(case):
    if "session_id" in (case.path_parameters or {}) and case.path_parameters["session_id"] == "":
        case.path_parameters["session_id"] = SESSION_ID
    case.call_and_validate(headers=AUTH, checks=[not_a_server_error])
