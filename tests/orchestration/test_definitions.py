"""The whole Definitions object loads, with every asset partitioned per snapshot."""

from __future__ import annotations

from dagster import AssetKey


def test_the_definitions_load_with_the_index_job_and_every_asset_partitioned():
    from orchestration.definitions import defs

    repo = defs.get_repository_def()
    job = defs.resolve_job_def("index_snapshot")
    keys = {key.to_user_string() for key in repo.asset_graph.get_all_asset_keys()}
    assert {
        "source_files",
        "code_chunks",
        "code_symbols",
        "code_edges",
        "snapshot",
        "chunk_embeddings",
    } <= keys
    for key in ("source_files", "code_chunks", "snapshot", "chunk_embeddings"):
        node = repo.asset_graph.get(AssetKey(key))
        assert node.partitions_def is not None
        assert node.partitions_def.name == "snapshots"
    assert job.partitions_def is not None


def test_publishing_comes_before_vectors_so_search_does_not_wait_for_embeddings():
    from orchestration.definitions import defs

    graph = defs.get_repository_def().asset_graph
    parents = {k.to_user_string() for k in graph.get(AssetKey("chunk_embeddings")).parent_keys}
    assert parents == {"snapshot"}
