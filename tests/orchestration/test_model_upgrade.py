"""Embedding-model upgrades: the old model serves until the new one covers everything, then one
transaction switches; no query ever reads two models' vectors."""

import pytest
from dagster import DagsterInstance, build_sensor_context

from assets.resources import EmbeddingProvider, IndexDatabase
from assets.vectors import MODEL_TAG
from core.config import load_settings
from core.database import connect
from indexing import chunk_embeddings, embedding_registry
from indexing.embedding.fake import FakeEmbedder
from indexing.embedding_step import missing_content
from orchestration import model_upgrade
from orchestration.definitions import build_definitions
from orchestration.model_upgrade import (
    EMBED_JOB,
    ModelInUseError,
    drop_model,
    plan_upgrades,
    start_upgrade,
    try_switch,
    upgrade_tags,
)
from orchestration.runtime.dagster_internals import Backfill
from retrieval.principals import Principal
from retrieval.scope import resolve_scope
from retrieval.search import search_code
from tests.assets.pipeline_helpers import register, run_index

SOURCE = {
    "billing.py": 'def refund_invoice(invoice):\n    """Give the customer their money back."""\n'
    "    return invoice.total * -1\n",
    "shipping.py": 'def track_parcel(parcel_id):\n    """Where is the parcel now."""\n'
    "    return lookup(parcel_id)\n",
    "auth.py": "def verify_password(user, password):\n    return check_hash(user, password)\n",
}


@pytest.fixture(autouse=True)
def fresh_embedders():
    """Embedders are cached per process: each test builds its own (fake: two vector spaces)."""
    embedding_registry._cache.clear()


@pytest.fixture
def indexed(settings_env, database_url, git_repo):
    for path, text in SOURCE.items():
        git_repo.write(path, text)
    sha = git_repo.commit("shop")
    register(database_url, "shop", str(git_repo.path))
    run_index(database_url, "shop", sha)
    with connect(database_url) as conn:
        conn.execute("INSERT INTO principals (name, all_repositories) VALUES ('op', true)")
        conn.commit()
    return sha


def embed_partition(url: str, key: str, tags: dict[str, str], instance=None) -> dict:
    """Materialize one partition of `chunk_embeddings` as a run of an upgrade's backfill does
    (real Dagster: the asset reads the model from the run's tags); its metadata."""
    defs = build_definitions(IndexDatabase(url=url), EmbeddingProvider(provider="fake"))
    instance = instance or DagsterInstance.ephemeral()
    instance.add_dynamic_partitions("snapshots", [key])
    result = defs.resolve_job_def(EMBED_JOB).execute_in_process(
        instance=instance, partition_key=key, tags=tags
    )
    assert result.success
    [materialization] = result.asset_materializations_for_node("chunk_embeddings")
    return {k: v.value for k, v in materialization.metadata.items()}


class RecordingQueries:
    """A query embedder per model that records which models a search asked for."""

    def __init__(self, *embedders: FakeEmbedder) -> None:
        self.by_model = {e.model_name: e for e in embedders}
        self.asked: list[str] = []

    def __call__(self, model: str, text: str):
        self.asked.append(model)
        return self.by_model[model].embed_query(text)


def semantic_top(url: str, queries: RecordingQueries, text: str) -> tuple[str, list[str]]:
    with connect(url) as conn:
        principal = Principal(
            id=conn.execute("SELECT id FROM principals").fetchone()["id"],
            name="op",
            all_repositories=True,
        )
        scope = resolve_scope(conn, principal, ["shop"])
        report = search_code(conn, scope, text, mode="semantic", embed_query=queries)
    return report.hits[0].path, report.hits[0].retrievers


def active_and_upgrading(url: str) -> tuple[str, str | None]:
    with connect(url) as conn:
        row = conn.execute(
            "SELECT active_embedding_model AS a, upgrading_embedding_model AS u"
            " FROM repositories WHERE name = 'shop'"
        ).fetchone()
    return row["a"], row["u"]


