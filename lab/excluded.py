"""The repositories never to train or tune on: `shared/eval/exclude_repos.txt`, the evaluation
sets of this project and of published benchmarks. The fix miner refuses to record them and the
mined question sets refuse a package whose upstream is one of them."""

from __future__ import annotations

from pathlib import Path

LISTS = (
    Path(__file__).resolve().parents[1] / ".." / "shared" / "eval" / "exclude_repos.txt",
    Path("/work/shared/eval/exclude_repos.txt"),
)


def excluded_repos(lists: tuple[Path, ...] = LISTS) -> set[str]:
    """The listed repositories, `owner/name` lowered (empty when no list is on this machine)."""
    for path in lists:
        if path.exists():
            return {line.strip().lower() for line in path.read_text().splitlines() if line.strip()}
    return set()


def is_excluded(repo: str, excluded: set[str]) -> bool:
    """`repo` (owner/name, any case) is listed."""
    return repo.strip().lower() in excluded


# The repositories whose code the hand-written sets search (shared/eval and benchmarks/holdout):
# data written or mined over them is never training data, though the exclusion list does not
# name them all.
EVAL_CORPORA = frozenset(
    {
        # shared/eval: Python, PHP (Symfony's components), TypeScript
        "pallets/flask",
        "pallets/werkzeug",
        "pallets/click",
        "pallets/jinja",
        "pallets/itsdangerous",
        "symfony/symfony",
        "trpc/trpc",
        "tanstack/query",
        # benchmarks/holdout: Go, Rust, Ruby, Java, C#
        "spf13/cobra",
        "go-chi/chi",
        "gin-gonic/gin",
        "prometheus/client_golang",
        "yuin/goldmark",
        "clap-rs/clap",
        "serde-rs/json",
        "hyperium/http",
        "servo/rust-url",
        "dtolnay/semver",
        "rack/rack",
        "sinatra/sinatra",
        "sinatra/mustermann",
        "rails/thor",
        "beanshell/beanshell",
        "openjdk/jfx",
        "jamesnk/newtonsoft.json",
        "nunit/nunit",
    }
)
