"""The push webhook receiver: an ASGI app that verifies, stores and answers 202 fast.

POST /webhooks (the host is recognised by its headers) or /webhooks/{provider}.
401 unsigned or wrong signature (also for unknown repositories: no hint to strangers),
400 malformed (also JSON nested deeper than any push payload), 413 over the size limit
(enforced while reading), 200 for a redelivery (same delivery id, or the same push of the same
commit re-sent) or ping, 202 once stored, 503 with Retry-After while the database is down (the
delivery is stored in one transaction: all of it or, on 503, nothing), 408 for a body not sent
within 15 s (`BoundedBody`). Untrusted values are escaped in log lines; a client that leaves
mid-request is one rate-limited line. `/healthz` says whether the database answers (503 if not).
With a spool (`codeatlas webhooks` keeps one in the state dir), a push that arrives while the
database is down and that a secret read earlier proves is kept on disk and answered 202
`spooled` instead of 503, and replayed once the database answers (orchestration/webhooks/
spool.py); `/healthz` then stays 200 while the spool has room (it can accept durably).
The Dagster sensor `webhook_push_sensor` turns stored events into runs; with a `DirectLauncher`
(orchestration/webhooks/launch.py) the receiver launches them at once through the webserver.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING

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
from orchestration.webhooks.spool import DeliverySpool, SpooledDelivery

if TYPE_CHECKING:
    import psycopg

log = logging.getLogger("codeatlas.webhooks")
MAX_BODY_BYTES = 5 * 1024 * 1024
REGISTRY_SECONDS = 30.0  # how old the secrets kept for verifying while the database is down get
REPLAY_SECONDS = 1.0  # how often the spool is looked at


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
        spool: DeliverySpool | None = None,
    ) -> None:
        self.database_url = database_url
        self.launcher = launcher  # launches a stored push's run at once (None: the sensor)
        self.secret_key = secret_key  # unseals stored secrets (CODEATLAS_SECRET_KEY)
        self.max_body_bytes = max_body_bytes
        self.spool = spool  # deliveries kept while the database is down (None: 503 instead)
        self._pool: ServingPool | None = None
        self._lock = threading.Lock()
        # the repositories and sealed secrets, read while the database answered
        self._registry: list[dict] | None = None
        self._registry_at = 0.0
        self._stop_replay = threading.Event()
        self._replayer: threading.Thread | None = None

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
            self._remember_secrets(conn, force=True)
        if sealed:
            log.info("encrypted %d webhook secrets stored in plain text", sealed)

    def accepts_durably(self) -> bool:
        """Whether a push is kept while the database is down (a spool with room, and secrets
        to verify it with)."""
        return self.spool is not None and self._registry is not None and self.spool.has_room()

    def _remember_secrets(self, conn: psycopg.Connection, *, force: bool = False) -> None:
        if self.spool is None:
            return
        if force or time.monotonic() - self._registry_at > REGISTRY_SECONDS:
            self._registry = events.secret_registry(conn)
            self._registry_at = time.monotonic()

    def start_replay(self) -> None:
        """Replay spooled deliveries in the background whenever the database answers."""
        if self.spool is None or self._replayer is not None:
            return
        self._stop_replay.clear()
        self._replayer = threading.Thread(
            target=self._replay_loop, name="webhook-spool-replay", daemon=True
        )
        self._replayer.start()

    def stop_replay(self) -> None:
        """Stop the replaying thread (app shutdown)."""
        self._stop_replay.set()
        if self._replayer is not None:
            self._replayer.join(timeout=30)
            self._replayer = None

    def _replay_loop(self) -> None:
        while not self._stop_replay.wait(REPLAY_SECONDS):
            try:
                self.replay()
            except Exception:  # noqa: BLE001 - the next pass tries again; the files stay
                log.exception("replaying spooled webhook deliveries failed; retrying")

    def replay(self) -> int:
        """Store the spooled deliveries, oldest first, until the database fails again; how many
        were stored (or found already stored)."""
        if self.spool is None:
            return 0
        done = 0
        for delivery in self.spool.pending():
            if self._stop_replay.is_set():
                break
            try:
                answer = self._replay_one(delivery)
            except DatabaseUnavailableError:
                break  # still down: every file stays for the next pass
            if answer is not None and answer.status_code == 503:
                break
            self.spool.remove(delivery)
            done += 1
        return done

    def _replay_one(self, delivery: SpooledDelivery) -> JSONResponse | None:
        signature = signature_header(delivery.provider, delivery.headers)
        try:
            payload = decode(delivery.body, delivery.headers.get("content-type", ""))
            event = parse(delivery.provider, delivery.headers, payload, delivery.body)
        except MalformedEvent:
            return None  # it was read when it came: cannot happen; nothing to keep it for
        if not signature:
            return None
        answer = self._store(event, signature, delivery.body)
        log.info(
            "webhook %s %s replayed from the spool: %s",
            event.provider,
            loggable(event.delivery_id),
            answer.status_code,
        )
        return answer

    def _spooled(
        self, provider: str, headers: dict[str, str], event: PushEvent, signature: str, body: bytes
    ) -> JSONResponse | None:
        """The answer for a delivery kept on disk while the database is down, or None when it
        cannot be (no spool, no secret read yet proves it, not a push, the spool is full)."""
        registry = self._registry
        if self.spool is None or registry is None or event.event not in ("push", "tag_push"):
            return None
        try:
            repos = events.verified_in_registry(registry, event, signature, body, self.secret_key)
        except SecretKeyError:
            return None
        if not repos or not self.spool.put(provider, event.delivery_id, headers, body):
            return None
        log.warning(
            "webhook %s %s for %s kept in the spool: the database is unavailable",
            provider,
            loggable(event.delivery_id),
            loggable(repos[0]["name"]),
        )
        return _answer(
            202, "spooled", repository=repos[0]["name"], delivery=event.delivery_id,
            reason="the index database is unavailable: kept on disk, stored once it is back",
        )  # fmt: skip

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
            spooled = await run_in_threadpool(
                self._spooled, provider, headers, event, signature, body
            )
            if spooled is not None:
                return spooled
            retry_after = getattr(exc, "retry_after", RETRY_AFTER_SECONDS)
            return _answer(503, str(exc), headers={"Retry-After": str(retry_after)})

    def _store(self, event: PushEvent, signature: str, body: bytes) -> JSONResponse:
        with self.pool().connection() as conn:
            self._remember_secrets(conn)
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
    spool: DeliverySpool | None = None,
) -> Starlette:
    """The receiver's ASGI app for one index database; `secret_key` (`Settings.secret_key`)
    seals and unseals the stored webhook secrets; `launcher` (started and closed with the app)
    launches a stored push's run at once instead of waiting for the sensor; `spool` keeps the
    pushes that come while the database is down and replays them when it is back."""
    receiver = Receiver(database_url, secret_key, max_body_bytes, launcher, spool)

    async def health(_request: Request) -> JSONResponse:
        state: dict[str, object] = dict(await run_in_threadpool(receiver.pool().health))
        if spool is not None:
            state["spooled"] = await run_in_threadpool(spool.count)
        if state["status"] == "ok":
            return JSONResponse(state)
        if await run_in_threadpool(receiver.accepts_durably):
            # pushes are still accepted durably: a load balancer keeps sending them here
            state["status"] = "spooling"
            return JSONResponse(state)
        return JSONResponse(state, 503, headers={"Retry-After": str(RETRY_AFTER_SECONDS)})

    @asynccontextmanager
    async def lifespan(_app: Starlette) -> AsyncIterator[None]:
        await run_in_threadpool(receiver.pool)
        await run_in_threadpool(receiver.seal_secrets)
        if launcher is not None:
            launcher.start()
            launcher.wake()  # pushes stored while the receiver was down
        receiver.start_replay()  # pushes spooled before a restart, too
        try:
            yield
        finally:
            await run_in_threadpool(receiver.stop_replay)
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
