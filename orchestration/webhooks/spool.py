"""Deliveries kept on disk while the database is down (issue 47).

GitHub does not re-deliver a failed delivery by itself, so a push answered 503 while PostgreSQL
was stopped was lost unless someone re-sent it. The receiver now verifies such a delivery
against the secrets it read while the database answered (`SecretCache`) and, when one proves
it, writes the delivery here (one file, written to a temporary name, flushed to disk, then
renamed: a crash leaves a whole file or none) and answers 202 `spooled`. When the database
answers again the receiver replays the files oldest first through its normal path (verified
and stored again), deleting each once stored: at least once, and a replay of a delivery
already stored is a duplicate (delivery ids are unique), so nothing is stored twice.

The spool is bounded (`MAX_FILES`, `MAX_BYTES`): past it a delivery gets 503 as before.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import json
import os
import time
from dataclasses import dataclass
from pathlib import Path

SPOOL_FOLDER = "webhook-spool"  # under the state dir: one spool for every receiver of an index
MAX_FILES = 10_000
MAX_BYTES = 512 * 1024 * 1024
# never kept: a replay reads the delivery from its provider's own headers and body (the folder is
# 0700 all the same: GitLab's token header is the shared secret itself)
DROPPED_HEADERS = frozenset({"authorization", "cookie", "proxy-authorization"})


@dataclass(frozen=True)
class SpooledDelivery:
    """One delivery read back from the spool."""

    path: Path
    provider: str
    headers: dict[str, str]
    body: bytes


class DeliverySpool:
    """A folder of deliveries waiting for the database, one JSON file each."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    @classmethod
    def in_state_dir(cls, state_dir: Path) -> DeliverySpool:
        """The spool of the receivers of the index kept in `state_dir`."""
        return cls(state_dir / SPOOL_FOLDER)

    def put(self, provider: str, delivery_id: str, headers: dict[str, str], body: bytes) -> bool:
        """Keep a delivery durably; False when the spool is full (the caller answers 503). The
        same delivery sent again replaces its file."""
        self.folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        files = self._files()
        if len(files) >= MAX_FILES or self._size(files) + len(body) > MAX_BYTES:
            return False
        key = hashlib.sha256(f"{provider}\0{delivery_id}".encode()).hexdigest()[:24]
        existing = [f for f in files if f.name.endswith(f"-{key}.json")]
        name = existing[0].name if existing else f"{time.time_ns():020d}-{key}.json"
        record = {
            "provider": provider,
            "headers": {k: v for k, v in headers.items() if k not in DROPPED_HEADERS},
            "body": base64.b64encode(body).decode("ascii"),
        }
        temporary = self.folder / f".{name}.tmp"
        with temporary.open("w") as out:
            json.dump(record, out)
            out.flush()
            os.fsync(out.fileno())
        os.replace(temporary, self.folder / name)
        self._sync_folder()
        return True

    def pending(self) -> list[SpooledDelivery]:
        """The kept deliveries, oldest first (a file that cannot be read is set aside)."""
        found = []
        for path in self._files():
            try:
                record = json.loads(path.read_text())
                found.append(
                    SpooledDelivery(
                        path,
                        str(record["provider"]),
                        {str(k): str(v) for k, v in record["headers"].items()},
                        base64.b64decode(record["body"]),
                    )
                )
            except (OSError, ValueError, KeyError, TypeError, AttributeError):
                with contextlib.suppress(OSError):
                    path.rename(path.with_suffix(".unreadable"))
        return found

    def has_room(self) -> bool:
        """Whether another delivery would be kept."""
        files = self._files()
        return len(files) < MAX_FILES and self._size(files) < MAX_BYTES

    def count(self) -> int:
        """How many deliveries wait."""
        return len(self._files())

    def remove(self, delivery: SpooledDelivery) -> None:
        """The delivery is stored (or refused for good): forget its file."""
        delivery.path.unlink(missing_ok=True)
        self._sync_folder()

    def _files(self) -> list[Path]:
        try:
            return sorted(p for p in self.folder.iterdir() if p.name.endswith(".json"))
        except FileNotFoundError:
            return []

    @staticmethod
    def _size(files: list[Path]) -> int:
        total = 0
        for path in files:
            with contextlib.suppress(OSError):
                total += path.stat().st_size
        return total

    def _sync_folder(self) -> None:
        fd = os.open(self.folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
