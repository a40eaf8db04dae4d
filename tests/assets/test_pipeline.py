"""The index pipeline on real git repositories: idempotent, incremental, atomic, resumable."""

from __future__ import annotations

import pytest

from core.config import load_settings
from core.database import connect, connection
from indexing.embedding.fake import FakeEmbedder
from indexing.embedding_step import embed_snapshot
from indexing.parse_step import parse_snapshot
from indexing.snapshot_files import record_source_files
from tests.assets.pipeline_helpers import dump, register, run_index, snapshot_paths

SHOP = '''"""Orders and refunds."""
import datetime


class RefundPolicy:
    """Decides whether an order may be refunded."""

    window_days = 30

    def is_eligible_for_refund(self, order):
        """True when the order was delivered less than window_days ago."""
        age = datetime.date.today() - order.delivered_on
        return age.days <= self.window_days and not order.refunded


def refund(order, policy):
    if not policy.is_eligible_for_refund(order):
        raise ValueError("not eligible")
    order.refunded = True
'''

UTIL = """def slugify(text):
    return "-".join(text.lower().split())
"""


def _events(url: str, name: str) -> dict:
    with connection(url) as conn:
        return conn.execute(
            "SELECT r.current_snapshot_id, s.commit_sha FROM repositories r"
            " LEFT JOIN snapshots s ON s.id = r.current_snapshot_id WHERE r.name = %s",
            (name,),
        ).fetchone()


def test_indexing_a_commit_stores_symbols_chunks_edges_vectors_and_publishes_it(
    settings_env, database_url, git_repo
):
    git_repo.write("shop/refunds.py", SHOP)
    git_repo.write("shop/util.py", UTIL)
    git_repo.write("logo.png", b"\x89PNG\r\n\x1a\n\x00\x00binary")
    sha = git_repo.commit()
    register(database_url, "shop", str(git_repo.path))

    result = run_index(database_url, "shop", sha)

    assert result["files"] == 3
    state = dump(database_url)
    names = {s["qualified_name"] for s in state["code_symbols"]}
    assert {"RefundPolicy", "RefundPolicy.is_eligible_for_refund", "refund", "slugify"} <= names
    assert any(e["callee_name"] == "is_eligible_for_refund" for e in state["code_edges"])
    skipped = {f["path"]: f["skip_reason"] for f in state["snapshot_files"]}
    assert skipped["logo.png"] is not None and skipped["shop/refunds.py"] is None
    hashes = {c["content_hash"] for c in state["code_chunks"]}
    assert {e["content_hash"] for e in state["chunk_embeddings"]} == hashes
    assert _events(database_url, "shop")["commit_sha"] == sha
    assert state["snapshots"][0]["status"] == "ready"


def test_materializing_the_same_partition_twice_changes_nothing(
    settings_env, database_url, git_repo
):
    git_repo.write("shop/refunds.py", SHOP)
    sha = git_repo.commit()
    register(database_url, "shop", str(git_repo.path))
    run_index(database_url, "shop", sha)
    before = dump(database_url)

    run_index(database_url, "shop", sha)

    assert dump(database_url) == before


def test_the_next_commit_parses_only_changed_blobs_and_embeds_only_new_content(
    settings_env, database_url, git_repo
):
    for i in range(5):
        git_repo.write(f"pkg/mod{i}.py", UTIL.replace("slugify", f"slugify_{i}"))
    git_repo.write("shop/refunds.py", SHOP)
    first = git_repo.commit()
    register(database_url, "shop", str(git_repo.path))
    run_index(database_url, "shop", first)

    # one changed file: a line added above a function moves it but does not change its content
    git_repo.write("shop/refunds.py", "# moved down by one line\n" + SHOP)
    git_repo.write(
        "pkg/mod0.py", UTIL.replace("slugify", "slugify_0") + "\n\ndef new_fn():\n    return 1\n"
    )
    second = git_repo.commit()
    settings = load_settings()
    record_source_files(database_url, settings, "shop", second)
    parsed = parse_snapshot(database_url, settings, "shop", second)
    assert parsed["files_parsed"] == 2  # the two changed blobs, not the four unchanged

    from indexing.parse_version import effective_parser_version
    from indexing.publishing import publish

    conn = connect(database_url)
    publish(conn, settings, "shop", second, effective_parser_version(settings), "fake")
    conn.close()
    embedded = embed_snapshot(database_url, "shop", second, FakeEmbedder())
    # only the new function and the changed file-level chunk are new content
    assert 1 <= embedded["embedded"] <= 3


