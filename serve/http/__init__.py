"""The stablecost HTTP service (FastAPI): `stablecost serve`, or
`uvicorn --factory stablecost.serve.http:create_app`. See `app.py` for the endpoints."""

from .app import create_app

__all__ = ["create_app"]
