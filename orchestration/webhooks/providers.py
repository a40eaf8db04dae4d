"""What each git host sends: how it signs a push, names the delivery and describes the refs.

Pure functions over (headers, raw body): no I/O, no framework, so every rule is testable alone.
GitHub, Gitea (and Forgejo) and Bitbucket Cloud sign the raw body with HMAC-SHA256; GitLab
sends the shared secret itself in `X-Gitlab-Token`. Every comparison is constant-time.
"""

from __future__ import annotations

import hashlib
import hmac
import re
from collections.abc import Mapping
from dataclasses import dataclass

PROVIDERS = ("github", "gitlab", "bitbucket", "gitea")
ZERO_SHA = re.compile(r"^0+$")
_SHA = re.compile(r"^[0-9a-f]{40}([0-9a-f]{24})?$")


class MalformedEvent(ValueError):
    """The request is not a push event codeatlas can read (answered with 400)."""


@dataclass(frozen=True)
class RefChange:
    """One ref moved by a push: `after` is None when the ref was deleted."""

    ref: str  # refs/heads/main, refs/tags/v1
    after: str | None

    @property
    def branch(self) -> str | None:
        """The branch name, or None for tags and other refs."""
        return self.ref.removeprefix("refs/heads/") if self.ref.startswith("refs/heads/") else None


@dataclass(frozen=True)
class PushEvent:
    """What codeatlas keeps of a delivery: who sent it, which repository, which refs moved."""

    provider: str
    event: str  # "push", "ping", or the provider's name of another event
    delivery_id: str
    full_name: str | None  # owner/name as the host spells it
    urls: tuple[str, ...]  # clone and web URLs of the repository
    changes: tuple[RefChange, ...]


def detect_provider(headers: Mapping[str, str]) -> str | None:
    """The sending host by its event header (Gitea also sends GitHub's: check Gitea first)."""
    if "x-gitea-event" in headers or "x-forgejo-event" in headers:
        return "gitea"
    if "x-github-event" in headers:
        return "github"
    if "x-gitlab-event" in headers:
        return "gitlab"
    if "x-event-key" in headers:
        return "bitbucket"
    return None


def signature_header(provider: str, headers: Mapping[str, str]) -> str | None:
    """The signature (or token) the request carries, or None when it is unsigned."""
    if provider == "github":
        return headers.get("x-hub-signature-256")
    if provider == "gitea":
        return (
            headers.get("x-gitea-signature")
            or headers.get("x-forgejo-signature")
            or _strip_prefix(headers.get("x-hub-signature-256"))
        )
    if provider == "gitlab":
        return headers.get("x-gitlab-token")
    if provider == "bitbucket":
        return headers.get("x-hub-signature")
    return None


def _strip_prefix(value: str | None) -> str | None:
    return value.removeprefix("sha256=") if value else None


def sign(secret: str, body: bytes) -> str:
    """Hex HMAC-SHA256 of the body, as the hosts compute it (also for tests and clients)."""
    return hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


def verify(provider: str, signature: str, secret: str, body: bytes) -> bool:
    """Whether `signature` proves the sender knows `secret` (constant-time)."""
    if provider == "gitlab":
        return hmac.compare_digest(signature.encode(), secret.encode())
    expected = sign(secret, body)
    if provider in ("github", "bitbucket"):
        expected = "sha256=" + expected
    return hmac.compare_digest(signature.strip().lower().encode(), expected.encode())


def delivery_id(provider: str, headers: Mapping[str, str], body: bytes) -> str:
    """The id a redelivery repeats; when a host sends none, the body's hash (same on a retry)."""
    names = {
        "github": ("x-github-delivery",),
        "gitea": ("x-gitea-delivery", "x-forgejo-delivery", "x-github-delivery"),
        # Idempotency-Key (GitLab ≥ 17.4) is the same on retries
        "gitlab": ("idempotency-key", "x-gitlab-event-uuid"),
        "bitbucket": ("x-request-uuid", "x-request-id"),
    }[provider]
    for name in names:
        value = (headers.get(name) or "").strip()
        if value:
            if len(value) > 200 or not value.isprintable():
                raise MalformedEvent(f"header {name} is not a valid delivery id")
            return value
    return "sha256:" + hashlib.sha256(body).hexdigest()


