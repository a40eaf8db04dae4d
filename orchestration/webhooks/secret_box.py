"""Webhook secrets at rest: encrypted (Fernet: AES-128-CBC + HMAC-SHA256) with a key derived
from `CODEATLAS_SECRET_KEY` when that is set, stored as `enc:v1:<token>`; as given otherwise.

HMAC verification needs the secret itself, so it cannot be hashed; encryption keeps a copy of
the database (a backup, a dump) from giving away every repository's secret. The key comes from
the settings (`Settings.secret_key`) of the command or receiver that uses it, never stored.
"""

from __future__ import annotations

import base64
import hashlib

from core.errors import ConfigurationError

KEY_VARIABLE = "CODEATLAS_SECRET_KEY"
PREFIX = "enc:v1:"


class SecretKeyError(ConfigurationError):
    """An encrypted secret cannot be read: the key is missing or not the one it was sealed with."""


def _fernet(passphrase: str):
    from cryptography.fernet import Fernet

    return Fernet(base64.urlsafe_b64encode(hashlib.sha256(passphrase.encode()).digest()))


def seal(secret: str, key: str | None) -> str:
    """The stored form of `secret`: encrypted when a key is configured."""
    if key is None:
        return secret
    return PREFIX + _fernet(key).encrypt(secret.encode()).decode()


def is_sealed(stored: str) -> bool:
    """Whether a stored value is encrypted."""
    return stored.startswith(PREFIX)


def unseal(stored: str, key: str | None) -> str:
    """The secret of a stored value (plain values are returned as they are)."""
    if not is_sealed(stored):
        return stored
    from cryptography.fernet import InvalidToken

    if key is None:
        raise SecretKeyError(f"webhook secrets are encrypted: set {KEY_VARIABLE} to their key")
    try:
        return _fernet(key).decrypt(stored.removeprefix(PREFIX).encode()).decode()
    except InvalidToken:
        raise SecretKeyError(
            f"{KEY_VARIABLE} is not the key the webhook secrets were sealed with"
        ) from None
