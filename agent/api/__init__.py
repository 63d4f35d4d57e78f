"""HTTP API: FastAPI app, routes, security."""

from .app import create_app

__all__ = ["create_app"]
