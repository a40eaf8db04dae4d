"""A BERT model folder (safetensors) as a CTranslate2 encoder spec, read with numpy only.

ctranslate2's own `TransformersConverter` loads the model through transformers and torch; a BERT
encoder is a short list of named matrices, so reading them straight from the safetensors file
keeps both out of the default install. The mapping follows the layout of ctranslate2's BERT
loader: post-norm layers, embeddings word + token type (added), learned positions, a layer norm
on the embeddings, and the fused query/key/value projection.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np
    from ctranslate2.specs import TransformerEncoderModelSpec

# transformers' `hidden_act` names and the CTranslate2 activation each stands for
_ACTIVATIONS = {"gelu": "GELU", "gelu_python": "GELU", "gelu_new": "GELUTanh", "relu": "RELU"}
WEIGHTS_FILE = "model.safetensors"


class UnsupportedModelError(ValueError):
    """The folder is not a BERT model with safetensors weights (the numpy reader's scope)."""


def is_supported(model_dir: Path) -> bool:
    """True for a BERT config with absolute positions and a `model.safetensors` file."""
    config = _json(model_dir / "config.json")
    return (
        config.get("model_type") == "bert"
        and config.get("position_embedding_type", "absolute") == "absolute"
        and config.get("hidden_act") in _ACTIVATIONS
        and (model_dir / WEIGHTS_FILE).is_file()
    )


def bert_spec(model_dir: Path) -> TransformerEncoderModelSpec:
    """The encoder spec of the BERT model in `model_dir`, weights in float32, not yet quantized."""
    from ctranslate2.specs import (
        Activation,
        EmbeddingsMerge,
        TransformerEncoderModelSpec,
        TransformerEncoderSpec,
    )
    from safetensors.numpy import load_file

    if not is_supported(model_dir):
        raise UnsupportedModelError(f"{model_dir}: not a BERT model with {WEIGHTS_FILE}")
    config = _json(model_dir / "config.json")
    weights = load_file(str(model_dir / WEIGHTS_FILE))
    # Checkpoints saved from BertModel have no prefix; from BertFor* heads they start with "bert.".
    prefix = "bert." if "bert.embeddings.word_embeddings.weight" in weights else ""

    def tensor(name: str) -> np.ndarray:
        return weights[prefix + name]

    has_pooler = prefix + "pooler.dense.weight" in weights
    spec = TransformerEncoderModelSpec(
        TransformerEncoderSpec(
            config["num_hidden_layers"],
            config["num_attention_heads"],
            pre_norm=False,
            activation=getattr(Activation, _ACTIVATIONS[config["hidden_act"]]),
            layernorm_embedding=True,
            num_source_embeddings=2,  # word pieces + token type, added
            embeddings_merge=EmbeddingsMerge.ADD,
        ),
        pooling_layer=has_pooler,
        pooling_activation=Activation.Tanh,
    )
    # CTranslate2's specs declare their weights at run time: typed loosely here
    encoder: Any = spec.encoder
    encoder.scale_embeddings = False
    encoder.embeddings[0].weight = tensor("embeddings.word_embeddings.weight")
    encoder.embeddings[1].weight = tensor("embeddings.token_type_embeddings.weight")
    encoder.position_encodings.encodings = tensor("embeddings.position_embeddings.weight")
    _layer_norm(encoder.layernorm_embedding, tensor, "embeddings.LayerNorm")
    if has_pooler:
        _linear(spec.pooler_dense, tensor, "pooler.dense")
    for i, layer in enumerate(encoder.layer):
        at = f"encoder.layer.{i}."
        # CTranslate2 runs query, key and value as one matrix: rows stacked in that order.
        qkv = [f"{at}attention.self.{part}" for part in ("query", "key", "value")]
        fused: Any = layer.self_attention.linear[0]
        fused.weight = _stack([tensor(f"{name}.weight") for name in qkv])
        fused.bias = _stack([tensor(f"{name}.bias") for name in qkv])
        _linear(layer.self_attention.linear[1], tensor, f"{at}attention.output.dense")
        _layer_norm(layer.self_attention.layer_norm, tensor, f"{at}attention.output.LayerNorm")
        _linear(layer.ffn.linear_0, tensor, f"{at}intermediate.dense")
        _linear(layer.ffn.linear_1, tensor, f"{at}output.dense")
        _layer_norm(layer.ffn.layer_norm, tensor, f"{at}output.LayerNorm")

    spec.register_vocabulary(_vocabulary(model_dir, config["vocab_size"]))
    spec_config: Any = spec.config
    spec_config.unk_token = _unk_token(model_dir)
    spec_config.layer_norm_epsilon = config.get("layer_norm_eps", 1e-12)
    return spec


def _linear(spec: Any, tensor: Any, name: str) -> None:
    spec.weight = tensor(f"{name}.weight")  # (out, in), as CTranslate2 wants it
    spec.bias = tensor(f"{name}.bias")


def _layer_norm(spec: Any, tensor: Any, name: str) -> None:
    spec.gamma = tensor(f"{name}.weight")
    spec.beta = tensor(f"{name}.bias")


def _stack(parts: list[np.ndarray]) -> np.ndarray:
    import numpy as np

    return np.concatenate(parts)


def _vocabulary(model_dir: Path, size: int) -> list[str]:
    """Tokens by id, as the tokenizer numbers them; ids the tokenizer never uses get a filler."""
    if (model_dir / "tokenizer.json").is_file():
        from tokenizers import Tokenizer

        ids = Tokenizer.from_file(str(model_dir / "tokenizer.json")).get_vocab()
        tokens = [token for token, _ in sorted(ids.items(), key=lambda item: item[1])]
    else:
        tokens = (model_dir / "vocab.txt").read_text(encoding="utf-8").splitlines()
    return tokens + [f"<extra_id_{i}>" for i in range(size - len(tokens))]


def _unk_token(model_dir: Path) -> str:
    for name in ("special_tokens_map.json", "tokenizer_config.json"):
        token = _json(model_dir / name).get("unk_token")
        if token:
            return token["content"] if isinstance(token, dict) else str(token)
    return "[UNK]"


def _json(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text()) if path.is_file() else {}