def event_name(provider: str, headers: Mapping[str, str], payload: dict) -> str:
    """ "push", "ping", or the host's own name for any other event."""
    if provider == "github":
        raw = headers.get("x-github-event", "")
    elif provider == "gitea":
        raw = headers.get("x-gitea-event") or headers.get("x-forgejo-event", "")
    elif provider == "gitlab":
        raw = str(payload.get("object_kind") or headers.get("x-gitlab-event", ""))
        raw = {"Push Hook": "push", "Tag Push Hook": "tag_push"}.get(raw, raw)
    else:
        raw = headers.get("x-event-key", "")
        raw = {"repo:push": "push", "diagnostics:ping": "ping"}.get(raw, raw)
    return raw.strip().lower() or "unknown"


def parse(provider: str, headers: Mapping[str, str], payload: object, body: bytes) -> PushEvent:
    """Read a decoded JSON payload into a PushEvent; MalformedEvent when it is not one."""
    if not isinstance(payload, dict):
        raise MalformedEvent("the payload is not a JSON object")
    event = event_name(provider, headers, payload)
    if provider == "gitlab":
        full_name, urls = _gitlab_repository(payload)
    else:
        full_name, urls = _repository(payload.get("repository"), provider)
    if not full_name and not urls:
        raise MalformedEvent("the payload names no repository")
    changes: tuple[RefChange, ...] = ()
    if event in ("push", "tag_push"):
        changes = (
            _bitbucket_changes(payload) if provider == "bitbucket" else (_single_change(payload),)
        )
    return PushEvent(
        provider, event, delivery_id(provider, headers, body), full_name, urls, changes
    )


def _text(value: object) -> str | None:
    return value.strip() if isinstance(value, str) and value.strip() else None


def _repository(repo: object, provider: str) -> tuple[str | None, tuple[str, ...]]:
    if not isinstance(repo, dict):
        return None, ()
    urls = [repo.get(k) for k in ("clone_url", "ssh_url", "git_url", "html_url", "url")]
    links = repo.get("links")
    if provider == "bitbucket" and isinstance(links, dict):
        html = links.get("html")
        if isinstance(html, dict):
            urls.append(html.get("href"))
    return _text(repo.get("full_name")), tuple(u for u in map(_text, urls) if u)


def _gitlab_repository(payload: dict) -> tuple[str | None, tuple[str, ...]]:
    project, repo = payload.get("project"), payload.get("repository")
    project = project if isinstance(project, dict) else {}
    repo = repo if isinstance(repo, dict) else {}
    urls = [project.get(k) for k in ("git_http_url", "git_ssh_url", "web_url", "http_url")]
    urls += [repo.get(k) for k in ("git_http_url", "git_ssh_url", "homepage", "url")]
    return (
        _text(project.get("path_with_namespace")),
        tuple(dict.fromkeys(u for u in map(_text, urls) if u)),
    )


def _commit(value: object, what: str) -> str | None:
    """The commit a ref moved to; None for the all-zero sha of a deletion."""
    sha = _text(value)
    if sha is None:  # absent, empty or not text: not a push codeatlas can follow
        raise MalformedEvent(f"{what} names no commit")
    if ZERO_SHA.match(sha):
        return None
    sha = sha.lower()
    if not _SHA.match(sha):
        raise MalformedEvent(f"{what} is not a commit sha")
    return sha


def _single_change(payload: dict) -> RefChange:
    ref = _text(payload.get("ref"))
    if ref is None:
        raise MalformedEvent("the push names no ref")
    if not ref.startswith("refs/"):
        ref = "refs/heads/" + ref
    after = None if payload.get("deleted") is True else _commit(payload.get("after"), "after")
    return RefChange(ref, after)


def _bitbucket_changes(payload: dict) -> tuple[RefChange, ...]:
    push = payload.get("push")
    changes = push.get("changes") if isinstance(push, dict) else None
    if not isinstance(changes, list) or not changes:
        raise MalformedEvent("the push has no changes")
    out = []
    for change in changes:
        if not isinstance(change, dict):
            raise MalformedEvent("a push change is not an object")
        new, old = change.get("new"), change.get("old")
        side = new if isinstance(new, dict) else old
        if not isinstance(side, dict) or not _text(side.get("name")):
            raise MalformedEvent("a push change names no ref")
        prefix = "refs/tags/" if side.get("type") == "tag" else "refs/heads/"
        after = None
        if isinstance(new, dict):
            target = new.get("target")
            after = _commit(target.get("hash") if isinstance(target, dict) else None, "hash")
        out.append(RefChange(prefix + str(side["name"]).strip(), after))
    return tuple(out)
