"""`python -m lab.kernel.extrapolate [--files N] [--embed N]`: figures for planning the
whole kernel without indexing it.

1. Every file of the package's tarball, classified by codeatlas's own rules (language by path,
   skip rules by path and size): indexable files and bytes of the whole tree and of the sample.
2. A seeded random slice of N indexable files of the whole tree, parsed and tokenized in this
   process alone (no database): chunks per byte (to estimate the whole tree's chunks) and
   parse-and-tokenize CPU per chunk.
3. The local embedding model over a seeded random sample of the slice's chunks: chunks/s on this
   machine, for the time vectors of the whole tree take.
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import tempfile
import time
from collections import Counter
from pathlib import Path

from benchmarks.workspace import prepare_environment
from lab import RESULTS
from lab.kernel.corpus import PACKAGE, SAMPLE, fetch_package, tarball
from lab.machine import describe

SEED = 30  # issue 30


def listing(source: Path) -> list[tuple[str, int, str]]:
    """(path inside the tree, size, mode) of every member of the tarball."""
    out = subprocess.run(
        ["tar", "-tvJf", str(source)], capture_output=True, text=True, check=True
    ).stdout
    members = []
    for line in out.splitlines():
        perms, _owner, size, _date, _time, name = line.split(None, 5)
        if perms[0] not in "-l":
            continue
        name = name.split(" -> ", 1)[0]
        path = name.split("/", 1)[1] if "/" in name else name
        members.append((path, int(size), "120000" if perms[0] == "l" else "100644"))
    return members


def classify_tree(members: list[tuple[str, int, str]]) -> dict:
    """Indexable files and bytes per language, for the whole tree and for the sample."""
    from core.config import load_settings
    from indexing.git_source import TreeEntry
    from indexing.snapshot_files import classify

    max_bytes = load_settings().max_file_bytes
    result: dict = {}
    indexable: list[tuple[str, int]] = []
    for scope in ("whole", "sample"):
        files, sizes, skipped = Counter(), Counter(), Counter()
        for path, size, mode in members:
            if scope == "sample" and not any(path.startswith(f + "/") for f in SAMPLE):
                continue
            language, reason = classify(TreeEntry(path, "", size, mode), max_bytes)
            if reason:
                skipped[reason] += 1
                continue
            files[language] += 1
            sizes[language] += size
            if scope == "whole":
                indexable.append((path, size))
        result[scope] = {
            "files": sum(files.values()),
            "bytes": sum(sizes.values()),
            "by_language": {k: {"files": files[k], "bytes": sizes[k]} for k in files},
            "skipped": dict(skipped.most_common()),
        }
    result["indexable"] = indexable
    return result


def parse_slice(source: Path, paths: list[str]) -> tuple[dict, list[str]]:
    """Parse and tokenize the files in this process; chunks, bytes and CPU seconds."""
    from indexing.parse_pool import prepare

    texts: list[str] = []
    with tempfile.TemporaryDirectory() as tmp:
        names = Path(tmp) / "names"
        names.write_text("".join(f"{PACKAGE}/{p}\n" for p in paths))
        subprocess.run(["tar", "-xJf", str(source), "-C", tmp, "-T", str(names)], check=True)
        chunks = size = 0
        cpu = 0.0
        for path in paths:
            content = (Path(tmp) / PACKAGE / path).read_bytes()
            started = time.process_time()
            prepared = prepare(path, content, 256)
            cpu += time.process_time() - started
            chunks += len(prepared.parsed.chunks)
            size += len(content)
            texts.extend(c.content for c in prepared.parsed.chunks)
    return {
        "files": len(paths),
        "bytes": size,
        "chunks": chunks,
        "chunks_per_kb": round(1000 * chunks / size, 3),
        "parse_cpu_seconds": round(cpu, 2),
        "parse_cpu_ms_per_chunk": round(1000 * cpu / chunks, 3),
    }, texts


def embedding_rate(texts: list[str]) -> dict:
    """The local model over `texts` in the pipeline's batches: chunks/s and CPU per chunk."""
    from benchmarks.embedder import BATCH, make

    embedder = make("local")
    embedder.embed_documents(texts[:8])  # load and warm
    ordered = sorted(texts, key=len)  # as the pipeline batches them: shortest first
    wall, cpu = time.perf_counter(), time.process_time()
    for start in range(0, len(ordered), BATCH):
        embedder.embed_documents(ordered[start : start + BATCH])
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    return {
        "model": embedder.model_name,
        "chunks": len(texts),
        "seconds": round(wall, 2),
        "chunks_per_second": round(len(texts) / wall, 1),
        "cpu_ms_per_chunk": round(1000 * cpu / len(texts), 2),
    }


def main() -> None:
    """Print (and save) the whole tree's counts, the slice's parse rate and the embedding rate."""
    parser = argparse.ArgumentParser(prog="python -m lab.kernel.extrapolate")
    parser.add_argument("--files", type=int, default=400, help="files in the parsed slice")
    parser.add_argument("--embed", type=int, default=500, help="chunks embedded (0: none)")
    args = parser.parse_args()
    prepare_environment()
    source = tarball(fetch_package())
    tree = classify_tree(listing(source))
    indexable = tree.pop("indexable")
    rng = random.Random(SEED)
    paths = sorted(p for p, _ in rng.sample(indexable, args.files))
    parsed, texts = parse_slice(source, paths)
    whole = tree["whole"]
    result = {
        "machine": describe(),
        "tree": tree,
        "slice": parsed,
        "whole_tree_estimate": {
            "chunks": round(whole["bytes"] / 1000 * parsed["chunks_per_kb"]),
            "parse_cpu_hours": round(
                whole["bytes"]
                / 1000
                * parsed["chunks_per_kb"]
                * parsed["parse_cpu_ms_per_chunk"]
                / 3_600_000,
                2,
            ),
        },
    }
    if args.embed:
        result["embedding"] = embedding_rate(random.Random(SEED).sample(texts, args.embed))
    out = RESULTS / "kernel_extrapolation.json"
    out.write_text(json.dumps(result, indent=1) + "\n")
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
