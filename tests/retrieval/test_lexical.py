"""BM25 over the inverted index: the arithmetic, statistics that follow the current snapshot,
several repositories in one query, principal scoping and working-tree overlays."""

from __future__ import annotations

import math

import pytest

from tests.retrieval.indexing import index_repository

# three one-function files; their lengths in terms are counted by hand in the test below
ALPHA = "def alpha():\n    return zebra + zebra\n"
BETA = "def beta():\n    return zebra\n"
GAMMA = "def gamma():\n    return lion\n"


def _bm25(tf: float, dl: int, df: int, n: int, avgdl: float) -> float:
    idf = math.log(1 + (n - df + 0.5) / (df + 0.5))
    return idf * tf * 2.2 / (tf + 1.2 * (0.25 + 0.75 * dl / avgdl))


@pytest.fixture
def zoo(settings_env, database_url, tmp_path):
    from tests.conftest import GitRepo

    repo = GitRepo(tmp_path / "zoo")
    repo.write("a.py", ALPHA)
    repo.write("b.py", BETA)
    repo.write("c.py", GAMMA)
    repo.commit("zoo")
    index_repository(database_url, repo.path, "zoo")
    return repo


def _connect(url):
    from core.database import connect

    return connect(url, autocommit=True)


def _lexical(conn, names, query, principal=None):
    from retrieval.lexical import lexical_candidates
    from retrieval.principals import ensure_operator
    from retrieval.scope import resolve_scope

    scope = resolve_scope(conn, principal or ensure_operator(conn), names)
    return lexical_candidates(conn, scope, query, 10)


def test_bm25_scores_match_a_hand_computed_example(zoo, database_url):
    conn = _connect(database_url)
    # lengths: text terms (def, name, return, words) + name field (1) + path field ("py")
    lengths = {
        r["qualified_name"]: r["lexical_length"]
        for r in conn.execute("SELECT qualified_name, lexical_length FROM code_chunks")
    }
    assert lengths == {"alpha": 7, "beta": 6, "gamma": 6}
    rows = _lexical(conn, ["zoo"], "zebra")
    # N = 3 chunks, df(zebra) = 2, avgdl = 19 / 3; tf 2 in alpha, 1 in beta
    assert [r["qualified_name"] for r in rows] == ["alpha", "beta"]
    assert rows[0]["rank"] == pytest.approx(_bm25(2, 7, 2, 3, 19 / 3), rel=1e-5)
    assert rows[1]["rank"] == pytest.approx(_bm25(1, 6, 2, 3, 19 / 3), rel=1e-5)
    # a rarer term outweighs a common one: lion (df 1) beats zebra for "lion zebra"
    assert _lexical(conn, ["zoo"], "lion zebra")[0]["qualified_name"] == "gamma"
    conn.close()


def test_document_frequencies_follow_the_current_snapshot_incrementally(zoo, database_url):
    from indexing.lexical_index import refresh_corpus_stats

    zoo.write("b.py", GAMMA.replace("gamma", "delta"))
    (zoo.path / "a.py").unlink()
    zoo.commit("zebras leave")
    index_repository(database_url, zoo.path, "zoo")
    conn = _connect(database_url)
    stats = _stats(conn)
    # no zebra left; lion in c.py and b.py
    assert _lexical(conn, ["zoo"], "zebra") == []
    lion = _lexical(conn, ["zoo"], "lion")
    assert sorted(r["qualified_name"] for r in lion) == ["delta", "gamma"]
    # the incremental delta equals a rebuild from scratch
    repo_id, snap_id = (
        conn.execute("SELECT id, current_snapshot_id FROM repositories WHERE name = 'zoo'")
        .fetchone()
        .values()
    )
    conn.execute("DELETE FROM lexical_corpus")
    with conn.transaction():
        refresh_corpus_stats(conn, repo_id, snap_id)
    assert _stats(conn) == stats
    conn.close()


def _stats(conn):
    corpus = conn.execute("SELECT documents, total_length FROM lexical_corpus").fetchall()
    terms = conn.execute(
        "SELECT term, df FROM lexical_term_stats ORDER BY term, repository_id"
    ).fetchall()
    return corpus, terms


def test_one_query_over_two_repositories_sums_their_statistics(zoo, database_url, tmp_path):
    from tests.conftest import GitRepo

    other = GitRepo(tmp_path / "farm")
    other.write("d.py", "def cow():\n    return zebra\n")
    other.commit("farm")
    index_repository(database_url, other.path, "farm")
    conn = _connect(database_url)
    both = _lexical(conn, ["zoo", "farm"], "zebra")
    assert [r["repository"] for r in both].count("farm") == 1
    # N = 4, df = 3, avgdl = (19 + 6) / 4; cow: tf 1, dl 6
    cow = next(r for r in both if r["qualified_name"] == "cow")
    assert cow["rank"] == pytest.approx(_bm25(1, 6, 3, 4, 25 / 4), rel=1e-5)
    only_zoo = _lexical(conn, ["zoo"], "zebra")
    assert {r["repository"] for r in only_zoo} == {"zoo"}
    conn.close()


def test_a_principal_never_sees_postings_of_an_ungranted_repository(zoo, database_url, tmp_path):
    from retrieval.principals import create_principal, grant
    from tests.conftest import GitRepo

    secret = GitRepo(tmp_path / "vault")
    secret.write("v.py", "def hidden_zebra():\n    return zebra\n")
    secret.commit("vault")
    index_repository(database_url, secret.path, "vault")
    conn = _connect(database_url)
    guest = create_principal(conn, "guest")
    grant(conn, "guest", "zoo")
    rows = _lexical(conn, None, "zebra", principal=guest)
    assert {r["repository"] for r in rows} == {"zoo"}
    conn.close()


