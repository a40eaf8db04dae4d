"""Convert a sentence-transformers model to an int8 CTranslate2 model once, cached."""

from __future__ import annotations

import hashlib
import json
import logging
import os
import shutil
import tempfile
import time
from pathlib import Path

from core.errors import ConfigurationError

log = logging.getLogger(__name__)

# Bump when the recipe below changes: a new recipe must not reuse files made by an old one.
RECIPE = "ct2-int8-v1"
QUANTIZATION = "int8"
MODEL_FILE = "model.bin"


def cached_ct2_model(model_dir: Path, cache_root: Path) -> Path:
    """Folder of the int8 CTranslate2 model for `model_dir`, converted into `cache_root` once.

    Processes racing on a cold cache serialize on a file lock; the conversion is written to a
    temporary folder and renamed into place, so a reader never sees half a model.
    """
    from filelock import FileLock

    target = cache_root / f"{RECIPE}-{_fingerprint(model_dir)}"
    if (target / MODEL_FILE).is_file():
        return target
    cache_root.mkdir(parents=True, exist_ok=True)
    with FileLock(str(cache_root / ".convert.lock"), timeout=600):
        if (target / MODEL_FILE).is_file():  # another process finished while we waited
            return target
        work = Path(tempfile.mkdtemp(prefix=".convert-", dir=cache_root))
        try:
            started = time.monotonic()
            log.info("converting %s to int8 CTranslate2 (once) into %s", model_dir, target)
            _convert(model_dir, work / "model")
            (work / "model").chmod(0o755)
            os.replace(work / "model", target)
            log.info("conversion done in %.1fs", time.monotonic() - started)
        finally:
            shutil.rmtree(work, ignore_errors=True)
    return target


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


def _convert(model_dir: Path, output: Path) -> None:
    from indexing.embedding import bert_to_ct2

    if bert_to_ct2.is_supported(model_dir):
        # Every Linear layer's weights become int8 with one scale per output row; ctranslate2
        # quantizes the numpy spec itself, so neither torch nor transformers is needed.
        spec = bert_to_ct2.bert_spec(model_dir)
        spec.validate()
        spec.optimize(quantization=QUANTIZATION)
        output.mkdir()
        spec.save(str(output))
    else:
        _convert_with_transformers(model_dir, output)
    (output / "manifest.json").write_text(
        json.dumps({"recipe": RECIPE, "source": str(model_dir), "created": time.time()})
    )


def _convert_with_transformers(model_dir: Path, output: Path) -> None:
    # Models other than BERT-with-safetensors go through ctranslate2's own converter, which
    # reads them with transformers and torch (offline: everything is on disk).
    try:
        from ctranslate2.converters import TransformersConverter
        from transformers.utils import (  # pyright: ignore[reportMissingImports] - an extra
            logging as transformers_logging,
        )
    except ImportError as exc:
        raise ConfigurationError(
            f"{model_dir} is not a BERT model with model.safetensors: converting it needs"
            f" transformers and torch ({exc}); install them with pip install -e '.[torch]'"
        ) from exc

    transformers_logging.set_verbosity_error()  # no deprecation notes or progress bars in runs
    transformers_logging.disable_progress_bar()
    TransformersConverter(str(model_dir)).convert(str(output), quantization=QUANTIZATION)
