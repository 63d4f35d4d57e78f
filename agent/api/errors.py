"""Every error answer is JSON `{"error": {"code", "message"}}` with the right status; no tracebacks."""

from __future__ import annotations

import logging
from typing import Any

from fastapi import FastAPI, HTTPException, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from ..errors import ConfigError, OverloadError, StoreError, TrendLensError

__all__ = ["ApiError", "error_body", "install_error_handlers"]

log = logging.getLogger("trendlens.api")

_CODES = {400: "bad_request", 401: "unauthorized", 403: "forbidden", 404: "not_found", 405: "method_not_allowed",
          409: "conflict", 413: "payload_too_large", 415: "unsupported_media_type", 422: "invalid_request",
          429: "rate_limited", 500: "internal_error", 503: "unavailable"}


class ApiError(HTTPException):
    def __init__(self, status: int, message: str, *, code: str | None = None,
                 headers: dict[str, str] | None = None) -> None:
        super().__init__(status_code=status, detail=message, headers=headers)
        self.code = code or _CODES.get(status, "error")


def error_body(status: int, message: str, code: str | None = None) -> dict[str, Any]:
    return {"error": {"code": code or _CODES.get(status, "error"), "message": message}}


def _validation_message(exc: RequestValidationError) -> str:
    errors = exc.errors()
    if not errors:
        return "invalid request"
    first = errors[0]
    where = ".".join(str(p) for p in first.get("loc", ()) if p != "body")
    if first.get("type") == "json_invalid":
        return "request body is not valid JSON"
    return f"{where or 'body'}: {first.get('msg', 'invalid')}" + (f" (+{len(errors) - 1} more)" if len(errors) > 1
                                                                   else "")


def install_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
        return JSONResponse(error_body(422, _validation_message(exc)), status_code=422)

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        code = getattr(exc, "code", None)
        return JSONResponse(error_body(exc.status_code, str(exc.detail), code), status_code=exc.status_code,
                            headers=getattr(exc, "headers", None))

    @app.exception_handler(ConfigError)
    async def _config(request: Request, exc: ConfigError) -> JSONResponse:
        return JSONResponse(error_body(400, str(exc)), status_code=400)

    @app.exception_handler(OverloadError)
    async def _overload(request: Request, exc: OverloadError) -> JSONResponse:
        return JSONResponse(error_body(429, str(exc), "overloaded"), status_code=429, headers={"Retry-After": "1"})

    @app.exception_handler(StoreError)
    async def _store(request: Request, exc: StoreError) -> JSONResponse:
        log.error("store error on %s: %s", request.url.path, exc)
        return JSONResponse(error_body(503, "storage unavailable; try again shortly"), status_code=503)

    @app.exception_handler(TrendLensError)
    async def _ours(request: Request, exc: TrendLensError) -> JSONResponse:
        log.error("%s on %s", exc, request.url.path)
        return JSONResponse(error_body(503, str(exc)), status_code=503)

    @app.exception_handler(Exception)
    async def _unexpected(request: Request, exc: Exception) -> JSONResponse:
        log.exception("unexpected error on %s", request.url.path)
        return JSONResponse(error_body(500, "internal error"), status_code=500)
