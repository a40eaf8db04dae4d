"""The systems compared on bug-report localisation. A system is a callable
(scope, issue text) -> `Ranking` (files in order, functions in order), built per snapshot.

- `bm25-files`: Okapi BM25 over whole files (in memory, code-aware tokens), no functions;
- `bm25-functions`: BM25 over every function and method (LocAgent's BM25 baseline);
- `search-10` / `search-50`: `search_code` hybrid with the issue as the query (which it reads
  as a report: `locate`'s ranking as hits);
- `question-10`: `search_code` reading the issue as a question (the fused order, before
  reports were recognised);
- `locate`: `retrieval/locate.py`.

Both BM25 baselines index what codeatlas indexed (the snapshot's parsed files), read from git.
"""

from __future__ import annotations

import hashlib
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from lab.baselines.bm25 import BM25, code_tokens
from lab.loc_metrics import FoundFunction, Ranking

System = Callable[[object, str], Ranking]

SYSTEMS = {
    "bm25-files": "BM25 over whole files (the snapshot's parsed files)",
    "bm25-functions": "BM25 over functions and methods (LocAgent's BM25 baseline)",
    "search-10": "search_code hybrid, the issue as the query, 10 hits",
    "search-50": "search_code hybrid, the issue as the query, 50 hits",
    "question-10": "search_code hybrid reading the issue as a question, 10 hits",
    "locate": "locate (frames, paths, named symbols, idf-capped BM25, per-file evidence)",
    "locate-learned": "locate with a learned file and function order (`--ranker`)",
}
# the system that needs a model named on the command line (`--ranker`)
LEARNED = "locate-learned"
BM25_DEPTH = 50  # results a BM25 baseline returns (files, or functions)


# a document's tokens by its content: a project's releases share most files and functions, and
# tokenizing them again for each release was most of a measuring run (django's seven releases)
_TOKENS: dict[bytes, list[str]] = {}


def shared_tokens(text: str) -> list[str]:
    """`code_tokens(text)`, computed once per distinct text in this process."""
    key = hashlib.blake2b(text.encode(errors="replace"), digest_size=16).digest()
    found = _TOKENS.get(key)
    if found is None:
        found = _TOKENS[key] = [sys.intern(t) for t in code_tokens(text)]
    return found


def _file_texts(repo: Path, commit: str, paths: list[str]) -> dict[str, str]:
    """The files' contents at the commit (one `git cat-file --batch`)."""
    request = "".join(f"{commit}:{p}\n" for p in paths).encode()
    out = subprocess.run(
        ["git", "-C", str(repo), "cat-file", "--batch"], input=request, capture_output=True
    ).stdout
    texts: dict[str, str] = {}
    pos = 0
    for path in paths:
        header_end = out.index(b"\n", pos)
        header = out[pos:header_end].split()
        if len(header) < 3 or header[1] == b"missing":
            pos = header_end + 1
            continue
        size = int(header[2])
        texts[path] = out[header_end + 1 : header_end + 1 + size].decode(errors="replace")
        pos = header_end + 1 + size + 1
    return texts


class SnapshotCorpus:
    """A snapshot's parsed files and functions, for the in-memory baselines."""

    def __init__(self, conn, snapshot_id: int, repo: Path, commit: str) -> None:
        rows = conn.execute(
            "SELECT path FROM snapshot_files WHERE snapshot_id = %s"
            " AND file_version_id IS NOT NULL ORDER BY path",
            (snapshot_id,),
        ).fetchall()
        self.paths = [r["path"] for r in rows]
        self.texts = _file_texts(repo, commit, self.paths)
        self.paths = [p for p in self.paths if p in self.texts]
        self.functions = conn.execute(
            "SELECT sf.path, s.qualified_name, s.start_line, s.end_line FROM snapshot_files sf"
            " JOIN code_symbols s ON s.file_version_id = sf.file_version_id"
            " WHERE sf.snapshot_id = %s AND s.kind IN ('function', 'method', 'constructor')"
            " ORDER BY sf.path, s.start_line",
            (snapshot_id,),
        ).fetchall()
        self._files: BM25 | None = None
        self._funcs: BM25 | None = None

    def build(self, systems: list[str]) -> None:
        """Build the baselines' indexes now, so that a query's latency is the query's alone."""
        if "bm25-files" in systems:
            self.bm25_files(None, "warm")
        if "bm25-functions" in systems:
            self.bm25_functions(None, "warm")

    def bm25_files(self, _scope, issue: str) -> Ranking:
        """Whole files by BM25."""
        if self._files is None:
            self._files = BM25([self.texts[p] for p in self.paths], tokens=shared_tokens)
        return Ranking([self.paths[i] for i in self._files.top(issue, BM25_DEPTH)], [])

    def bm25_functions(self, _scope, issue: str) -> Ranking:
        """Functions by BM25 (a function's own lines, its qualified name first)."""
        if self._funcs is None:
            lines = {p: t.splitlines() for p, t in self.texts.items()}
            docs = [
                f["qualified_name"]
                + "\n"
                + "\n".join(lines.get(f["path"], [])[f["start_line"] - 1 : f["end_line"]])
                for f in self.functions
            ]
            self._funcs = BM25(docs, tokens=shared_tokens)
        found = [
            FoundFunction(
                self.functions[i]["path"],
                self.functions[i]["qualified_name"],
                self.functions[i]["start_line"],
                self.functions[i]["end_line"],
            )
            for i in self._funcs.top(issue, BM25_DEPTH)
        ]
        return Ranking([f.path for f in found], found)


def search_system(
    conn, limit: int, connections=None, read_reports: bool = True, embed_query=None
) -> System:
    """`search_code` hybrid at `limit` hits, its retrievers on `connections` as the MCP server
    runs them; `embed_query` gives the query vectors (none with the fake embedder: its vectors
    mean nothing)."""
    from retrieval.search import search_code

    def run(scope, issue: str) -> Ranking:
        report = search_code(
            conn,
            scope,
            issue,
            limit=limit,
            mode="hybrid",
            connections=connections,
            read_reports=read_reports,
            embed_query=embed_query,
        )
        conn.commit()
        found = [FoundFunction(h.path, h.symbol, h.start_line, h.end_line) for h in report.hits]
        return Ranking([f.path for f in found], found)

    return run


def locate_system(
    conn, weights=None, connections=None, embed_query=None, ranker="shipped"
) -> System:
    """`locate`: its files in its order, its functions in `LocateReport.functions()` order; its
    lookups on `connections` as the MCP server runs them, its semantic lookup with
    `embed_query`; `ranker` its learned order (a `LocateRanker`, "shipped": the model shipped
    if any, None: the hand-set order)."""
    from retrieval.locate import WEIGHTS, locate

    def run(scope, issue: str) -> Ranking:
        report = locate(
            conn,
            scope,
            issue,
            limit_files=10,
            weights=weights or WEIGHTS,
            connections=connections,
            embed_query=embed_query,
            ranker=ranker,
        )
        conn.commit()
        found = [
            FoundFunction(f.path, u.symbol, u.start_line, u.end_line) for f, u in report.functions()
        ]
        return Ranking([f.path for f in report.files], found)

    return run
