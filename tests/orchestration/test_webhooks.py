"""The push webhook receiver: signatures per host, replays, sizes, and what gets stored."""

from __future__ import annotations

import json
import logging

import pytest
from starlette.testclient import TestClient

from core.database import connect, transaction
from indexing import repositories
from orchestration.webhooks import events
from orchestration.webhooks.app import build_app
from orchestration.webhooks.providers import sign

SECRET = "s3cret-for-tests"
SHA = "a" * 40
SHA2 = "b" * 40
SHA3 = "c" * 40


@pytest.fixture
def registered(database_url: str) -> str:
    with transaction(database_url) as conn:
        repo = repositories.register(conn, "acme/shop", "https://github.com/acme/shop.git", "main")
        for provider in ("github", "gitlab", "bitbucket", "gitea"):
            events.set_secret(conn, repo.id, provider, SECRET, None)
    return database_url


@pytest.fixture
def client(registered: str):
    with TestClient(build_app(registered, max_body_bytes=20_000)) as c:
        yield c


def github_push(ref: str = "refs/heads/main", after: str = SHA, **extra) -> bytes:
    return json.dumps(
        {
            "ref": ref,
            "before": "0" * 40,
            "after": after,
            "repository": {
                "full_name": "acme/shop",
                "clone_url": "https://github.com/acme/shop.git",
                "ssh_url": "git@github.com:acme/shop.git",
            },
            **extra,
        }
    ).encode()


def github_headers(
    body: bytes, delivery: str = "d-1", secret: str = SECRET, event: str = "push"
) -> dict[str, str]:
    return {
        "X-GitHub-Event": event,
        "X-GitHub-Delivery": delivery,
        "X-Hub-Signature-256": "sha256=" + sign(secret, body),
        "Content-Type": "application/json",
    }


def stored(url: str) -> list[dict]:
    with connect(url) as conn:
        return conn.execute("SELECT * FROM webhook_events ORDER BY id").fetchall()


def test_a_signed_github_push_to_the_tracked_branch_is_stored_pending(client, registered):
    body = github_push()
    response = client.post("/webhooks", content=body, headers=github_headers(body))
    assert response.status_code == 202
    assert response.json()["status"] == "pending"
    [row] = stored(registered)
    assert (
        row["provider"],
        row["delivery_id"],
        row["repository"],
        row["ref"],
        row["after_sha"],
        row["status"],
    ) == ("github", "d-1", "acme/shop", "refs/heads/main", SHA, "pending")


def test_a_redelivery_is_answered_200_and_stores_nothing_new(client, registered):
    body = github_push()
    client.post("/webhooks", content=body, headers=github_headers(body))
    again = client.post("/webhooks", content=body, headers=github_headers(body))
    assert again.status_code == 200
    assert again.json()["status"] == "duplicate"
    assert len(stored(registered)) == 1


def test_a_wrong_signature_or_none_is_refused_with_401_and_nothing_is_stored(client, registered):
    body = github_push()
    wrong = client.post("/webhooks", content=body, headers=github_headers(body, secret="nope-nope"))
    headers = github_headers(body)
    del headers["X-Hub-Signature-256"]
    unsigned = client.post("/webhooks", content=body, headers=headers)
    tampered = client.post(
        "/webhooks", content=body.replace(b"main", b"mian"), headers=github_headers(body)
    )
    assert (wrong.status_code, unsigned.status_code, tampered.status_code) == (401, 401, 401)
    assert stored(registered) == []


def test_an_unknown_repository_gets_the_same_401_as_a_bad_signature(client, registered):
    body = github_push().replace(b"acme/shop", b"acme/other")
    response = client.post("/webhooks", content=body, headers=github_headers(body))
    assert response.status_code == 401
    assert "acme/other" not in response.text
    assert stored(registered) == []


def test_a_malformed_body_is_refused_with_400(client, registered):
    for body in (
        b"{not json",
        b"[1, 2]",
        json.dumps({"ref": "refs/heads/main"}).encode(),
        github_push(after="not-a-sha"),
    ):
        response = client.post("/webhooks", content=body, headers=github_headers(body))
        assert response.status_code == 400, body
    assert client.post("/webhooks", content=b"{}", headers={}).status_code == 400
    assert stored(registered) == []


def test_an_oversized_body_is_refused_with_413_also_without_a_content_length(client, registered):
    body = github_push(padding="x" * 30_000)
    declared = client.post("/webhooks", content=body, headers=github_headers(body))
    assert declared.status_code == 413

    def chunks():
        for start in range(0, len(body), 4096):
            yield body[start : start + 4096]

    streamed = client.post("/webhooks", content=chunks(), headers=github_headers(body))
    assert streamed.status_code == 413
    assert stored(registered) == []


