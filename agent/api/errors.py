"""Every error answer is OpenAI's four-field envelope, with the right status; no tracebacks.

    {"error": {"message": "...", "type": "invalid_request_error", "param": "messages", "code": "invalid_request"}}

`code` keeps our own codes; `type` is the OpenAI error class. OpenAI clients send an
invalid request to /v1/chat/completions or /v1/models and expect a 400, so those
paths answer validation errors with 400; elsewhere a well-formed but invalid body is a 422.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

from fastapi import FastAPI, HTTPException, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from ..errors import ConfigError, OverloadError, StoreError, TrendLensError
from ..logs import log_field
from .schemas import ErrorResponse

__all__ = ["ADMIN_ERRORS", "AUTHED_ERRORS", "ApiError", "error_body", "error_responses", "install_error_handlers"]

log = logging.getLogger("trendlens.api")

_CODES = {400: "bad_request", 401: "unauthorized", 403: "forbidden", 404: "not_found", 405: "method_not_allowed",
          409: "conflict", 413: "payload_too_large", 415: "unsupported_media_type", 422: "invalid_request",
          429: "rate_limited", 500: "internal_error", 503: "unavailable"}
_TYPES = {401: "authentication_error", 403: "permission_error", 404: "not_found_error", 409: "conflict_error",
          429: "rate_limit_error"}
_DESCRIPTIONS = {400: "Invalid request (OpenAI-compatible paths answer every invalid request with 400)",
                 401: "Missing or invalid credentials", 403: "An admin key's route, called with a client key",
                 404: "No such resource", 409: "Conflicts with its state",
                 413: "Request body over the size limit", 422: "Request body or parameters are invalid",
                 429: "Rate limit exceeded (see Retry-After)", 503: "Not ready or storage unavailable"}
# Paths an OpenAI client calls: there an invalid request is a 400, as in OpenAI's own API.
_OPENAI_PATHS = ("/v1/chat/completions", "/v1/models")


def _type_of(status: int) -> str:
    if status in _TYPES:
        return _TYPES[status]
    return "server_error" if status >= 500 else "invalid_request_error"


class ApiError(HTTPException):
    def __init__(self, status: int, message: str, *, code: str | None = None, param: str | None = None,
                 headers: dict[str, str] | None = None) -> None:
        super().__init__(status_code=status, detail=message, headers=headers)
        self.code = code or _CODES.get(status, "error")
        self.param = param


def error_body(status: int, message: str, code: str | None = None, *, param: str | None = None) -> dict[str, Any]:
    return {"error": {"message": message, "type": _type_of(status), "param": param,
                      "code": code or _CODES.get(status, "error")}}


def error_responses(*statuses: int, json_only: bool = False) -> dict[int | str, dict[str, Any]]:
    """OpenAPI `responses=` entries for these error statuses, all with the envelope's schema.

    `json_only` for routes whose success is not JSON (HTML, SSE): FastAPI would document a
    `model` under the route's own media type, but errors are always JSON.
    """
    if json_only:
        ref = {"$ref": "#/components/schemas/ErrorResponse"}
        return {s: {"description": _DESCRIPTIONS.get(s, "Error"), "content": {"application/json": {"schema": ref}}}
                for s in statuses}
    return {s: {"model": ErrorResponse, "description": _DESCRIPTIONS.get(s, "Error")} for s in statuses}


# Every operation behind the API key can answer these (404 where a path names something, 413 on any body).
AUTHED_ERRORS = error_responses(400, 401, 404, 413, 422, 429)
# ...and the routes only an admin key may call (docs/security.md), 403 as well.
ADMIN_ERRORS = error_responses(400, 401, 403, 404, 413, 422, 429)


def _validation(exc: RequestValidationError) -> tuple[str, str | None]:
    return validation_message(exc.errors())


def validation_message(errors: Sequence[Any]) -> tuple[str, str | None]:
    """A validation failure in one line, and the field it names: an HTTP body's and a stream frame's alike."""
    if not errors:
        return "invalid request", None
    first = errors[0]
    where = ".".join(str(p) for p in first.get("loc", ()) if p not in ("body", "query", "path", "header"))
    if first.get("type") == "json_invalid":
        return "request body is not valid JSON", None
    more = f" (+{len(errors) - 1} more)" if len(errors) > 1 else ""
    return f"{where or 'body'}: {first.get('msg', 'invalid')}{more}", where or None


def is_openai_path(path: str) -> bool:
    return any(path == p or path.startswith(p + "/") for p in _OPENAI_PATHS)


def install_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
        status = 400 if is_openai_path(request.url.path) else 422
        message, param = _validation(exc)
        return JSONResponse(error_body(status, message, "invalid_request", param=param), status_code=status)

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        status = exc.status_code
        if status == 422 and is_openai_path(request.url.path):
            status = 400
        code = getattr(exc, "code", None)
        return JSONResponse(error_body(status, str(exc.detail), code, param=getattr(exc, "param", None)),
                            status_code=status, headers=getattr(exc, "headers", None))

    @app.exception_handler(ConfigError)
    async def _config(request: Request, exc: ConfigError) -> JSONResponse:
        return JSONResponse(error_body(400, str(exc)), status_code=400)

    @app.exception_handler(OverloadError)
    async def _overload(request: Request, exc: OverloadError) -> JSONResponse:
        return JSONResponse(error_body(429, str(exc), "overloaded"), status_code=429, headers={"Retry-After": "1"})

    @app.exception_handler(StoreError)
    async def _store(request: Request, exc: StoreError) -> JSONResponse:
        log.error("store error on %s: %s", log_field(request.url.path), exc)
        return JSONResponse(error_body(503, "storage unavailable; try again shortly"), status_code=503)

    @app.exception_handler(TrendLensError)
    async def _ours(request: Request, exc: TrendLensError) -> JSONResponse:
        log.error("%s on %s", exc, log_field(request.url.path))
        return JSONResponse(error_body(503, str(exc)), status_code=503)

    @app.exception_handler(Exception)
    async def _unexpected(request: Request, exc: Exception) -> JSONResponse:
        log.exception("unexpected error on %s", log_field(request.url.path))
        return JSONResponse(error_body(500, "internal error"), status_code=500)
