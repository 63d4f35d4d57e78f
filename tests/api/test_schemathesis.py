"""Schemathesis over the whole OpenAPI description: never a 5xx, and every answer is what the description says.

The status code, the content type and the body of each response must be the ones documented
for that operation, so a client generated from /openapi.json knows our errors and formats.
Fixed seed and a bounded number of examples per operation keep it repeatable and quick.
"""

from __future__ import annotations

import asyncio
import tempfile
from pathlib import Path

import schemathesis
from hypothesis import HealthCheck, seed, settings  # noqa: E402
from schemathesis import GenerationMode  # noqa: E402
from schemathesis.checks import (  # noqa: E402
    content_type_conformance,
    not_a_server_error,
    response_schema_conformance,
    status_code_conformance,
)

from agent.api import create_app  # noqa: E402
from agent.api.security import KeyRing, RateLimiter, hash_key  # noqa: E402
from harness.apps import AUTH, KEY, make_runtime

CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance, response_schema_conformance]


def _started_app():
    # Started once at collection: schemathesis drives the ASGI app without its lifespan.
    runtime = make_runtime(Path(tempfile.mkdtemp(prefix="tl-schema-")), rate_limit_per_s=1e6, rate_limit_burst=10**6)
    asyncio.run(runtime.start())
    app = create_app(runtime.settings, runtime=runtime, schedule=False, announce_key=False)
    app.state.runtime = runtime
    app.state.keys = KeyRing(runtime.settings, runtime.store)
    app.state.limiter = app.state.session_limiter = RateLimiter(1e6, 10**6)
    session, _ = runtime.sessions.create("hud-web", owner=hash_key(KEY))
    return app, session.id


APP, SESSION_ID = _started_app()
schema = schemathesis.openapi.from_asgi("/openapi.json", APP)
# invalid requests too: their 400s and 422s must be documented like everything else
schema.config.generation.update(modes=list(GenerationMode))


@schema.parametrize()
@seed(20261130)
@settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
def test_every_answer_is_what_the_description_says(case):
    if "session_id" in (case.path_parameters or {}) and case.path_parameters["session_id"] == "":
        case.path_parameters["session_id"] = SESSION_ID
    case.call_and_validate(headers=AUTH, checks=CHECKS)


def test_the_description_documents_errors_formats_and_the_hud_token():
    spec = APP.openapi()
    for path, operations in spec["paths"].items():
        for method, op in operations.items():
            if path.startswith(("/v1/", "/metis/")) and path != "/metis/agent/api/health":  # the probe needs no key
                missing = {"400", "401", "404", "413", "422", "429"} - set(op["responses"])
                assert not missing, f"{method.upper()} {path} does not document {sorted(missing)}"
                error = op["responses"]["401"]["content"]["application/json"]["schema"]
                assert error == {"$ref": "#/components/schemas/ErrorResponse"}
    assert "409" in spec["paths"]["/v1/workflows/{name}/run"]["post"]["responses"]
    digest = spec["paths"]["/v1/digest"]["get"]["responses"]["200"]["content"]
    assert {"application/json", "text/markdown", "text/html"} <= set(digest)
    assert "text/event-stream" in spec["paths"]["/metis/agent/api/sse"]["post"]["responses"]["200"]["content"]
    assert "text/event-stream" in spec["paths"]["/v1/chat/completions"]["post"]["responses"]["200"]["content"]
    hud = spec["paths"]["/hud/{session_id}"]["get"]
    assert "security" not in hud  # one static page; its token goes to the socket, never in a URL
    assert "HudToken" not in spec["components"]["securitySchemes"]
    envelope = spec["components"]["schemas"]["ErrorDetail"]["properties"]
    assert set(envelope) == {"message", "type", "param", "code"}
