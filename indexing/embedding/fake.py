"""A deterministic embedder for tests: hashed code-aware words, no model, no network."""

from __future__ import annotations

import hashlib
import math
import re
from collections import Counter

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|[0-9]+")
_WORD_PART = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")


def code_words(text: str) -> list[str]:
    """Lowercased words of `text`, identifiers split at camelCase and snake_case boundaries."""
    words: list[str] = []
    for identifier in _IDENTIFIER.findall(text):
        parts = _WORD_PART.findall(identifier)
        words.extend(part.lower() for part in parts)
        if len(parts) > 1:
            # The whole identifier too, so an exact name outweighs a text that only shares parts.
            words.append(identifier.lower())
    return words


class FakeEmbedder:
    """Hashes words into a fixed-size unit vector: texts sharing words are nearer."""

    def __init__(self, dimensions: int = 384, max_tokens: int = 256) -> None:
        if dimensions < 2:
            raise ValueError("dimensions must be at least 2")
        self.dimensions = dimensions
        self.max_tokens = max_tokens
        self.model_name = f"fake-hash-{dimensions}"
        self.reads_context = False

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        """Embed each text, in order."""
        return [self._embed(text) for text in texts]

    def embed_query(self, text: str) -> list[float]:
        """Embed a query exactly like a document."""
        return self._embed(text)

    def count_tokens(self, text: str) -> int:
        """Count the words the fake model sees."""
        return len(code_words(text))

    def _embed(self, text: str) -> list[float]:
        vector = [0.0] * self.dimensions
        counts = Counter(code_words(text)) or Counter({"\0empty": 1})
        for word, count in counts.items():
            # blake2b, not hash(): the same word must land in the same slot in every process.
            digest = hashlib.blake2b(word.encode(), digest_size=8).digest()
            slot = int.from_bytes(digest[:4], "little") % self.dimensions
            sign = 1.0 if digest[4] & 1 else -1.0
            vector[slot] += sign * (1.0 + math.log(count))
        norm = math.sqrt(sum(value * value for value in vector))
        if norm == 0.0:  # every word cancelled out in shared slots; rare but possible
            vector[0], norm = 1.0, 1.0
        return [value / norm for value in vector]
