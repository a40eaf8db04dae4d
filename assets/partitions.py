"""Partitions: one per `<repository>@<commit sha>`, an immutable fact about the code."""

from __future__ import annotations

from dagster import DynamicPartitionsDefinition

snapshot_partitions = DynamicPartitionsDefinition(name="snapshots")


def partition_key(repository: str, commit_sha: str) -> str:
    """The partition key of one commit of one repository."""
    return f"{repository}@{commit_sha}"


def parse_partition_key(key: str) -> tuple[str, str]:
    """(repository name, commit sha) of a partition key."""
    repository, sep, sha = key.rpartition("@")
    if not sep or not repository or len(sha) < 7:
        raise ValueError(f"partition key {key!r} is not <repository>@<commit sha>")
    return repository, sha