def test_other_branches_tags_and_deletions_are_stored_as_ignored_with_a_reason(client, registered):
    cases = {
        "d-branch": github_push(ref="refs/heads/feature"),
        "d-tag": github_push(ref="refs/tags/v1.0"),
        "d-delete": github_push(after="0" * 40, deleted=True),
    }
    for delivery, body in cases.items():
        response = client.post("/webhooks", content=body, headers=github_headers(body, delivery))
        assert response.status_code == 202
        assert response.json()["status"] == "ignored"
    reasons = {r["delivery_id"]: (r["status"], r["detail"]) for r in stored(registered)}
    assert reasons["d-branch"] == ("ignored", "branch feature is not the tracked branch main")
    assert reasons["d-tag"][1].startswith("tag push (v1.0)")
    assert reasons["d-delete"] == ("ignored", "branch main was deleted")


def test_a_ping_is_verified_and_answered_without_storing(client, registered):
    body = json.dumps(
        {"zen": "Keep it simple", "hook_id": 1, "repository": {"full_name": "acme/shop"}}
    ).encode()
    response = client.post(
        "/webhooks", content=body, headers=github_headers(body, "p-1", event="ping")
    )
    assert response.status_code == 200
    assert stored(registered) == []


def test_gitlab_token_gitea_and_bitbucket_signatures_are_each_verified(client, registered):
    gitlab = json.dumps(
        {
            "object_kind": "push",
            "ref": "refs/heads/main",
            "after": SHA,
            "project": {
                "path_with_namespace": "acme/shop",
                "git_ssh_url": "git@github.com:acme/shop.git",
            },
        }
    ).encode()
    r1 = client.post(
        "/webhooks",
        content=gitlab,
        headers={
            "X-Gitlab-Event": "Push Hook",
            "X-Gitlab-Token": SECRET,
            "Idempotency-Key": "gl-1",
        },
    )
    bad_gitlab = client.post(
        "/webhooks",
        content=gitlab,
        headers={
            "X-Gitlab-Event": "Push Hook",
            "X-Gitlab-Token": "wrong-token",
            "Idempotency-Key": "gl-2",
        },
    )
    gitea = github_push(after=SHA2)
    r2 = client.post(
        "/webhooks",
        content=gitea,
        headers={
            "X-Gitea-Event": "push",
            "X-Gitea-Delivery": "gt-1",
            "X-GitHub-Event": "push",
            "X-Gitea-Signature": sign(SECRET, gitea),
        },
    )
    bitbucket = json.dumps(
        {
            "repository": {
                "full_name": "acme/shop",
                "links": {"html": {"href": "https://bitbucket.org/acme/shop"}},
            },
            "push": {
                "changes": [
                    {"new": {"type": "branch", "name": "feature", "target": {"hash": SHA}}},
                    {"new": {"type": "branch", "name": "main", "target": {"hash": SHA3}}},
                ]
            },
        }
    ).encode()
    r3 = client.post(
        "/webhooks",
        content=bitbucket,
        headers={
            "X-Event-Key": "repo:push",
            "X-Request-UUID": "bb-1",
            "X-Hub-Signature": "sha256=" + sign(SECRET, bitbucket),
        },
    )
    assert (r1.status_code, bad_gitlab.status_code, r2.status_code, r3.status_code) == (
        202,
        401,
        202,
        202,
    )
    rows = {r["provider"]: r for r in stored(registered)}
    assert set(rows) == {"gitlab", "gitea", "bitbucket"}
    assert rows["gitlab"]["after_sha"] == SHA and rows["gitlab"]["delivery_id"] == "gl-1"
    assert rows["gitea"]["after_sha"] == SHA2
    # of the two branches in one Bitbucket push, the tracked one is kept
    assert (rows["bitbucket"]["ref"], rows["bitbucket"]["after_sha"]) == ("refs/heads/main", SHA3)


def test_a_push_without_a_delivery_header_is_deduplicated_by_its_body(client, registered):
    body = json.dumps(
        {
            "object_kind": "push",
            "ref": "refs/heads/main",
            "after": SHA,
            "project": {"path_with_namespace": "acme/shop"},
        }
    ).encode()
    headers = {"X-Gitlab-Event": "Push Hook", "X-Gitlab-Token": SECRET}
    assert client.post("/webhooks/gitlab", content=body, headers=headers).status_code == 202
    assert client.post("/webhooks/gitlab", content=body, headers=headers).status_code == 200
    assert len(stored(registered)) == 1


