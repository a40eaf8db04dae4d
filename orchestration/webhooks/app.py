"""The push webhook receiver: an ASGI app that verifies, stores and answers 202 fast.

POST /webhooks (the host is recognised by its headers) or /webhooks/{provider}.
401 unsigned or wrong signature (also for unknown repositories: no hint to strangers),
400 malformed (also JSON nested deeper than any push payload), 413 over the size limit
(enforced while reading), 200 for a redelivery (same delivery id, or the same push of the same
commit re-sent) or ping, 202 once stored, 503 with Retry-After while the database is down (the
delivery is stored in one transaction: all of it or, on 503, nothing), 408 for a body not sent
within 15 s (`BoundedBody`). Untrusted values are escaped in log lines; a client that leaves
mid-request is one rate-limited line. `/healthz` says whether the database answers (503 if not).
The Dagster sensor `webhook_push_sensor` turns stored events into runs; with a `DirectLauncher`
(orchestration/webhooks/launch.py) the receiver launches them at once through the webserver.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from core.errors import DatabaseUnavailableError
from core.request_guard import BoundedBody
from core.serving_pool import RETRY_AFTER_SECONDS, ServingPool
from orchestration.webhooks import events
from orchestration.webhooks.launch import DirectLauncher
from orchestration.webhooks.payload import decode, loggable
from orchestration.webhooks.providers import (
    PROVIDERS,
    MalformedEvent,
    PushEvent,
    detect_provider,
    parse,
    signature_header,
)
from orchestration.webhooks.secret_box import SecretKeyError

log = logging.getLogger("codeatlas.webhooks")
MAX_BODY_BYTES = 5 * 1024 * 1024


class BodyTooLarge(Exception):
    """The request body passed the limit."""


async def read_body(request: Request, limit: int) -> bytes:
    """The raw body, refusing (before reading it all) anything over `limit` bytes."""
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limit:
        raise BodyTooLarge
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise BodyTooLarge
        chunks.append(chunk)
    return b"".join(chunks)


class Receiver:
    """Request handling over a small connection pool to the index database."""

    def __init__(
        self,
        database_url: str,
        secret_key: str | None,
        max_body_bytes: int = MAX_BODY_BYTES,
        launcher: DirectLauncher | None = None,
    ) -> None:
        self.database_url = database_url
        self.launcher = launcher  # launches a stored push's run at once (None: the sensor)
        self.secret_key = secret_key  # unseals stored secrets (CODEATLAS_SECRET_KEY)
        self.max_body_bytes = max_body_bytes
        self._pool: ServingPool | None = None
        self._lock = threading.Lock()

    def pool(self) -> ServingPool:
        """The pool, opened on first use."""
        with self._lock:
            if self._pool is None:
                self._pool = ServingPool(self.database_url, 4, "codeatlas-webhooks")
            return self._pool

    def seal_secrets(self) -> None:
        """Encrypt plain-text secrets at start-up when a key is configured."""
        with self.pool().connection() as conn:
            sealed = events.seal_stored_secrets(conn, self.secret_key)
        if sealed:
            log.info("encrypted %d webhook secrets stored in plain text", sealed)

    def close(self) -> None:
        """Close the pool (app shutdown)."""
        with self._lock:
            if self._pool is not None:
                self._pool.close()
                self._pool = None

    async def handle(self, request: Request) -> JSONResponse:
        """Verify, store and answer one delivery."""
        try:
            body = await read_body(request, self.max_body_bytes)
        except BodyTooLarge:
            return _answer(413, "payload too large", limit=self.max_body_bytes)
        headers = {k.lower(): v for k, v in request.headers.items()}
        provider = request.path_params.get("provider") or detect_provider(headers)
        if provider not in PROVIDERS:
            return _answer(
                400,
                "unknown sender: expected a GitHub, GitLab, Bitbucket or Gitea"
                " push (or POST to /webhooks/<provider>)",
            )
        signature = signature_header(provider, headers)
        if not signature:
            return _answer(401, f"unsigned request: configure the webhook secret on {provider}")
        try:
            payload = decode(body, headers.get("content-type", ""))
            event = parse(provider, headers, payload, body)
        except MalformedEvent as exc:
            return _answer(400, f"malformed event: {exc}")
        try:
            return await run_in_threadpool(self._store, event, signature, body)
        except DatabaseUnavailableError as exc:
            retry_after = getattr(exc, "retry_after", RETRY_AFTER_SECONDS)
            return _answer(503, str(exc), headers={"Retry-After": str(retry_after)})

    def _store(self, event: PushEvent, signature: str, body: bytes) -> JSONResponse:
        with self.pool().connection() as conn:
            try:
                repos = events.verified_repositories(conn, event, signature, body, self.secret_key)
            except SecretKeyError as exc:
                log.error("webhook %s refused: %s", loggable(event.delivery_id), exc)
                return _answer(503, "the receiver cannot read its webhook secrets (see its log)")
            if not repos:
                log.warning(
                    "webhook refused: %s delivery %s for %s: no registered repository"
                    " with a matching %s secret",
                    event.provider,
                    loggable(event.delivery_id),
                    loggable(event.full_name or (event.urls[:1] or ["?"])[0]),
                    event.provider,
                )
                return _answer(401, "signature does not match a registered repository's secret")
            if event.event == "ping":
                return _answer(200, "pong", repository=repos[0]["name"])
            if event.event not in ("push", "tag_push"):
                return _answer(202, "ignored", reason=f"{event.event} events are not indexed")
            repo, change = events.choose(repos, event)
            stored = events.store(conn, event, repo, change)
        if stored.status == "pending" and self.launcher is not None:
            self.launcher.wake()
        if stored.status == "duplicate":
            return _answer(
                200, "duplicate", repository=stored.repository, delivery=event.delivery_id
            )
        log.info(
            "webhook %s %s: %s %s %s (%s)",
            event.provider,
            loggable(event.delivery_id),
            loggable(stored.repository),
            loggable(change.ref) if change else "-",
            (change.after or "-")[:12] if change else "-",
            loggable(stored.detail or stored.status),
        )
        return _answer(
            202,
            stored.status,
            repository=stored.repository,
            event_id=stored.id,
            delivery=event.delivery_id,
            reason=stored.detail,
        )


def _answer(
    status: int, message: str, headers: dict[str, str] | None = None, **extra: object
) -> JSONResponse:
    return JSONResponse(
        {"status": message, **{k: v for k, v in extra.items() if v is not None}},
        status_code=status,
        headers=headers,
    )


def build_app(
    database_url: str,
    *,
    secret_key: str | None = None,
    max_body_bytes: int = MAX_BODY_BYTES,
    launcher: DirectLauncher | None = None,
) -> Starlette:
    """The receiver's ASGI app for one index database; `secret_key` (`Settings.secret_key`)
    seals and unseals the stored webhook secrets; `launcher` (started and closed with the app)
    launches a stored push's run at once instead of waiting for the sensor."""
    receiver = Receiver(database_url, secret_key, max_body_bytes, launcher)

    async def health(_request: Request) -> JSONResponse:
        state = await run_in_threadpool(receiver.pool().health)
        if state["status"] == "ok":
            return JSONResponse(state)
        return JSONResponse(state, 503, headers={"Retry-After": str(RETRY_AFTER_SECONDS)})

    @asynccontextmanager
    async def lifespan(_app: Starlette) -> AsyncIterator[None]:
        await run_in_threadpool(receiver.pool)
        await run_in_threadpool(receiver.seal_secrets)
        if launcher is not None:
            launcher.start()
            launcher.wake()  # pushes stored while the receiver was down
        try:
            yield
        finally:
            if launcher is not None:
                await run_in_threadpool(launcher.close)
            await run_in_threadpool(receiver.close)

    app = Starlette(
        routes=[
            Route("/webhooks", receiver.handle, methods=["POST"]),
            Route("/webhooks/{provider}", receiver.handle, methods=["POST"]),
            Route("/healthz", health, methods=["GET"]),
        ],
        lifespan=lifespan,
        middleware=[Middleware(BoundedBody, max_body_bytes=max_body_bytes)],
    )
    app.state.receiver = receiver
    return app
