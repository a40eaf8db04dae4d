"""codeatlas's own retrieval, called in-process through `retrieval/` (the library behind
`codeatlas search --json`), so a run of 60 questions does not load the model 60 times."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import replace

from benchmarks.scoring import Result


class CodeatlasSearch:
    """Search one database as the operator principal, over the named repositories."""

    def __init__(
        self, database_url: str, repositories: Sequence[str] | None, embedder=None, ranker=None
    ) -> None:
        """`repositories` None: every repository of the database."""
        from core.database import connect
        from retrieval.principals import ensure_operator
        from retrieval.scope import resolve_scope

        self.url = database_url
        self.embedder = embedder
        self.ranker = ranker  # a learned ranker for hybrid mode (retrieval/ranker.py), or None
        self.conn = connect(database_url)
        principal = ensure_operator(self.conn)
        self.conn.commit()
        scope = resolve_scope(
            self.conn, principal, None if repositories is None else list(repositories)
        )
        self.conn.commit()
        if embedder is not None:
            # search the embedder's vectors, whichever model the repositories serve: an index
            # can hold a second model's vectors beside the active one's, measured as if it were
            # active (lab.embedding_models)
            scope = replace(
                scope,
                repositories=tuple(
                    replace(r, active_model=embedder.model_name) for r in scope.repositories
                ),
            )
        self.scope = scope

    def embed_query(self, model: str, text: str) -> Sequence[float] | None:
        """Query vector for the repositories' model (None when the embedder is another one)."""
        if self.embedder is None or model != self.embedder.model_name:
            return None
        return self.embedder.embed_query(text)

    def search(self, query: str, mode: str = "hybrid", limit: int = 10) -> list[dict]:
        """Hits as the `search --json` contract's records; mode `fused` is hybrid search in the
        rank-fusion order, without the learned ranker."""
        from retrieval.search import search_code

        report = search_code(
            self.conn,
            self.scope,
            query,
            limit=limit,
            mode="hybrid" if mode == "fused" else mode,
            embed_query=self.embed_query,
            ranker=None if mode == "fused" else self.ranker,
        )
        self.conn.commit()
        return [hit.contract() for hit in report.hits]

    def results(self, query: str, mode: str = "hybrid", limit: int = 10) -> list[Result]:
        """Hits as scoring results."""
        return [
            Result(h["path"], h["start_line"], h["end_line"])
            for h in self.search(query, mode, limit)
        ]

    def close(self) -> None:
        """Close the connection."""
        self.conn.close()


def cli_search(
    database_url: str,
    repository: str,
    query: str,
    provider: str,
    mode: str = "hybrid",
    limit: int = 10,
) -> dict:
    """`codeatlas search QUERY --repo N --limit K --json --mode M` in a child process."""
    env = {
        **os.environ,
        "CODEATLAS_DATABASE_URL": database_url,
        "CODEATLAS_EMBEDDING_PROVIDER": provider,
    }
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "codeatlas.cli",
            "search",
            query,
            "--repo",
            repository,
            "--limit",
            str(limit),
            "--json",
            "--mode",
            mode,
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    if out.returncode != 0:
        raise RuntimeError(f"codeatlas search failed: {out.stderr.strip()[-500:]}")
    return json.loads(out.stdout)