def test_a_deleted_file_disappears_from_the_new_snapshot_but_stays_in_the_old_one(
    settings_env, database_url, git_repo
):
    git_repo.write("shop/refunds.py", SHOP)
    git_repo.write("shop/util.py", UTIL)
    first = git_repo.commit()
    register(database_url, "shop", str(git_repo.path))
    run_index(database_url, "shop", first)
    git_repo.git("rm", "-q", "shop/util.py")
    second = git_repo.commit("remove util")
    run_index(database_url, "shop", second)

    assert "shop/util.py" in snapshot_paths(database_url, "shop", first)
    assert "shop/util.py" not in snapshot_paths(database_url, "shop", second)
    assert _events(database_url, "shop")["commit_sha"] == second


def test_readers_see_the_previous_snapshot_until_the_new_one_is_published(
    settings_env, database_url, git_repo
):
    git_repo.write("shop/refunds.py", SHOP)
    first = git_repo.commit()
    register(database_url, "shop", str(git_repo.path))
    run_index(database_url, "shop", first)
    git_repo.write("shop/util.py", UTIL)
    second = git_repo.commit()
    settings = load_settings()

    record_source_files(database_url, settings, "shop", second)
    parse_snapshot(database_url, settings, "shop", second)

    assert _events(database_url, "shop")["commit_sha"] == first
    run_index(database_url, "shop", second)
    assert _events(database_url, "shop")["commit_sha"] == second


def test_an_older_commit_indexed_later_does_not_replace_the_current_snapshot(
    settings_env, database_url, git_repo
):
    git_repo.write("a.py", UTIL)
    old = git_repo.commit()
    git_repo.write("b.py", UTIL)
    new = git_repo.commit()
    register(database_url, "shop", str(git_repo.path))
    run_index(database_url, "shop", new)
    run_index(database_url, "shop", old)
    assert _events(database_url, "shop")["commit_sha"] == new


def test_a_run_that_crashes_mid_parse_resumes_to_the_rows_of_an_uninterrupted_run(
    settings_env, database_url, pg_server, git_repo
):
    for i in range(120):
        git_repo.write(f"pkg/m{i:03}.py", UTIL.replace("slugify", f"fn_{i}"))
    sha = git_repo.commit()
    register(database_url, "shop", str(git_repo.path))
    settings = load_settings()
    record_source_files(database_url, settings, "shop", sha)

    def crash_after_first_batch(message: str) -> None:
        raise RuntimeError("simulated crash: " + message)

    with pytest.raises(RuntimeError, match="simulated crash"):
        parse_snapshot(database_url, settings, "shop", sha, progress=crash_after_first_batch)
    conn = connect(database_url)
    half = conn.execute("SELECT count(*) AS n FROM file_versions WHERE parsed_at IS NOT NULL")
    assert 0 < half.fetchone()["n"] < 120
    conn.close()

    run_index(database_url, "shop", sha)
    resumed = dump(database_url)

    import psycopg

    from core.database import with_database

    with psycopg.connect(pg_server, autocommit=True) as admin:
        admin.execute('CREATE DATABASE "clean_run" TEMPLATE "codeatlas_template"')
    clean_url = with_database(pg_server, "clean_run")
    register(clean_url, "shop", str(git_repo.path))
    run_index(clean_url, "shop", sha)
    clean = dump(clean_url)
    for table in ("code_symbols", "code_chunks", "code_edges", "chunk_embeddings"):
        strip = [{k: v for k, v in r.items() if not k.endswith("id")} for r in resumed[table]]
        clean_strip = [{k: v for k, v in r.items() if not k.endswith("id")} for r in clean[table]]
        key = lambda r: sorted((k, str(v)) for k, v in r.items())  # noqa: E731
        assert sorted(strip, key=key) == sorted(clean_strip, key=key), table


