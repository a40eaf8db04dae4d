"""The unit of a hit: a whole function or method; of a long declaration its head or the piece
that matched; never a whole file."""

from __future__ import annotations

from retrieval.hits import SHORT_CONTAINER_LINES, unit_range
from tests.retrieval.indexing import index_repository


def test_a_short_class_is_returned_whole_and_a_long_one_as_its_outline():
    assert unit_range(10, 30, 14) == (10, 30)
    assert unit_range(10, 10 + SHORT_CONTAINER_LINES, 14) == (10, 14)
    # a function (no outline) is always whole, whichever of its pieces matched
    assert unit_range(1, 500, None) == (1, 500)
    assert unit_range(1, 500, None, piece=(200, 230)) == (1, 500)


def test_a_long_declaration_is_answered_by_the_piece_that_matched():
    assert unit_range(10, 130, 25, piece=(60, 80)) == (60, 80)
    assert unit_range(10, 30, 14, piece=(20, 30)) == (10, 30)  # short: whole


def _long_class() -> str:
    methods = "".join(
        f"    def step_{i}(self, value):\n        return value + {i}\n\n" for i in range(30)
    )
    return (
        "class Ledger:\n"
        '    """Keeps the ledger of refunds."""\n'
        "    currency = 'EUR'\n\n"
        + methods
        + "    def reconcile_refunds(self, refunds):\n"
        + "        return sum(refunds)\n"
    )


def test_search_answers_a_method_with_the_method_and_a_long_class_with_its_outline(
    settings_env, database_url, git_repo
):
    from core.database import connect
    from retrieval.principals import ensure_operator
    from retrieval.scope import resolve_scope
    from retrieval.search import search_code

    git_repo.write("ledger.py", _long_class())
    git_repo.commit("ledger")
    index_repository(database_url, git_repo.path, "ledger")
    conn = connect(database_url, autocommit=True)
    scope = resolve_scope(conn, ensure_operator(conn), ["ledger"])
    method = search_code(conn, scope, "reconcile refunds", mode="lexical").hits[0]
    assert (method.symbol, method.end_line - method.start_line) == ("Ledger.reconcile_refunds", 1)
    ledger = [
        h
        for h in search_code(conn, scope, "Ledger currency EUR", mode="hybrid", limit=50).hits
        if h.symbol == "Ledger"
    ]
    # the class is 95 lines; its hit is the declaration, docstring and fields
    assert [(h.start_line, h.end_line) for h in ledger] == [(1, 3)]
    conn.close()


_OVERLOADED = '''from typing import overload


@overload
def parse_amount(raw: str) -> int: ...


@overload
def parse_amount(raw: bytes) -> int: ...


def parse_amount(raw):
    """Parse an amount of cents from text or bytes."""
    text = raw.decode() if isinstance(raw, bytes) else raw
    return int(text.replace(".", ""))


def format_amount(cents):
    return f"{cents / 100:.2f}"
'''


def test_overload_signatures_and_their_implementation_are_one_hit(
    settings_env, database_url, git_repo
):
    from core.database import connect
    from retrieval.principals import ensure_operator
    from retrieval.scope import resolve_scope
    from retrieval.search import search_code

    git_repo.write("amounts.py", _OVERLOADED)
    git_repo.commit("amounts")
    index_repository(database_url, git_repo.path, "amounts")
    conn = connect(database_url, autocommit=True)
    scope = resolve_scope(conn, ensure_operator(conn), ["amounts"])
    for mode in ("lexical", "hybrid"):
        hits = search_code(conn, scope, "parse_amount of cents", mode=mode).hits
        parsed = [h for h in hits if h.symbol == "parse_amount"]
        # the stubs (lines 4-5, 8-9) and the implementation (12-15) side by side, once
        assert [(h.start_line, h.end_line) for h in parsed] == [(4, 15)], mode
        assert hits[0].symbol == "parse_amount"
    conn.close()