def test_search_stays_correct_before_during_and_after_the_switch(indexed, database_url):
    old, new = FakeEmbedder(384), FakeEmbedder(16)
    queries = RecordingQueries(old, new)
    assert active_and_upgrading(database_url) == (old.model_name, None)
    assert semantic_top(database_url, queries, "refund invoice money")[0] == "billing.py"

    with connect(database_url) as conn:
        embedding_registry.record_model(conn, new, embedding_registry.ModelSpec("fake", None, 16))
        conn.commit()
        assert start_upgrade(conn, new.model_name)["upgrading"] == ["shop"]
        # half the contents get new vectors (a backfill interrupted half-way)
        snap = conn.execute(
            "SELECT current_snapshot_id AS id, id AS repo FROM repositories WHERE name = 'shop'"
        ).fetchone()
        todo = missing_content(conn, snap["id"], new.model_name)
        half = conn.execute(
            "SELECT DISTINCT ON (content_hash) content_hash,"
            " codeatlas_chunk_text(file_version_id, ordinal) AS content FROM code_chunks"
            " WHERE content_hash = ANY(%s) ORDER BY content_hash LIMIT %s",
            ([r["content_hash"] for r in todo], len(todo) // 2),
        ).fetchall()
        chunk_embeddings.store(
            conn,
            new.model_name,
            [r["content_hash"] for r in half],
            new.embed_documents([r["content"] for r in half]),
        )
        conn.commit()
        assert try_switch(conn, "shop") is False

    queries.asked.clear()
    assert active_and_upgrading(database_url) == (old.model_name, new.model_name)
    assert semantic_top(database_url, queries, "track parcel") == ("shipping.py", ["semantic"])
    assert set(queries.asked) == {old.model_name}  # the old model serves while upgrading

    stats = embed_partition(database_url, f"shop@{indexed}", upgrade_tags(new.model_name))
    assert stats["model"] == new.model_name and stats["switched"] is True
    assert stats["embedded"] == len(todo) - len(half)  # resumed: only what was missing
    assert active_and_upgrading(database_url) == (new.model_name, None)

    queries.asked.clear()
    assert semantic_top(database_url, queries, "verify password") == ("auth.py", ["semantic"])
    assert set(queries.asked) == {new.model_name}

    with connect(database_url) as conn:
        with pytest.raises(ModelInUseError):
            drop_model(conn, new.model_name)
        dropped = drop_model(conn, old.model_name)
        assert dropped > 0
        left = conn.execute("SELECT DISTINCT embedding_model AS m FROM chunk_embeddings").fetchall()
        assert [r["m"] for r in left] == [new.model_name]
        index = embedding_registry.model_index_name(old.model_name)
        assert (
            conn.execute("SELECT 1 FROM pg_indexes WHERE indexname = %s", (index,)).fetchone()
            is None
        )
    assert semantic_top(database_url, queries, "refund invoice money")[0] == "billing.py"


def test_an_environment_change_starts_an_upgrade_that_the_sensor_backfills_and_switches(
    indexed, database_url, monkeypatch
):
    old = FakeEmbedder(384)
    monkeypatch.setenv("CODEATLAS_EMBEDDING_DIMENSIONS", "16")
    settings = load_settings()
    configured = embedding_registry.embedder_for_spec(
        embedding_registry.configured_spec(settings), settings
    )
    assert configured.model_name == "fake-hash-16"

    with connect(database_url) as conn:
        runs, events, to_launch = plan_upgrades(conn, settings, configured)
    assert active_and_upgrading(database_url) == (old.model_name, "fake-hash-16")
    assert events == ["shop: upgrade to fake-hash-16 started (configured by the environment)"]
    assert (runs, to_launch) == ([], ["fake-hash-16"])  # its backfill is to be launched

    # the backfill's one partition, run as the daemon would (the model rebuilt from its spec)
    assert embed_partition(database_url, f"shop@{indexed}", upgrade_tags("fake-hash-16"))[
        "switched"
    ]
    assert active_and_upgrading(database_url) == ("fake-hash-16", None)

    with connect(database_url) as conn:
        again = plan_upgrades(conn, settings, configured)
    assert again == ([], [], [])


def test_the_upgrade_sensor_reports_progress_through_its_tick(indexed, database_url):
    with (
        DagsterInstance.ephemeral() as instance,
        build_sensor_context(
            instance=instance, resources={"index_db": IndexDatabase(url=database_url)}
        ) as context,
    ):
        result = model_upgrade.model_upgrade_sensor(context)
    # the environment configures the model already active: nothing to do
    assert result.run_requests == []
    assert "no repository is upgrading" in result.skip_reason.skip_message


def test_while_the_backfill_runs_the_sensor_says_so_instead_of_no_repository_upgrading(
    indexed, database_url
):
    # issue 48: the tick said "no repository is upgrading" while `status` showed one upgrading
    new = FakeEmbedder(16)
    with (
        DagsterInstance.ephemeral() as instance,
        build_sensor_context(
            instance=instance, resources={"index_db": IndexDatabase(url=database_url)}
        ) as context,
    ):
        with connect(database_url) as conn:
            embedding_registry.record_model(
                conn, new, embedding_registry.ModelSpec("fake", None, 16)
            )
            embedding_registry.choose_model(conn, new.model_name)
            conn.commit()
            start_upgrade(conn, new.model_name)
            backfill_id, _keys = model_upgrade.launch_upgrade_backfill(
                instance, conn, new.model_name
            )
        result = model_upgrade.model_upgrade_sensor(context)
    assert result.run_requests == []
    message = result.skip_reason.skip_message
    assert "no repository is upgrading" not in message
    assert (
        f"shop: upgrading from fake-hash-384 to {new.model_name} (0/3 chunk contents of the"
        f" current snapshot have its vectors): backfill {backfill_id} in progress"
    ) in message


def test_an_index_run_with_a_newly_configured_model_makes_it_active_once_complete(
    indexed, database_url, git_repo, monkeypatch
):
    assert active_and_upgrading(database_url) == ("fake-hash-384", None)
    # The environment now configures another model; no daemon runs the upgrade sensor.
    monkeypatch.setenv("CODEATLAS_EMBEDDING_DIMENSIONS", "256")
    git_repo.write(
        "billing.py", SOURCE["billing.py"] + "\n\ndef void_invoice(invoice):\n    pass\n"
    )
    second = git_repo.commit("void invoices")
    run_index(database_url, "shop", second)
    # The run embedded the whole new snapshot into the new model, so it is switched to at once.
    assert active_and_upgrading(database_url) == ("fake-hash-256", None)
    with connect(database_url) as conn:
        snapshot = conn.execute(
            "SELECT r.id, r.current_snapshot_id FROM repositories r WHERE name = 'shop'"
        ).fetchone()
        assert not missing_content(conn, snapshot["current_snapshot_id"], "fake-hash-256")


def test_an_index_run_leaves_an_operators_upgrade_to_another_model_alone(
    indexed, database_url, git_repo, monkeypatch
):
    with connect(database_url) as conn:
        start_upgrade(conn, "fake-hash-128")
    monkeypatch.setenv("CODEATLAS_EMBEDDING_DIMENSIONS", "256")
    git_repo.write("auth.py", SOURCE["auth.py"] + "\n\ndef logout(user):\n    pass\n")
    run_index(database_url, "shop", git_repo.commit("logout"))
    assert active_and_upgrading(database_url) == ("fake-hash-384", "fake-hash-128")


def test_a_backfill_launched_from_the_ui_with_the_model_tag_starts_the_upgrade_and_switches(
    indexed, database_url
):
    new = FakeEmbedder(16)
    with connect(database_url) as conn:
        embedding_registry.record_model(conn, new, embedding_registry.ModelSpec("fake", None, 16))
        conn.commit()
    assert active_and_upgrading(database_url) == ("fake-hash-384", None)

    # the UI's "Materialize" of chunk_embeddings with the tag codeatlas/model: nothing else
    stats = embed_partition(database_url, f"shop@{indexed}", {MODEL_TAG: new.model_name})
    assert stats["embedded"] > 0 and stats["switched"] is True
    assert active_and_upgrading(database_url) == (new.model_name, None)


def test_searches_keep_the_old_model_until_the_backfills_last_partition_switches(
    indexed, database_url, git_repo
):
    # the older snapshot keeps a content the current one no longer has
    git_repo.write("auth.py", SOURCE["auth.py"].replace("check_hash", "check_salted_hash"))
    second = git_repo.commit("salted")
    run_index(database_url, "shop", second)
    old, new = FakeEmbedder(384), FakeEmbedder(16)
    queries = RecordingQueries(old, new)
    with connect(database_url) as conn:
        embedding_registry.record_model(conn, new, embedding_registry.ModelSpec("fake", None, 16))
        conn.commit()
        start_upgrade(conn, new.model_name)
        partitions = model_upgrade.upgrade_partitions(conn, new.model_name)
    assert partitions == [f"shop@{indexed}", f"shop@{second}"]  # every snapshot, not the current

    # the current snapshot first: covered, but the older one is not yet: no switch
    assert (
        embed_partition(database_url, partitions[1], upgrade_tags(new.model_name))["switched"]
        is False
    )
    assert active_and_upgrading(database_url) == (old.model_name, new.model_name)
    assert semantic_top(database_url, queries, "verify password") == ("auth.py", ["semantic"])
    assert set(queries.asked) == {old.model_name}

    stats = embed_partition(database_url, partitions[0], upgrade_tags(new.model_name))
    assert stats["switched"] is True  # the last partition switches, in one transaction
    assert active_and_upgrading(database_url) == (new.model_name, None)
    queries.asked.clear()
    assert semantic_top(database_url, queries, "track parcel") == ("shipping.py", ["semantic"])
    assert set(queries.asked) == {new.model_name}


def test_the_sensor_waits_for_the_backfill_then_requests_what_a_push_left_without_vectors(
    indexed, database_url, git_repo
):
    git_repo.write("auth.py", SOURCE["auth.py"].replace("check_hash", "check_salted_hash"))
    second = git_repo.commit("salted")
    run_index(database_url, "shop", second)
    new = FakeEmbedder(16)
    settings = load_settings()
    with connect(database_url) as conn:
        embedding_registry.record_model(conn, new, embedding_registry.ModelSpec("fake", None, 16))
        conn.commit()
        start_upgrade(conn, new.model_name)
    # the backfill ran its partition of the first commit only (the push came after its launch)
    embed_partition(database_url, f"shop@{indexed}", upgrade_tags(new.model_name))

    def backfill(status: str) -> Backfill:
        tags = upgrade_tags(new.model_name)
        return Backfill("b1", status, tags, ("chunk_embeddings",), (f"shop@{indexed}",))

    with connect(database_url) as conn:
        none_yet = plan_upgrades(conn, settings, None, lambda _m: [])
        running = plan_upgrades(conn, settings, None, lambda _m: [backfill("REQUESTED")])
        over = plan_upgrades(conn, settings, None, lambda _m: [backfill("COMPLETED_SUCCESS")])
    assert none_yet == ([], [], [new.model_name])  # its backfill is to be launched
    assert running == ([], [], [])  # its runs fill the partitions: nothing more to do
    runs, events, to_launch = over
    assert [(r.partition_key, r.tags[MODEL_TAG]) for r in runs] == [
        (f"shop@{second}", new.model_name)
    ]
    assert (events, to_launch) == ([], [])
    assert active_and_upgrading(database_url) == ("fake-hash-384", new.model_name)
