"""Hybrid search on a real indexed repository."""

from __future__ import annotations

import json
import re

import pytest

from tests.retrieval.indexing import fake_embedder


def _embed(model: str, text: str):
    embedder = fake_embedder()
    return embedder.embed_query(text) if model == embedder.model_name else None


def test_an_exact_identifier_query_returns_its_definition_first(conn, operator_scope):
    from retrieval.search import search_code

    hits = search_code(conn, operator_scope, "round_cents", embed_query=_embed).hits
    assert hits[0].symbol == "round_cents"
    assert (hits[0].path, hits[0].start_line) == ("shop/money.py", 4)
    assert hits[0].retrievers[0] == "symbol"


def test_a_qualified_method_name_finds_the_method(conn, operator_scope):
    from retrieval.search import search_code

    hits = search_code(conn, operator_scope, "InvoiceBuilder.add_line", limit=3).hits
    assert hits[0].symbol == "InvoiceBuilder.add_line"
    assert hits[0].kind == "method"


def test_a_natural_language_question_matches_words_inside_identifiers(conn, operator_scope):
    from retrieval.search import search_code

    hits = search_code(
        conn, operator_scope, "when is a customer eligible for a refund?", mode="lexical"
    ).hits
    assert hits[0].symbol == "is_eligible_for_refund"
    assert hits[0].retrievers == ["lexical"]


def test_hybrid_hits_say_which_retrievers_found_them_and_the_commit(
    conn, operator_scope, shop_repo
):
    from retrieval.search import search_code

    hits = search_code(
        conn, operator_scope, "refund allowed within thirty days", embed_query=_embed
    ).hits
    top = next(h for h in hits if h.symbol == "is_eligible_for_refund")
    assert set(top.retrievers) == {"semantic", "lexical"}
    assert top.commit == shop_repo.sha
    assert top.source == "commit"


def test_semantic_only_search_ranks_by_vectors(conn, operator_scope):
    from retrieval.search import search_code

    hits = search_code(
        conn, operator_scope, "round money amount to cents", mode="semantic", embed_query=_embed
    ).hits
    assert hits and all(h.retrievers == ["semantic"] for h in hits)
    assert "round_cents" in [h.symbol for h in hits[:3]]


def test_semantic_search_is_skipped_with_a_note_when_no_query_embedder(conn, operator_scope):
    from retrieval.search import search_code

    report = search_code(conn, operator_scope, "refund", mode="semantic", embed_query=None)
    assert report.hits == []
    assert "skipped" in report.notes[0]


def test_a_symbol_split_into_pieces_comes_back_as_one_hit(conn, operator_scope):
    from retrieval.search import search_code

    pieces = conn.execute(
        "SELECT max(piece_count) AS n FROM code_chunks WHERE qualified_name = 'shipping_cost'"
    ).fetchone()
    assert pieces["n"] > 1, "the sample function must be split for this test to mean anything"
    hits = search_code(
        conn, operator_scope, "shipping zone weight distance", mode="lexical", limit=20
    ).hits
    shipping = [h for h in hits if h.symbol == "shipping_cost"]
    assert len(shipping) == 1
    assert (shipping[0].start_line, shipping[0].end_line) == (4, 77)


def test_semantic_query_uses_the_models_partial_hnsw_index(conn, operator_scope):
    from psycopg import sql

    from indexing.embedding_registry import model_index_name
    from retrieval.semantic import model_dimensions

    model = fake_embedder().model_name
    dims = model_dimensions(conn, model)
    vector = "[" + ",".join(["0.1"] * dims) + "]"
    with conn.transaction():
        # tiny tables favour other plans; forbid them to prove the HNSW index matches
        conn.execute("SET LOCAL enable_seqscan = off")
        conn.execute("SET LOCAL enable_sort = off")
        plan = conn.execute(
            sql.SQL(
                "EXPLAIN SELECT content_hash FROM chunk_embeddings e"
                " WHERE e.embedding_model = {m} AND EXISTS (SELECT 1 FROM code_chunks c"
                "  JOIN file_versions fv ON fv.id = c.file_version_id"
                "  WHERE c.content_hash = e.content_hash AND fv.repository_id = ANY(%s) OFFSET 0)"
                " ORDER BY (e.embedding::halfvec({d})) <=> %s::halfvec({d}) LIMIT 10"
            ).format(m=sql.Literal(model), d=sql.Literal(dims)),
            ([operator_scope.repositories[0].repository_id], vector),
        ).fetchall()
    assert model_index_name(model) in "\n".join(r["QUERY PLAN"] for r in plan)