def _options_interface() -> str:
    fields = [
        f"  /**\n   * Tuning knob number {i} of the refund desk.\n   */\n  knob{i}?: number\n"
        for i in range(40)
    ]
    return (
        "/** Options of the refund desk. */\n"
        "export interface RefundOptions {\n"
        + "".join(fields[:20])
        + "  /**\n   * How many days after delivery a refund is still accepted.\n   */\n"
        "  graceDays?: number\n" + "".join(fields[20:]) + "}\n\n"
        "export function isRefundEligible(order: Order, options: RefundOptions): boolean {\n"
        "  if (order.refunded) return false\n"
        "  const days = options.graceDays ?? 14\n"
        "  return order.deliveredDaysAgo <= days\n"
        "}\n"
    )


def test_a_long_interface_of_options_answers_with_the_matching_piece_below_the_function(
    settings_env, database_url, git_repo
):
    from core.database import connect
    from retrieval.principals import ensure_operator
    from retrieval.scope import resolve_scope
    from retrieval.search import search_code

    git_repo.write("refunds.ts", _options_interface())
    git_repo.commit("refunds")
    index_repository(database_url, git_repo.path, "refunds")
    conn = connect(database_url, autocommit=True)
    scope = resolve_scope(conn, ensure_operator(conn), ["refunds"])
    source = _options_interface().splitlines()
    grace = next(i for i, line in enumerate(source, 1) if "graceDays?" in line)
    for mode in ("lexical", "hybrid"):
        hits = search_code(conn, scope, "refund grace days after delivery", mode=mode).hits
        # the function holding the behaviour first; the interface (167 lines) as the piece
        # around the option (one chunk's worth), not whole
        assert hits[0].symbol == "isRefundEligible", mode
        [options] = [h for h in hits if h.symbol == "RefundOptions"]
        assert options.start_line <= grace <= options.end_line, mode
        assert options.end_line - options.start_line + 1 < 167 // 3, mode
    # named exactly, the interface is answered with its head (the declaration and first fields)
    named = [
        h
        for h in search_code(conn, scope, "RefundOptions", mode="hybrid").hits
        if h.symbol == "RefundOptions"
    ]
    assert [h.start_line for h in named] == [1]  # its docblock first
    assert named[0].end_line < grace
    conn.close()


def test_the_outline_sql_answers_every_function_kind_whole():
    """OUTLINE_END names the function-like kinds in SQL; they are the parser's FUNCTION_KINDS."""
    import re

    from indexing.parsing.grammars import FUNCTION_KINDS
    from retrieval.hits import OUTLINE_END

    listed = re.search(r"NOT IN \(([^)]*)\)", OUTLINE_END)
    assert listed is not None
    assert set(re.findall(r"'(\w+)'", listed.group(1))) == FUNCTION_KINDS


def test_a_function_of_a_statement_or_two_is_thin_whatever_its_comments_and_brace_style():
    from retrieval.hits import code_lines, is_thin

    php_getter = (
        "    /**\n     * Returns all passes of the optimization phase.\n     *\n"
        "     * @return CompilerPassInterface[]\n     */\n"
        "    public function getOptimizationPasses(): array\n    {\n"
        "        return $this->optimizationPasses;\n    }\n"
    )
    php_setter = (
        "    public function setTimeout(float $timeout): static\n    {\n"
        "        $this->timeout = $timeout;\n\n        return $this;\n    }\n"
    )
    python_property = (
        "    @property\n    def name(self):\n"
        '        """The name, as the user\n        wrote it."""\n'
        "        # cached\n        return self._name\n"
    )
    rust_delegation = (
        "    /// The length.\n    #[inline]\n    pub fn len(&self) -> usize {\n"
        "        self.inner.len()\n    }\n"
    )
    ruby_predicate = "  def empty?\n    size.zero?\n  end\n"
    assert [len(code_lines(t)) for t in (php_getter, php_setter, python_property)] == [2, 3, 2]
    assert all(is_thin(t) for t in (php_getter, php_setter, python_property))
    assert all(is_thin(t) for t in (rust_delegation, ruby_predicate))
    c_body = "int next(int *p) {\n  *p += 1;\n  --count;\n  return *p;\n}\n"
    assert len(code_lines(c_body)) == 4  # a dereference or a decrement is code, not a comment
    assert not is_thin(c_body)
    assert not is_thin(None)  # too long to be sent as short content
    one_liner = "const f = (a) => " + " + ".join(f"g{i}(a)" for i in range(60)) + "\n"
    assert not is_thin(one_liner)  # one line, but no accessor


