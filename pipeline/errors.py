"""The error tree: one base class, a few subclasses that carry what the user needs."""

from __future__ import annotations


class MemtestError(Exception):
    """Base of every error this program reports to the user; `exit_code` is what the CLI returns."""

    exit_code = 1


class UsageError(MemtestError):
    """Bad command-line input or configuration: the user has to change how they call us."""

    exit_code = 2


class ConfigError(UsageError):
    """A setting is missing or invalid; the message names the variable and where to set it."""


class StateError(MemtestError):
    """State on disk that this version must not touch (e.g. a newer schema_version)."""


class NotFound(MemtestError):
    """No memory with that id for this user."""


class LockTimeout(MemtestError):
    """Another process held the state lock for longer than the configured timeout."""


class LLMError(MemtestError):
    """A call to the model failed for good (after any retries)."""

    def __init__(
        self,
        message: str,
        *,
        status: int | None = None,
        error_type: str | None = None,
        request_id: str | None = None,
        attempts: int = 1,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.error_type = error_type
        self.request_id = request_id
        self.attempts = attempts


class LLMConfigError(LLMError):
    """The endpoint refused who we are or what we asked for (bad key, unknown model)."""

    exit_code = 2


class UnsafeFile(StateError):
    """A state file or import that is not a regular file, or is larger than the cap:
    refused before it is read, so nothing blocks and nothing grows without bound."""


class StateFolderError(UsageError):
    """The state folder cannot be used at all (cannot be created, or holds no lock file)."""


class SaveFailed(MemtestError):
    """Writing a change failed before its commit point: nothing of it was saved, and the
    state on disk is exactly as it was before. `cause` is the OS error."""

    saved = False

    def __init__(self, message: str, *, cause: OSError | None = None) -> None:
        super().__init__(message)
        self.cause = cause


class RecoveryFailed(MemtestError):
    """An earlier change was committed but its files could not be put in place yet; the
    state is that change, and the next command that can write will finish it."""


def as_error(exc: BaseException) -> MemtestError:
    """The one mapping from an exception to what the user is told: a MemtestError as it
    is; an OS error (disk full, permission denied, a folder where a file should be) as a
    StateError naming the file, since the store turns failed writes into SaveFailed."""
    if isinstance(exc, MemtestError):
        return exc
    if isinstance(exc, OSError):
        where = f": {exc.filename}" if exc.filename else ""
        error = StateError(f"{exc.strerror or exc}{where}; nothing was changed")
        error.__cause__ = exc
        return error
    return MemtestError(str(exc))


def error_json(error: MemtestError) -> dict[str, object]:
    """The `error` object of --json output."""
    return {"type": type(error).__name__, "message": str(error), "exit_code": error.exit_code}


class ArgumentError(UsageError):
    """The command line itself could not be parsed (unknown option, missing value...)."""


class NotEmpty(UsageError):
    """A migration's target already holds data for the user: ids are kept as they are, so
    it must start empty; nothing was written."""