def test_an_overlay_file_is_ranked_in_place_of_its_committed_version(zoo, database_url):
    from tests.mcp_app.conftest import call_tools, make_server, payload

    server = make_server(database_url, "local")
    changed = "def beta():\n    return okapi\n"
    _indexed, okapi, zebra = call_tools(
        server,
        [
            ("index_file", {"repository": "zoo", "path": "b.py", "content": changed}),
            ("search_code", {"query": "okapi", "mode": "lexical"}),
            ("search_code", {"query": "zebra", "mode": "lexical"}),
        ],
    )
    [hit] = payload(okapi)["results"]
    assert (hit["path"], hit["source"]) == ("b.py", "working-tree")
    # the committed b.py (which has a zebra) is hidden behind the overlay
    assert [(r["path"], r["source"]) for r in payload(zebra)["results"]] == [("a.py", "commit")]


def test_the_rarest_term_is_read_furthest_and_candidates_are_scored_exactly(
    settings_env, database_url, tmp_path, monkeypatch
):
    """A budget of 4 postings: 'zebra' (in 12 files) gets a share of it by its weight, 'lion'
    (in one) all of it; the file with both is found and scored with both terms."""
    import retrieval.lexical as lexical
    from tests.conftest import GitRepo

    repo = GitRepo(tmp_path / "herd")
    for i in range(12):
        repo.write(f"z{i:02}.py", f"def zebra_{i}():\n    return zebra + zebra + zebra\n")
    repo.write("pair.py", "def pair():\n    return zebra + lion\n")
    repo.commit("herd")
    index_repository(database_url, repo.path, "herd")
    conn = _connect(database_url)
    monkeypatch.setattr(lexical, "TERM_BUDGET", 4)
    rows = _lexical(conn, ["herd"], "lion zebra")
    n, total = (
        conn.execute("SELECT documents, total_length FROM lexical_corpus").fetchone().values()
    )
    pair_length = conn.execute(
        "SELECT lexical_length FROM code_chunks WHERE qualified_name = 'pair'"
    ).fetchone()["lexical_length"]
    avgdl = total / n
    assert rows[0]["qualified_name"] == "pair"
    expected = _bm25(1, pair_length, 1, n, avgdl) + _bm25(1, pair_length, 13, n, avgdl)
    assert rows[0]["rank"] == pytest.approx(expected, rel=1e-5)
    # 'zebra' (idf 0.04) weighs a sixtieth of 'lion' (idf 2.2): one of its postings is read,
    # the best by impact, so two candidates in all (the old flat budget read 4 + 4)
    assert len(rows) == 2 and rows[1]["qualified_name"].startswith("zebra_")
    conn.close()


def test_many_repositories_scored_in_groups_on_spare_connections_rank_as_one_statement(
    settings_env, database_url, tmp_path, monkeypatch
):
    """Three repositories in two groups, each group's statement on its own connection: the
    same candidates (cut to three by their partial sums) with the same exact scores."""
    from contextlib import contextmanager

    from psycopg.rows import dict_row
    from psycopg_pool import ConnectionPool

    import retrieval.lexical as lexical
    from retrieval.concurrency import spare_connections
    from tests.conftest import GitRepo

    for name, words in (("north", 1), ("south", 2), ("east", 3)):
        repo = GitRepo(tmp_path / name)
        for i in range(1, 4):
            zebras = " + ".join(["zebra"] * (words * i)) + " + lion" * (i % 2)
            repo.write(f"{name}{i}.py", f"def {name}_{i}():\n    return {zebras}\n")
        repo.commit(name)
        index_repository(database_url, repo.path, name)
    monkeypatch.setattr(lexical, "GROUP_MIN_REPOSITORIES", 2)
    monkeypatch.setattr(lexical, "MIN_CANDIDATES", 1)
    monkeypatch.setattr(lexical, "RESCORE_FACTOR", 1)
    conn = _connect(database_url)
    lent: list[int | None] = []
    with ConnectionPool(
        database_url, min_size=1, max_size=1, kwargs={"row_factory": dict_row}
    ) as pool:
        spare = spare_connections(pool)

        @contextmanager
        def recorded():
            with spare() as other:
                lent.append(other.info.backend_pid if other else None)
                yield other

        from retrieval.principals import ensure_operator
        from retrieval.scope import resolve_scope

        scope = resolve_scope(conn, ensure_operator(conn), None)
        for query in ("zebra", "lion zebra", "lion"):
            alone = lexical.lexical_candidates(conn, scope, query, 3)
            grouped = lexical.lexical_candidates(conn, scope, query, 3, recorded)
            assert [(r["chunk_id"], r["rank"]) for r in grouped] == [
                (r["chunk_id"], r["rank"]) for r in alone
            ]
            assert len(alone) == 3
    # each grouped query lent one connection (the second group's) other than the caller's
    assert len(lent) == 3 and conn.info.backend_pid not in lent and None not in lent
    conn.close()


def test_the_best_of_groups_are_cut_by_partial_sums_and_ordered_by_exact_scores():
    from retrieval.lexical import _best_of_groups

    first = [
        {"chunk_id": 1, "partial": 9.0, "score": 1.0},
        {"chunk_id": 2, "partial": 2.0, "score": 8.0},
    ]
    second = [
        {"chunk_id": 3, "partial": 5.0, "score": 5.0},
        {"chunk_id": 4, "partial": 1.0, "score": 9.0},
    ]
    assert [r["chunk_id"] for r in _best_of_groups([first, second], 3)] == [2, 3, 1]
    assert _best_of_groups([first], 1) == first