def _accounts() -> str:
    return (
        "class Account:\n"
        "    def refund_limit(self):\n"
        '        """The refund limit of the account."""\n'
        "        return self._refund_limit\n\n"
        "    def approve_refund(self, amount):\n"
        '        """Approves a refund within the limit."""\n'
        "        if amount <= 0:\n"
        "            raise ValueError(amount)\n"
        "        limit = self._refund_limit - self.refunded\n"
        "        approved = min(amount, limit)\n"
        "        self.refunded += approved\n"
        "        return approved\n"
    )


def test_an_accessor_counts_less_than_the_method_that_computes_the_answer(
    settings_env, database_url, git_repo
):
    from core.database import connect
    from retrieval.lexical import lexical_candidates
    from retrieval.principals import ensure_operator
    from retrieval.scope import resolve_scope
    from retrieval.search import search_code

    git_repo.write("accounts.py", _accounts())
    git_repo.commit("accounts")
    index_repository(database_url, git_repo.path, "accounts")
    conn = connect(database_url, autocommit=True)
    scope = resolve_scope(conn, ensure_operator(conn), ["accounts"])
    question = "how is the refund limit of an account applied"
    # BM25 prefers the short accessor, whose words are nearly all the question's
    bm25 = lexical_candidates(conn, scope, question, 10)
    assert [r["qualified_name"] for r in bm25][:2] == [
        "Account.refund_limit",
        "Account.approve_refund",
    ]
    for mode in ("lexical", "hybrid"):
        hits = search_code(conn, scope, question, mode=mode).hits
        assert [h.symbol for h in hits][:2] == ["Account.approve_refund", "Account.refund_limit"]
    # named, the accessor is what was asked, in lexical mode too (no symbol ranking there)
    for mode, question in [
        ("lexical", "refund_limit"),
        ("hybrid", "where is `Account.refund_limit` set"),
    ]:
        assert (
            search_code(conn, scope, question, mode=mode).hits[0].symbol == "Account.refund_limit"
        )
    conn.close()


def _overloads_java() -> str:
    return (
        "package shop;\n\n"
        "public class Prices {\n"
        "    public static long round(double amount) {\n"
        "        return round(amount, 2);\n"
        "    }\n\n"
        "    public static long round(double amount, int digits) {\n"
        "        double scale = Math.pow(10, digits);\n"
        "        double scaled = amount * scale;\n"
        "        long whole = (long) Math.floor(scaled + 0.5);\n"
        "        if (whole < 0) {\n"
        '            throw new IllegalArgumentException("negative price");\n'
        "        }\n"
        "        return whole;\n"
        "    }\n\n"
        "    public static String label(long cents) {\n"
        '        return cents / 100 + "." + cents % 100;\n'
        "    }\n\n"
        "    public static long round(String amount, int digits, boolean halfEven) {\n"
        "        double parsed = Double.parseDouble(amount.trim());\n"
        "        if (parsed < 0) {\n"
        '            throw new IllegalArgumentException("negative price text");\n'
        "        }\n"
        "        return round(parsed, digits);\n"
        "    }\n"
        "}\n"
    )


def test_of_overloads_with_bodies_the_hit_is_the_one_that_matched_with_its_thin_neighbours(
    settings_env, database_url, git_repo
):
    from core.database import connect
    from retrieval.principals import ensure_operator
    from retrieval.scope import resolve_scope
    from retrieval.search import search_code

    git_repo.write("src/shop/Prices.java", _overloads_java())
    git_repo.commit("prices")
    index_repository(database_url, git_repo.path, "prices")
    conn = connect(database_url, autocommit=True)
    scope = resolve_scope(conn, ensure_operator(conn), ["prices"])
    for mode in ("lexical", "hybrid"):
        hits = search_code(conn, scope, "scaled price floor negative price", mode=mode).hits
        rounds = [h for h in hits if h.symbol == "shop.Prices.round"]
        # the overload that matched (8-16) and the one-line overload above it (4-6), not the
        # bodied overload after `label` (22-28)
        assert [(h.start_line, h.end_line) for h in rounds] == [(4, 16)], mode
    conn.close()