def test_a_small_scope_is_searched_exactly_with_the_same_answer_as_the_index(
    conn, operator_scope, monkeypatch
):
    import retrieval.semantic as semantic

    embedder = fake_embedder()
    vector = embedder.embed_query("convert an amount between currencies")

    def nearest() -> list[tuple[str, int]]:
        rows = semantic.semantic_candidates(conn, operator_scope, embedder.model_name, vector, 5)
        return [(r["path"], r["chunk_start"]) for r in rows]

    exact = nearest()
    monkeypatch.setattr(semantic, "EXACT_SEARCH_MAX", 0)  # force the HNSW path
    assert exact and nearest() == exact


def test_search_json_prints_exactly_the_contract_keys(shop_repo, capsys):
    from codeatlas.cli import main

    assert main(["search", "refund", "--repo", "shop", "--json", "--limit", "3"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert list(payload) == ["results"]
    assert payload["results"]
    for result in payload["results"]:
        assert list(result) == [
            "path",
            "start_line",
            "end_line",
            "symbol",
            "kind",
            "score",
            "retrievers",
            "commit",
        ]


def test_search_human_output_shows_path_lines_symbol_and_retrievers(shop_repo, capsys):
    from codeatlas.cli import main

    assert main(["search", "round_cents", "--repo", "shop", "--limit", "2"]) == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert first.startswith("shop/money.py:4-6  round_cents  [symbol")


@pytest.mark.parametrize("command", ["search", "symbols", "callers"])
def test_cli_names_an_unknown_repository_without_a_traceback(shop_repo, capsys, command):
    from codeatlas.cli import main

    assert main([command, "x", "--repo", "nope"]) == 1
    err = capsys.readouterr().err
    assert "no repository named 'nope'" in err and "Traceback" not in err


def _row(path: str, chunk_id: int, rank: float) -> dict:
    return {"repository": "r", "path": path, "source": "commit", "chunk_id": chunk_id, "rank": rank}


def test_a_lexical_candidate_inherits_a_share_of_its_files_best_other_candidate():
    from retrieval.search import FILE_EVIDENCE_SHARE, with_file_evidence

    rows = [_row("a.py", 1, 10.0), _row("b.py", 2, 9.0), _row("b.py", 3, 8.0), _row("c.py", 4, 9.5)]
    ranked = with_file_evidence(rows)
    # each of b.py's two chunks counts a share of the other one (8.0 now passes c.py's 9.5);
    # a file's only candidate gains nothing
    assert [r["chunk_id"] for r in ranked] == [2, 1, 3, 4]
    assert ranked[0]["rank"] == 9.0 + FILE_EVIDENCE_SHARE * 8.0
    assert ranked[1]["rank"] == 10.0


def _hit(symbol: str, score: float, retrievers: list[str], start: int = 1):
    from retrieval.hits import Hit

    return Hit(
        "r", f"{symbol}.py", start, start + 9, symbol, "function", score, retrievers, "c", "commit"
    )


def test_a_name_in_the_question_is_one_more_ranking_not_an_answer_forced_to_the_top():
    from retrieval.search import RRF_K, add_symbol_hits

    both = 1.3 / (RRF_K + 1)  # first in the lexical and semantic rankings
    fused = [
        _hit("answer", both, ["lexical", "semantic"]),
        _hit("named", 1 / (RRF_K + 5), ["lexical"]),
    ]
    named_elsewhere = _hit("helper", 0.0, ["symbol"])
    hits = add_symbol_hits([_hit("named", 0.0, ["symbol"], start=0), named_elsewhere], fused)
    assert [h.symbol for h in hits] == ["named", "answer", "helper"]
    assert hits[0].retrievers == ["symbol", "lexical"]
    assert (hits[0].start_line, hits[0].end_line) == (0, 10)  # covers what both found
    assert hits[2].score < hits[1].score  # a name matched by nothing else does not lead


def _candidate(symbol: str, kind: str = "function") -> dict:
    return {
        "repository": "r",
        "path": f"{symbol}.py",
        "source": "commit",
        "symbol_id": 1,
        "qualified_name": symbol,
        "symbol_kind": kind,
        "chunk_id": 1,
        "chunk_start": 1,
        "chunk_end": 10,
        "symbol_start": 1,
        "symbol_end": 10,
        "outline_end": None,
        "piece": 0,
        "piece_count": 1,
        "short_content": None,
        "long_head": None,
        "commit_sha": "c",
    }


def test_the_semantic_best_found_by_meaning_alone_is_among_the_first_five():
    from retrieval.search import RRF_K, SEMANTIC_SLOT, with_semantic_best

    lexical = [f"words_{i}" for i in range(8)]
    fused = [_hit(name, 1 / (RRF_K + 1 + i), ["lexical"]) for i, name in enumerate(lexical)]
    fused.append(_hit("meaning", 0.2 / (RRF_K + 2), ["semantic"]))
    rankings = {
        "lexical": [_candidate(name) for name in lexical],
        # a long class outline first counts half: the function after it is the semantic best
        "semantic:m": [_candidate("Meanings", kind="class"), _candidate("meaning")],
    }
    hits = with_semantic_best(list(fused), rankings)
    assert [h.symbol for h in hits][: SEMANTIC_SLOT + 1] == [*lexical[:4], "meaning", lexical[4]]
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
    # BM25 found it too, and ranked it low: the fusion stands
    rankings["lexical"].append(_candidate("meaning"))
    assert [h.symbol for h in with_semantic_best(list(fused), rankings)] == [
        h.symbol for h in fused
    ]


def _first_lexical(conn, scope):
    """A question -> the symbol of its first lexical hit on the index (search's module globals
    read at each call, so a test's monkeypatch applies)."""
    from retrieval import search

    return lambda text: (
        search.search_code(conn, scope, text, mode="lexical", limit=3).hits[0].symbol
    )


def _indexed(database_url: str, git_repo, name: str):
    """The repository's last commit indexed as `name` (fake embedder): a connection and the
    operator's scope of it."""
    from core.database import connect
    from retrieval.principals import ensure_operator
    from retrieval.scope import resolve_scope
    from tests.retrieval.indexing import index_repository

    index_repository(database_url, git_repo.path, name, embedder=fake_embedder())
    conn = connect(database_url, autocommit=True)
    return conn, resolve_scope(conn, ensure_operator(conn), [name])


def _refunds() -> str:
    functions = "".join(
        f"def refund_rule_{i}(order):\n"
        f"    return order.refund_total > {i} and order.refund_open\n\n"
        for i in range(8)
    )
    return functions + (
        "def locate_binary(env):\n"
        "    for name in ('PHP_BINARY', 'PHP_PATH'):\n"
        "        if env.get(name):\n"
        "            return env[name]\n"
        "    return None\n"
    )


def test_a_function_that_shares_no_word_with_the_question_is_found_by_its_meaning(
    settings_env, database_url, git_repo
):
    from retrieval.search import SEMANTIC_SLOT, search_code

    git_repo.write("checks.py", _refunds())
    git_repo.commit("rules")
    conn, scope = _indexed(database_url, git_repo, "rules")
    stored = conn.execute(
        "SELECT e.embedding_model, e.embedding::text AS vector FROM chunk_embeddings e"
        " JOIN code_chunks c ON c.content_hash = e.content_hash"
        " WHERE c.qualified_name = 'locate_binary'"
    ).fetchone()
    vector = json.loads(stored["vector"])

    def embed(model: str, text: str):  # a query that means exactly that function
        return vector if model == stored["embedding_model"] else None

    question = "which refund rule applies to an open order"
    hits = search_code(conn, scope, question, embed_query=embed).hits
    symbols = [h.symbol for h in hits]
    assert symbols.index("locate_binary") == SEMANTIC_SLOT - 1
    assert hits[SEMANTIC_SLOT - 1].retrievers == ["semantic"]
    assert set(symbols[: SEMANTIC_SLOT - 1]) < {f"refund_rule_{i}" for i in range(8)}
    conn.close()


def test_bm25_scores_each_candidate_from_its_own_terms_through_their_key(
    conn, operator_scope, monkeypatch
):
    # On the Linux kernel (700k chunks) the planner guessed a term's postings at the average
    # and read every posting of each query term to score 200 candidates (3.6 s): the exact
    # scores must come from the candidates' own terms, whatever the estimates say.
    from retrieval import lexical

    calls: list[tuple[object, object]] = []
    execute = conn.execute

    def spy(query, params=None, **kw):
        calls.append((query, params))
        return execute(query, params, **kw)

    monkeypatch.setattr(conn, "execute", spy)
    with conn.transaction():
        lexical.lexical_candidates(conn, operator_scope, "convert amount currency", 50)
    monkeypatch.undo()
    [params] = [p for q, p in calls if q is lexical.BM25_QUERY]
    with conn.transaction():
        # make every other way look cheaper: the per-candidate lookup must stay
        conn.execute("SET LOCAL enable_nestloop = off")
        conn.execute("SET LOCAL enable_seqscan = off")
        plan = conn.execute("EXPLAIN " + lexical.BM25_QUERY, params).fetchall()
    text = "\n".join(r["QUERY PLAN"] for r in plan)
    # the chunk terms' key probed with each candidate's id (a parameter from the outer row)
    assert re.search(
        r"using lexical_chunk_terms_pkey .*\n\s*Index Cond: \(chunk_id = .+\.chunk_id\)", text
    )


HASHER = """<?php

class BcryptHasher
{
    /** Hash the value with bcrypt at the configured cost; bcrypt hashing may be unsupported. */
    public function make($value, array $options = [])
    {
        $hash = password_hash($value, PASSWORD_BCRYPT, ['cost' => $this->cost($options)]);
        if ($hash === false) {
            throw new RuntimeException('Bcrypt hashing not supported.');
        }
        return $hash;
    }

    /** Check a value against a bcrypt hash (an empty hash never matches, a rehash needs care). */
    public function check($value, $hashedValue)
    {
        if (strlen($hashedValue) === 0) {
            return false;
        }
        return password_verify($value, $hashedValue);
    }

    public function needsRehash($hashedValue, array $options = [])
    {
        return password_needs_rehash($hashedValue, PASSWORD_BCRYPT, $options);
    }
}
"""


def test_a_thin_method_whose_name_is_the_question_is_not_halved(
    settings_env, database_url, git_repo, monkeypatch
):
    """Issue 26's example: a one-line delegation is usually not the answer (it counts half),
    but a question that is its name spelled out asks for it; a longer question that only
    mentions the words does not."""
    from retrieval import search

    query = "bcrypt needs rehash"
    longer = "does bcrypt check the hash or the rehash it needs"
    assert search._is_spelled("BcryptHasher.needsRehash", search.question_words(query))
    assert not search._is_spelled("BcryptHasher.needsRehash", search.question_words(longer))

    git_repo.write("src/Hashing/BcryptHasher.php", HASHER)
    git_repo.commit("hasher")
    conn, scope = _indexed(database_url, git_repo, "hasher")

    first = _first_lexical(conn, scope)

    assert first(query) == "BcryptHasher.needsRehash"
    monkeypatch.setattr(search, "_is_spelled", lambda *_: False)
    assert first(query) != "BcryptHasher.needsRehash"  # halved, as before
    conn.close()


LIMITER = """<?php

class RateLimiter
{
    /** Refill the client's allowance for the time passed since its last request. */
    public function checkRateLimit($user, $request)
    {
        list($limit, $window) = $user->getRateLimit($request);
        list($allowance, $timestamp) = $user->loadAllowance($request);
        $allowance += (int) ((time() - $timestamp) * $limit / $window);
        if ($allowance < 1) {
            throw new TooManyRequestsHttpException('Rate limit exceeded.');
        }
        $user->saveAllowance($request, $allowance - 1, time());
    }
}
"""

LIMITER_TEST = """<?php

class RateLimiterTest extends TestCase
{
    public function testClientAllowanceIsRefilledOverTime()
    {
        $client = new RateLimitedClient(10, 60);
        $this->assertSame(10, $client->allowance());
        $client->request();
        $this->assertSame(9, $client->allowance());
    }
}
"""


ROUTE_RS = """pub struct MethodRouter {
    get: Option<Handler>,
    head: Option<Handler>,
}

impl MethodRouter {
    /// Answers a request with the handler of its method.
    pub fn call(&self, request: Request) -> Response {
        let handler = match request.method() {
            Method::HEAD => self.head.as_ref().or(self.get.as_ref()),
            Method::GET => self.get.as_ref(),
            _ => None,
        };
        let mut response = handler.map_or_else(not_allowed, |h| h.call(request));
        if request.method() == Method::HEAD {
            *response.body_mut() = Body::empty();
        }
        response
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn head_request_runs_get_handler_with_empty_body() {
        let router = MethodRouter { get: Some(handler()), head: None };
        let response = router.call(request(Method::HEAD));
        assert!(response.body().is_empty(), "head request body empty, get handler runs");
    }
}
"""


@pytest.mark.parametrize(
    ("files", "question", "asked", "code", "test", "before"),
    [
        pytest.param(
            {
                "src/Filters/RateLimiter.php": LIMITER,
                "tests/Filters/RateLimiterTest.php": LIMITER_TEST,
            },
            "how is the client allowance refilled over time by the rate limit",
            "which tests check that the client allowance is refilled over time",
            "RateLimiter.checkRateLimit",
            "RateLimiterTest.testClientAllowanceIsRefilledOverTime",
            ("AUXILIARY_WEIGHT", 1.0),
            id="a test file",
        ),
        # Rust keeps its unit tests in the file they test (`#[cfg(test)] mod tests`): the file
        # is code, its test functions are tests
        pytest.param(
            {"src/routing/method_routing.rs": ROUTE_RS},
            "does a head request run the get handler, and what happens to the body",
            "which tests check that a head request runs the get handler",
            "MethodRouter::call",
            "tests::head_request_runs_get_handler_with_empty_body",
            ("_is_inline_test", lambda row: False),
            id="a test function of a code file",
        ),
    ],
)
def test_a_question_in_words_finds_the_code_before_its_tests_unless_it_asks_for_tests(
    settings_env, database_url, git_repo, monkeypatch, files, question, asked, code, test, before
):
    """A test repeats the question's words in a short function that BM25 ranks above the code
    that does it; a test counts a third unless the question asks for tests (`before`: the
    search without that, where the test came first)."""
    from retrieval import search

    for path, text in files.items():
        git_repo.write(path, text)
    git_repo.commit("code and its tests")
    conn, scope = _indexed(database_url, git_repo, "tested")
    first = _first_lexical(conn, scope)

    assert first(question) == code
    assert first(asked) == test
    monkeypatch.setattr(search, *before)
    assert first(question) == test
    conn.close()


def test_a_unit_of_a_file_whose_content_is_a_test_counts_a_third_wherever_it_lives():
    from retrieval.search import AUXILIARY_WEIGHT, _unit_weight, question_words

    code = _candidate("limit")
    in_tests_folder = {**_candidate("test_limit"), "path": "tests/test_limit.py"}
    by_content = {**_candidate("check_limit"), "path": "qa/check_limit.py", "stored_role": "test"}
    words = question_words("how is the limit applied")
    assert _unit_weight(code, [], words) == 1.0
    assert _unit_weight(in_tests_folder, [], words) == AUXILIARY_WEIGHT
    assert _unit_weight(by_content, [], words) == AUXILIARY_WEIGHT
    # asked for in words, or named: counted fully
    assert _unit_weight(in_tests_folder, [], question_words("how is the limit tested")) == 1.0
    assert _unit_weight(by_content, ["check_limit"], words) == 1.0


def _documented_setter() -> str:
    """A builder's setter: one line of code under a doc comment long enough to split it into
    pieces (clap's `Command::infer_subcommands` is eight)."""
    doc = "\n".join(
        f"    /// Abbreviated subcommand prefixes are expanded, example {n}: `tool in{n}` runs"
        f" `install{n}` when the prefix is unambiguous and the prefix inference is on."
        for n in range(60)
    )
    return f"""pub struct Command {{
    infer: bool,
}}

impl Command {{
{doc}
    pub fn infer_prefixes(mut self, yes: bool) -> Self {{
        self.infer = yes;
        self
    }}
}}
"""


RESOLVER = """pub struct Parser {
    names: Vec<String>,
}

impl Parser {
    /// The one name an abbreviated prefix stands for.
    pub fn resolve_prefix(&self, arg: &str) -> Option<&str> {
        let mut found = self.names.iter().filter(|n| n.starts_with(arg));
        let first = found.next()?;
        if found.next().is_some() {
            return None;
        }
        Some(first.as_str())
    }
}
"""


def test_a_setter_under_a_long_doc_comment_is_as_thin_as_one_without_it(
    settings_env, database_url, git_repo, monkeypatch
):
    """A function split into pieces is judged thin by its whole code, not by a piece: the
    setter's doc comment repeats the question's words, and the code that does it answers."""
    from retrieval import search
    from retrieval.hits import is_thin
    from retrieval.reading import function_texts

    git_repo.write("src/command.rs", _documented_setter())
    git_repo.write("src/parser.rs", RESOLVER)
    git_repo.commit("cli")
    conn, scope = _indexed(database_url, git_repo, "cli")
    setter = conn.execute(
        "SELECT symbol_id, max(piece_count) AS pieces FROM code_chunks"
        " WHERE qualified_name LIKE '%infer_prefixes' GROUP BY symbol_id"
    ).fetchone()
    assert setter["pieces"] > 1, "the setter must be split for this test to mean anything"
    whole = function_texts(conn, [setter["symbol_id"]])[setter["symbol_id"]]
    assert whole.count("pub fn infer_prefixes") == 1  # the pieces' repeated headers dropped
    assert whole.count("example 59") == 1 and is_thin(whole)

    question = "how is an abbreviated subcommand prefix expanded when prefix inference is on"

    first = _first_lexical(conn, scope)

    assert first(question) == "Parser::resolve_prefix"
    monkeypatch.setattr(search, "with_whole_functions", lambda *_: None)
    assert first(question) == "Command::infer_prefixes"  # before: each piece judged alone
    conn.close()