def test_a_run_that_fails_inside_dagster_raises_the_users_error_and_keeps_what_was_published(
    settings_env, database_url, git_repo, tmp_path
):
    import shutil

    from core.errors import NotAGitRepositoryError

    git_repo.write("shop/refunds.py", SHOP)
    first = git_repo.commit()
    register(database_url, "shop", str(git_repo.path))
    run_index(database_url, "shop", first)
    before = dump(database_url)
    moved = tmp_path / "moved"
    shutil.move(str(git_repo.path), moved)

    with pytest.raises(NotAGitRepositoryError, match="does not exist"):
        run_index(database_url, "shop", first)
    assert dump(database_url) == before


def test_embedding_reports_progress_per_group_until_every_chunk_is_embedded(
    settings_env, database_url, git_repo, monkeypatch
):
    import indexing.embedding_step as embedding_step

    for i in range(6):
        body = "".join(f"    value_{k} = {k}\n" for k in range(i * 10))
        git_repo.write(f"pkg/mod{i}.py", f"def fn_{i}():\n{body}    return {i}\n")
    sha = git_repo.commit()
    register(database_url, "shop", str(git_repo.path))
    settings = load_settings()
    record_source_files(database_url, settings, "shop", sha)
    parse_snapshot(database_url, settings, "shop", sha)

    from indexing.parse_version import effective_parser_version
    from indexing.publishing import publish

    conn = connect(database_url)
    publish(conn, settings, "shop", sha, effective_parser_version(settings), "fake")
    conn.close()
    monkeypatch.setattr(embedding_step, "COMMIT_EVERY", 2)
    messages: list[str] = []
    result = embed_snapshot(database_url, "shop", sha, FakeEmbedder(), progress=messages.append)
    total = result["embedded"]
    assert total >= 6
    assert len(messages) == -(-total // 2)  # one line per committed group
    assert messages[0].startswith(f"embedded 2/{total} chunks")
    assert messages[-1].startswith(f"embedded {total}/{total} chunks")
    assert messages[-1].endswith("ETA 0s)")
    assert all("ETA" in m for m in messages)


class ContextReadingEmbedder(FakeEmbedder):
    """The fake model, reading each chunk after its path and qualified name (as the default
    local model does) under a name of its own."""

    def __init__(self) -> None:
        super().__init__()
        self.model_name = "fake-hash-ctx-384"
        self.reads_context = True


def test_a_context_reading_model_embeds_each_content_once_after_its_first_path_and_name(
    settings_env, database_url, git_repo
):
    # the same function in two files: one content, one vector, read at the first path
    git_repo.write("shop/refunds.py", SHOP)
    git_repo.write("pkg/b.py", UTIL)
    git_repo.write("pkg/a.py", UTIL)
    sha = git_repo.commit()
    register(database_url, "shop", str(git_repo.path))
    run_index(database_url, "shop", sha)
    embedder = ContextReadingEmbedder()
    assert embed_snapshot(database_url, "shop", sha, embedder)["embedded"] > 0

    conn = connect(database_url)
    rows = conn.execute(
        "SELECT DISTINCT codeatlas_chunk_text(c.file_version_id, c.ordinal) AS content,"
        " c.qualified_name, e.embedding::vector::real[] AS vector"
        " FROM code_chunks c JOIN chunk_embeddings e ON e.content_hash = c.content_hash"
        " AND e.embedding_model = %s WHERE c.qualified_name IN"
        " ('slugify', 'RefundPolicy.is_eligible_for_refund')",
        (embedder.model_name,),
    ).fetchall()
    conn.close()
    path = {"slugify": "pkg/a.py", "RefundPolicy.is_eligible_for_refund": "shop/refunds.py"}
    assert sorted(r["qualified_name"] for r in rows) == sorted(path)
    fake = FakeEmbedder()
    for row in rows:
        header = f"{path[row['qualified_name']]} {row['qualified_name']}"
        [expected] = fake.embed_documents([f"{header}\n{row['content']}"])
        [bare] = fake.embed_documents([row["content"]])
        assert row["vector"] == pytest.approx(expected, abs=2e-3)
        assert row["vector"] != pytest.approx(bare, abs=2e-3)
