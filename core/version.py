"""The installed codeatlas version, from the package metadata (pyproject.toml's `version`)."""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

DISTRIBUTION = "codeatlas"


def package_version() -> str:
    """The version pip installed, e.g. "0.1.0" ("unknown" when run from an uninstalled copy)."""
    try:
        return version(DISTRIBUTION)
    except PackageNotFoundError:
        return "unknown"