def test_the_secret_never_appears_in_logs_or_answers(client, registered, caplog):
    caplog.set_level(logging.DEBUG)
    body = github_push()
    ok = client.post("/webhooks", content=body, headers=github_headers(body))
    bad = client.post("/webhooks", content=body, headers=github_headers(body, "d-2", "x" * 12))
    assert SECRET not in caplog.text + ok.text + bad.text


@pytest.mark.parametrize(
    ("origin", "url"),
    [
        ("https://github.com/acme/shop.git", "git@github.com:acme/shop.git"),
        ("git@gitlab.com:acme/shop.git", "https://gitlab.com/acme/shop"),
        ("ssh://git@host:2222/acme/shop.git", "https://user@host/acme/shop/"),
        ("/srv/git/shop.git", "/srv/git/shop"),
    ],
)
def test_location_keys_match_the_same_repository_however_it_is_spelled(origin, url):
    assert events.location_key(origin) == events.location_key(url)


def test_the_same_push_resent_under_a_new_delivery_id_stores_nothing_new(client, registered):
    body = github_push()
    first = client.post("/webhooks", content=body, headers=github_headers(body, delivery="d-1"))
    again = client.post("/webhooks", content=body, headers=github_headers(body, delivery="d-2"))
    assert (first.status_code, again.status_code) == (202, 200)
    assert again.json()["status"] == "duplicate"
    newer = github_push(after=SHA2)
    back = github_push(after=SHA)  # a later push back to the first commit is new work
    for delivery, push in (("d-3", newer), ("d-4", back)):
        response = client.post("/webhooks", content=push, headers=github_headers(push, delivery))
        assert response.status_code == 202
    assert [r["after_sha"] for r in stored(registered)] == [SHA, SHA2, SHA]


@pytest.mark.parametrize("signed", [True, False])
def test_deeply_nested_json_is_refused_with_400_signed_or_not(client, registered, signed):
    body = b'{"repository": ' + b"[" * 50_000 + b"]" * 50_000 + b"}"
    headers = github_headers(body) if signed else {"X-GitHub-Event": "push"}
    if not signed:
        headers["X-Hub-Signature-256"] = "sha256=" + "0" * 64
    with TestClient(build_app(registered, max_body_bytes=200_000)) as big:
        response = big.post("/webhooks", content=body, headers=headers)
        assert response.status_code == 400
        assert "nests deeper" in response.json()["status"]
        assert big.get("/healthz").status_code == 200
    assert stored(registered) == []


def test_control_characters_from_an_unsigned_body_are_escaped_in_the_log(client, caplog):
    forged = "acme/evil\n2026-01-01 INFO webhook github d-9: acme/shop accepted\x1b[2K"
    body = json.dumps({"ref": "refs/heads/main", "after": SHA, "repository": {"full_name": forged}})
    headers = github_headers(body.encode(), secret="not-the-secret")
    with caplog.at_level(logging.INFO, logger="codeatlas.webhooks"):
        assert client.post("/webhooks", content=body, headers=headers).status_code == 401
    [line] = [r.getMessage() for r in caplog.records if "refused" in r.getMessage()]
    assert "\n" not in line and "\x1b" not in line
    assert "acme/evil\\n2026" in line


def test_with_a_key_configured_secrets_are_stored_encrypted_and_still_verify(database_url):
    key = "a-long-random-key-for-tests"
    with transaction(database_url) as conn:
        repo = repositories.register(conn, "acme/shop", "https://github.com/acme/shop.git", "main")
        events.set_secret(conn, repo.id, "github", SECRET, key)
    with connect(database_url) as conn:
        [row] = conn.execute("SELECT secret FROM repository_webhooks").fetchall()
    assert row["secret"].startswith("enc:v1:") and SECRET not in row["secret"]
    body = github_push()
    with TestClient(build_app(database_url, secret_key=key)) as receiver:
        assert (
            receiver.post("/webhooks", content=body, headers=github_headers(body)).status_code
            == 202
        )
    with TestClient(build_app(database_url, secret_key="not-the-key")) as receiver:
        again = github_push(after=SHA2)
        refused = receiver.post("/webhooks", content=again, headers=github_headers(again, "d-2"))
        assert refused.status_code == 503 and "secret" not in refused.text.split("webhook")[0]


def test_plain_text_secrets_are_encrypted_when_the_receiver_starts_with_a_key(registered):
    body = github_push()
    with TestClient(build_app(registered, secret_key="a-long-random-key-for-tests")) as receiver:
        assert (
            receiver.post("/webhooks", content=body, headers=github_headers(body)).status_code
            == 202
        )
    with connect(registered) as conn:
        stored_secrets = [
            r["secret"] for r in conn.execute("SELECT secret FROM repository_webhooks")
        ]
    assert len(stored_secrets) == 4 and all(s.startswith("enc:v1:") for s in stored_secrets)
