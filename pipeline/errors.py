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
