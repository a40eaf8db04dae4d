"""Errors a user can cause, each with a message that says what to do next."""


def first_line(exc: BaseException) -> str:
    """The first line of an error's message (its type's name when it has none)."""
    lines = str(exc).strip().splitlines()
    return lines[0] if lines else type(exc).__name__


class CodeatlasError(Exception):
    """Base for errors the CLI prints as one line (no traceback) before exiting non-zero."""


class ConfigurationError(CodeatlasError):
    """A setting is missing or invalid."""


class DatabaseUnavailableError(CodeatlasError):
    """PostgreSQL cannot be reached or lacks a required extension."""


class UsageError(CodeatlasError):
    """A command's argument cannot be answered as given (an empty query, an unknown name)."""


class RepositoryNotFoundError(CodeatlasError):
    """The named repository is unknown (or not granted: the message is the same)."""


class NotAGitRepositoryError(CodeatlasError):
    """A path given to `index` is not a git repository."""


class EmbeddingProviderError(CodeatlasError):
    """The embedding provider failed after its retries."""
