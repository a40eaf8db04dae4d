"""Export a sentence-transformers BERT model to int8 ONNX once, cached under the state dir."""

from __future__ import annotations

import hashlib
import json
import logging
import os
import shutil
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

log = logging.getLogger(__name__)

# Bump when the recipe below changes: a new recipe must not reuse files made by an old one.
RECIPE = "bert-eager-ortopt-int8pc-ffnout-fp32-v2"
MODEL_FILE = "model.int8.onnx"
_INPUTS = ("input_ids", "attention_mask", "token_type_ids")
_OUTPUT = "last_hidden_state"


def cached_onnx_model(model_dir: Path, cache_root: Path) -> Path:
    """Path of the int8 ONNX model for `model_dir`, exported into `cache_root` on first use.

    Processes racing on a cold cache serialize on a file lock; the export is written to a
    temporary folder and renamed into place, so a reader never sees half a model.
    """
    from filelock import FileLock

    target = cache_root / f"{RECIPE}-{_fingerprint(model_dir)}"
    if (target / MODEL_FILE).is_file():
        return target / MODEL_FILE
    cache_root.mkdir(parents=True, exist_ok=True)
    with FileLock(str(cache_root / ".export.lock"), timeout=600):
        if (target / MODEL_FILE).is_file():  # another process finished while we waited
            return target / MODEL_FILE
        work = Path(tempfile.mkdtemp(prefix=".export-", dir=cache_root))
        try:
            started = time.monotonic()
            log.info("exporting %s to int8 ONNX (once) into %s", model_dir, target)
            with _quiet_onnxruntime():
                _export(model_dir, work)
            work.chmod(0o755)  # mkdtemp made it private; the cache is as shared as the state dir
            os.replace(work, target)
            log.info("ONNX export done in %.1fs", time.monotonic() - started)
        finally:
            shutil.rmtree(work, ignore_errors=True)
    return target / MODEL_FILE


@contextmanager
def _quiet_onnxruntime() -> Iterator[None]:
    """Hide onnxruntime's per-tensor INFO chatter (it logs to the root logger) during export."""

    def drop(record: logging.LogRecord) -> bool:
        return record.levelno >= logging.WARNING or "onnxruntime" not in record.pathname

    handlers = list(logging.getLogger().handlers)
    for handler in handlers:
        handler.addFilter(drop)
    try:
        yield
    finally:
        for handler in handlers:
            handler.removeFilter(drop)


def _fingerprint(model_dir: Path) -> str:
    """A short hash of the model's config and weight file sizes (cheap; no 90 MB read)."""
    digest = hashlib.sha256()
    for path in sorted(model_dir.rglob("*")):
        if path.is_file() and path.suffix in (".json", ".safetensors", ".bin", ".txt"):
            digest.update(str(path.relative_to(model_dir)).encode())
            digest.update(str(path.stat().st_size).encode())
            if path.suffix == ".json":
                digest.update(path.read_bytes())
    return digest.hexdigest()[:12]


def _export(model_dir: Path, work: Path) -> None:
    import torch
    from onnxruntime.quantization import QuantType, quantize_dynamic
    from transformers import AutoModel

    # Eager attention exports as plain MatMul/Softmax, the pattern onnxruntime fuses into one
    # Attention op (SDPA exports as a shape it does not recognise, which runs slower).
    model = AutoModel.from_pretrained(str(model_dir), attn_implementation="eager").eval()
    config = model.config
    ids = torch.tensor([[101, 7592, 2088, 102], [101, 7592, 102, 0]])
    mask = (ids != 0).long()
    with torch.inference_mode():
        torch.onnx.export(
            _keyword_call(model),
            (ids, mask, torch.zeros_like(ids)),
            str(work / "model.onnx"),
            input_names=list(_INPUTS),
            output_names=[_OUTPUT],
            dynamic_axes={name: {0: "batch", 1: "sequence"} for name in (*_INPUTS, _OUTPUT)},
            opset_version=17,
            dynamo=False,  # the dynamo exporter needs onnxscript, which is not installed
        )
    source = work / "model.onnx"
    try:
        from onnxruntime.transformers import optimizer

        fused = optimizer.optimize_model(
            str(source),
            model_type="bert",
            num_heads=config.num_attention_heads,
            hidden_size=config.hidden_size,
        )
        fused.save_model_to_file(str(work / "model.fused.onnx"))
        source = work / "model.fused.onnx"
    except Exception as exc:  # fusion is a speed-up only; the plain graph is still correct
        log.warning("onnxruntime graph fusion failed (%s); quantizing the unfused graph", exc)
    # Per-channel int8 weights: per-tensor scales lose too much on this model (cosine ~0.93).
    # The FFN down-projections stay float: their input (GELU output) has outliers that one
    # per-tensor activation scale handles badly. Measured against the float model on 517
    # chunks: cosine 0.992 -> 0.996 for ~10% of the speed.
    import onnx

    graph = onnx.load(str(source), load_external_data=False).graph
    keep_float = [
        node.name
        for node in graph.node
        if node.op_type == "MatMul"
        and "/output/dense/" in node.name
        and "attention" not in node.name
    ]
    quantize_dynamic(
        str(source),
        str(work / MODEL_FILE),
        weight_type=QuantType.QInt8,
        per_channel=True,
        nodes_to_exclude=keep_float,
        extra_options={"DefaultTensorType": 1},  # FLOAT, for outputs of fused contrib ops
    )
    (work / "model.onnx").unlink()
    (work / "model.fused.onnx").unlink(missing_ok=True)
    (work / "manifest.json").write_text(
        json.dumps({"recipe": RECIPE, "source": str(model_dir), "created": time.time()})
    )


def _keyword_call(model: object) -> object:
    """Wrap `model` so the tracer's positional inputs reach it as keyword arguments."""
    import torch

    class KeywordCall(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.model = model

        def forward(self, input_ids, attention_mask, token_type_ids):  # noqa: ANN001
            out = self.model(
                input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids
            )
            return out.last_hidden_state

    return KeywordCall()
