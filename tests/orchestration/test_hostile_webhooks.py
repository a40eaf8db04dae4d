"""Hostile input for the webhook receiver: for each provider a generated corpus of bad bodies
and headers (signed with the right secret, a wrong one, or not at all) is answered 4xx, nothing
is stored, and the receiver stays healthy and still accepts a good push afterwards."""

from __future__ import annotations

import json
import logging
from typing import Any

import httpx
import pytest
from starlette.testclient import TestClient

from orchestration.webhooks.app import build_app
from orchestration.webhooks.providers import PROVIDERS, sign
from tests.orchestration.test_webhooks import SECRET, SHA, registered, stored  # noqa: F401
from tests.slow_clients import answer, partial_request

LIMIT = 200_000
BODIES: list[tuple[str, bytes]] = [
    ("empty", b""),
    ("not json", b"hello"),
    ("truncated json", b'{"ref": "refs/heads/main", "after": '),
    ("json array", b"[]"),
    ("json string", b'"push"'),
    ("json null", b"null"),
    ("invalid utf-8", b'{"ref": "\xff\xfe"}'),
    ("nul in json", b'{"ref": "refs/heads/ma\\u0000in"}'),
    ("lone surrogate", b'{"repository": {"full_name": "\\ud800"}}'),
    ("deep nesting", b'{"a": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"),
    ("deep objects", b'{"a":' * 5_000 + b"1" + b"}" * 5_000),
    ("over the size limit", b'{"pad": "' + b"x" * (LIMIT + 10) + b'"}'),
    ("no repository", json.dumps({"ref": "refs/heads/main", "after": SHA}).encode()),
    ("repository not an object", json.dumps({"ref": "refs/heads/main", "repository": 7}).encode()),
    ("huge number", b'{"ref": 1' + b"0" * 5000 + b"}"),
]


def _push(provider: str, **override: Any) -> dict[str, Any]:
    repo = {"full_name": "acme/shop", "clone_url": "https://github.com/acme/shop.git"}
    if provider == "gitlab":
        body: dict[str, Any] = {"object_kind": "push", "ref": "refs/heads/main", "after": SHA,
                                "project": {"path_with_namespace": "acme/shop"}}  # fmt: skip
    elif provider == "bitbucket":
        body = {"repository": repo, "push": {"changes": [
            {"new": {"type": "branch", "name": "main", "target": {"hash": SHA}}}]}}  # fmt: skip
    else:
        body = {"ref": "refs/heads/main", "after": SHA, "repository": repo}
    return {**body, **override}


def _semantic(provider: str) -> list[tuple[str, bytes]]:
    """Well-formed JSON that is not a readable push of this provider."""
    key, field = (
        ("project", "path_with_namespace") if provider == "gitlab" else ("repository", "full_name")
    )
    cases: dict[str, Any] = {
        "control chars in name": _push(provider, **{key: {field: "acme/shop\n\x1b[31mforged"}}),
        "nul in name": _push(provider, **{key: {field: "acme\x00/shop"}}),
    }  # fmt: skip
    if provider == "bitbucket":
        cases |= {
            "changes not a list": _push(provider, push={"changes": "main"}),
            "change not an object": _push(provider, push={"changes": [1, 2]}),
            "hash not a sha": _push(provider, push={"changes": [
                {"new": {"type": "branch", "name": "main", "target": {"hash": "zz"}}}]}),
            "hash missing": _push(provider, push={"changes": [
                {"new": {"type": "branch", "name": "main", "target": {}}}]}),
        }  # fmt: skip
    else:
        cases |= {
            "after not a sha": _push(provider, after="not-a-sha"),
            "after an object": _push(provider, after={"sha": SHA}),
            "after missing": {k: v for k, v in _push(provider).items() if k != "after"},
            "ref missing": {k: v for k, v in _push(provider).items() if k != "ref"},
            "ref a list": _push(provider, ref=["refs/heads/main"]),
        }
    return [(name, json.dumps(body).encode()) for name, body in cases.items()]


def _headers(provider: str, body: bytes, how: str, delivery: str) -> dict[str, str]:
    secret = {"signed": SECRET, "wrong secret": "not-the-secret"}.get(how)
    headers = {
        "github": {"X-GitHub-Event": "push", "X-GitHub-Delivery": delivery},
        "gitea": {"X-Gitea-Event": "push", "X-Gitea-Delivery": delivery},
        "gitlab": {"X-Gitlab-Event": "Push Hook", "Idempotency-Key": delivery},
        "bitbucket": {"X-Event-Key": "repo:push", "X-Request-UUID": delivery},
    }[provider]
    if secret is None:
        return headers
    if provider == "gitlab":
        return {**headers, "X-Gitlab-Token": secret}
    digest = sign(secret, body)
    name = {"github": "X-Hub-Signature-256", "gitea": "X-Gitea-Signature",
            "bitbucket": "X-Hub-Signature"}[provider]  # fmt: skip
    return {**headers, name: digest if provider == "gitea" else "sha256=" + digest}


HEADER_CASES: list[tuple[str, dict[str, Any]]] = [
    ("delivery with control chars", {"X-GitHub-Delivery": "d\x1b[2K\tforged"}),
    ("delivery too long", {"X-GitHub-Delivery": "d" * 500}),
    ("signature not hex", {"X-Hub-Signature-256": "sha256=zzzz"}),
    ("signature empty", {"X-Hub-Signature-256": ""}),
    ("signature unicode", {"X-Hub-Signature-256": ("sha256=" + "é" * 10).encode()}),
    ("form without payload", {"Content-Type": "application/x-www-form-urlencoded"}),
]


def corpus() -> list[tuple[str, str, bytes, dict[str, str]]]:
    """(provider, case, body, headers) for every bad body, signed, wrongly signed and unsigned."""
    cases = []
    for provider in PROVIDERS:
        bodies = BODIES + _semantic(provider)
        for i, (name, body) in enumerate(bodies):
            for how in ("signed", "wrong secret", "unsigned"):
                headers = _headers(provider, body, how, f"{provider}-{i}-{how}")
                cases.append((provider, f"{name} ({how})", body, headers))
    good = json.dumps(_push("github")).encode()
    for name, extra in HEADER_CASES:
        body = b"payload=%7B" if "form" in name else good
        headers = {**_headers("github", body, "signed", "hdr"), **extra}
        if "form" in name:
            headers["X-Hub-Signature-256"] = "sha256=" + sign(SECRET, body)
        cases.append(("github", name, body, headers))
    cases.append(("none", "unknown sender", good, {"Content-Type": "application/json"}))
    return cases


def test_every_hostile_delivery_gets_a_4xx_and_the_receiver_stays_healthy(registered):  # noqa: F811
    cases = corpus()
    answers: dict[int, int] = {}
    with TestClient(build_app(registered, max_body_bytes=LIMIT)) as client:
        for provider, name, body, headers in cases:
            path = "/webhooks" if provider == "none" else f"/webhooks/{provider}"
            response = client.post(path, content=body, headers=headers)
            answers[response.status_code] = answers.get(response.status_code, 0) + 1
            assert 400 <= response.status_code < 500, (provider, name, response.text[:200])
            assert "Traceback" not in response.text
            assert client.get("/healthz").status_code == 200
        assert stored(registered) == []
        good = json.dumps(_push("github")).encode()
        final = client.post("/webhooks", content=good, headers=_headers("github", good,
                            "signed", "final"))  # fmt: skip
        assert final.status_code == 202
    print(f"\nwebhook hostile input: {len(cases)} tried, answers {dict(sorted(answers.items()))}")
    assert len(cases) > 250


@pytest.mark.parametrize("provider", PROVIDERS)
def test_each_provider_has_hostile_cases_signed_wrongly_signed_and_unsigned(provider):
    names = [name for p, name, _b, _h in corpus() if p == provider]
    assert {n.rsplit("(", 1)[-1] for n in names} >= {"signed)", "wrong secret)", "unsigned)"}


@pytest.fixture
def receiver(registered, monkeypatch):  # noqa: F811
    """The receiver under uvicorn, with a 1 s body deadline and room for 6 connections."""
    from core import request_guard
    from orchestration.webhooks.background import serving

    monkeypatch.setattr(request_guard, "BODY_SECONDS", 1.0)
    monkeypatch.setattr(request_guard, "MAX_CONNECTIONS", 6)
    with serving(build_app(registered, max_body_bytes=LIMIT)) as url:
        yield url


GITHUB = {
    "X-GitHub-Event": "push",
    "X-GitHub-Delivery": "d-slow",
    "Content-Type": "application/json",
}


def test_a_body_not_sent_in_time_is_answered_408_and_its_connection_closed(receiver, registered):  # noqa: F811
    stalled = [partial_request(receiver + "/webhooks", GITHUB) for _ in range(4)]
    answers = [answer(sock) for sock in stalled]  # each returns once the server closes
    assert all(a.startswith(b"HTTP/1.1 408") for a in answers), answers[0][:200]
    assert all(b"request body must arrive within 1 s" in a for a in answers)
    assert httpx.get(receiver + "/healthz", timeout=10).status_code == 200
    assert stored(registered) == []


def test_connections_past_the_limit_get_503_until_stalled_ones_are_dropped(receiver):
    # uvicorn counts the connection asking too: the sixth is one too many
    stalled = [partial_request(receiver + "/webhooks", GITHUB) for _ in range(5)]
    try:
        crowded = httpx.get(receiver + "/healthz", timeout=10)
    finally:
        answers = [answer(sock) for sock in stalled]
    assert crowded.status_code == 503
    assert all(a.startswith(b"HTTP/1.1 408") for a in answers)
    assert httpx.get(receiver + "/healthz", timeout=10).status_code == 200


def test_clients_leaving_mid_body_are_one_log_line_not_a_traceback_each(receiver, registered):  # noqa: F811
    from core.request_guard import throttled

    records: list[logging.LogRecord] = []
    handler = logging.Handler()
    handler.emit = records.append  # type: ignore[method-assign]
    loggers = [logging.getLogger(n) for n in ("uvicorn", "")]  # uvicorn's do not propagate
    for logger in loggers:
        logger.addHandler(handler)
    throttled._last.clear()  # a fresh window: the first of these is written
    try:
        for _ in range(100):
            sock = partial_request(receiver + "/webhooks", GITHUB)
            sock.close()
        assert httpx.get(receiver + "/healthz", timeout=10).status_code == 200
    finally:
        for logger in loggers:
            logger.removeHandler(handler)
    disconnects = [r for r in records if "disconnected" in r.getMessage()]
    assert not any(r.exc_info for r in records), records[0].getMessage()
    assert len(disconnects) == 1
    assert stored(registered) == []
