"""A repository behind a real bare remote, indexed at one commit with a second one pushed, and
the signed GitHub push webhook that announces it (shared by the freshness end-to-end tests)."""

import json
import subprocess
from pathlib import Path

from core.database import connect, transaction
from orchestration.webhooks import events
from orchestration.webhooks.providers import sign
from retrieval.principals import Principal
from retrieval.scope import resolve_scope
from retrieval.search import search_code
from tests.assets.pipeline_helpers import register, run_index
from tests.conftest import GitRepo

SECRET = "e2e-webhook-secret"
REPOSITORY = "acme/shop"


def git(cwd: Path, *args: str) -> str:
    """Run git in `cwd` and return its output."""
    return subprocess.run(
        ["git", "-C", str(cwd), *args], check=True, capture_output=True, text=True
    ).stdout.strip()


def pushed_repository(database_url: str, tmp_path: Path) -> dict[str, str]:
    """Index `acme/shop` at its first commit, then push a second one adding `issue_store_credit`."""
    bare = tmp_path / "origin.git"
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(bare)], check=True)
    work = GitRepo(tmp_path / "work")
    git(work.path, "remote", "add", "origin", str(bare))
    work.write("shop/cart.py", "def add_item(cart, item):\n    cart.append(item)\n")
    first = work.commit("cart")
    git(work.path, "push", "-q", "origin", "main")
    origin = bare.as_uri()  # file:// — fetched into a mirror like any remote
    register(database_url, REPOSITORY, origin)
    with transaction(database_url) as conn:
        repo_id = conn.execute(
            "SELECT id FROM repositories WHERE name = %s", (REPOSITORY,)
        ).fetchone()["id"]
        events.set_secret(conn, repo_id, "github", SECRET, None)
        conn.execute("INSERT INTO principals (name, all_repositories) VALUES ('op', true)")
    run_index(database_url, REPOSITORY, first)
    work.write(
        "shop/refunds.py",
        "def issue_store_credit(order, amount):\n"
        '    """Refund an order as store credit instead of cash."""\n'
        "    return order.customer.credit(amount)\n",
    )
    second = work.commit("store credit")
    git(work.path, "push", "-q", "origin", "main")
    return {"origin": origin, "first": first, "second": second}


def push_payload(origin: str, before: str, after: str) -> bytes:
    """A GitHub push event body for `acme/shop`."""
    return json.dumps(
        {
            "ref": "refs/heads/main",
            "before": before,
            "after": after,
            "repository": {"full_name": REPOSITORY, "clone_url": origin},
        }
    ).encode()


def headers(body: bytes, delivery: str, secret: str = SECRET) -> dict[str, str]:
    """GitHub's headers for a push delivery, signed with `secret`."""
    return {
        "X-GitHub-Event": "push",
        "X-GitHub-Delivery": delivery,
        "Content-Type": "application/json",
        "X-Hub-Signature-256": "sha256=" + sign(secret, body),
    }


def count_events(url: str) -> int:
    """How many webhook events are stored."""
    with connect(url) as conn:
        return conn.execute("SELECT count(*) AS n FROM webhook_events").fetchone()["n"]


def lexical_hits(url: str, query: str) -> list:
    """Lexical search hits in `acme/shop` for an all-repositories principal."""
    with connect(url) as conn:
        principal = Principal(
            id=conn.execute("SELECT id FROM principals").fetchone()["id"],
            name="op",
            all_repositories=True,
        )
        scope = resolve_scope(conn, principal, [REPOSITORY])
        return search_code(conn, scope, query, mode="lexical").hits
