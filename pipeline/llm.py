"""The model behind the turn: one OpenAI-compatible chat call, retried by tenacity.

`openai` is imported here and only when a client is built, so commands that never call
the model do not pay for the import. The SDK's own retries are off: tenacity retries
connection errors, timeouts, 429s that are not an exhausted balance, and 5xx — nothing
else — with jittered exponential backoff, capped in attempts and in total time.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypedDict

from .config import Settings, require_api_key
from .errors import LLMConfigError, LLMError

if TYPE_CHECKING:
    from tenacity import RetryCallState

QUOTA_EXHAUSTED = "exceeded_current_quota_error"


class _ErrorInfo(TypedDict):
    """What every LLMError carries besides its message."""

    status: int | None
    error_type: str | None
    request_id: str | None
    attempts: int


@dataclass
class Completion:
    text: str
    attempts: int
    seconds: float
    usage: dict[str, int] = field(default_factory=dict)


class ChatModel:
    """A configured client for one endpoint and model."""

    def __init__(self, settings: Settings) -> None:
        api_key = require_api_key(settings)  # before the slow import, so it fails fast
        from openai import DefaultHttpxClient, OpenAI

        self.settings = settings
        self._while_waiting: list[Callable[[], None]] = []
        self._client = OpenAI(
            api_key=api_key,
            base_url=settings.base_url,
            timeout=settings.timeout,
            max_retries=0,
            http_client=DefaultHttpxClient(event_hooks={"request": [self._watch]}),
        )

    def while_waiting(self, work: Callable[[], None]) -> None:
        """Call `work` once, when the next request has been sent and the process begins to
        wait for the reply: what it starts then (a background thread) runs during the model's
        time instead of delaying the request. A request that is never sent never calls it."""
        self._while_waiting.append(work)

    def _watch(self, request: Any) -> None:
        """httpx's request hook: ask the transport to say when it starts waiting."""
        if self._while_waiting:
            request.extensions["trace"] = self._trace

    def _trace(self, event: str, _info: dict[str, Any]) -> None:
        if event.endswith("receive_response_headers.started"):
            work, self._while_waiting = self._while_waiting, []
            for each in work:
                each()

    def close(self) -> None:
        """Close the HTTP connections."""
        self._client.close()

    def __enter__(self) -> ChatModel:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def complete(
        self,
        messages: list[dict[str, str]],
        *,
        json_mode: bool = False,
        on_delta: Callable[[str], None] | None = None,
    ) -> Completion:
        """One chat completion; raise LLMError (or LLMConfigError) when it fails for good.

        With `on_delta` the reply is streamed and each piece of text is passed to it as it
        arrives. Failures before the first piece are retried as usual; once text has been
        shown a retry would show it twice, so a stream that breaks is a failed call.
        """
        from tenacity import (
            Retrying,
            retry_if_exception,
            stop_after_attempt,
            stop_before_delay,
        )

        kwargs: dict[str, Any] = {"model": self.settings.model, "messages": messages}
        if json_mode:
            kwargs["response_format"] = {"type": "json_object"}
        if self.settings.thinking_disabled():
            kwargs["extra_body"] = {"thinking": {"type": "disabled"}}
        elif self.settings.thinking == "enabled":
            kwargs["extra_body"] = {"thinking": {"type": "enabled"}}

        retrying = Retrying(
            retry=retry_if_exception(is_transient),
            stop=stop_after_attempt(self.settings.max_attempts)
            | stop_before_delay(self.settings.retry_max_seconds),
            wait=self._wait,
            reraise=True,
        )
        started = time.monotonic()
        if on_delta is not None:
            kwargs["stream"] = True
            kwargs["stream_options"] = {"include_usage": True}
        shown: list[str] = []
        try:
            for attempt in retrying:
                with attempt:
                    response = self._client.chat.completions.create(**kwargs)
                    if on_delta is not None:
                        return self._read_stream(response, on_delta, shown, retrying, started)
        except _StreamBroken as exc:
            raise LLMError(
                f"The answer from {self.settings.endpoint_host} broke off after "
                f"{len(''.join(shown))} characters ({exc}); nothing was saved.",
                attempts=retrying.statistics.get("attempt_number", 1),
            ) from exc
        except Exception as exc:
            attempts = retrying.statistics.get("attempt_number", 1)
            raise self._explain(exc, attempts, time.monotonic() - started) from exc

        attempts = retrying.statistics.get("attempt_number", 1)
        choices = getattr(response, "choices", None) or []
        text = (choices[0].message.content or "") if choices else ""
        return Completion(
            text=text, attempts=attempts, seconds=time.monotonic() - started, usage=_usage(response)
        )

    def _read_stream(
        self,
        stream: Any,
        on_delta: Callable[[str], None],
        shown: list[str],
        retrying: Any,
        started: float,
    ) -> Completion:
        """Pass each piece of a streamed reply to `on_delta`; the whole reply at the end."""
        usage: dict[str, int] = {}
        finished = False
        try:
            for chunk in stream:
                usage |= _usage(chunk)
                for choice in chunk.choices or []:
                    piece = getattr(choice.delta, "content", None) or ""
                    if piece:
                        shown.append(piece)
                        on_delta(piece)
                    finished = finished or choice.finish_reason is not None
        except Exception as exc:
            if not shown:
                raise  # nothing shown yet: retried like any failed call
            raise _StreamBroken(f"{type(exc).__name__}: {exc}") from exc
        finally:
            stream.close()
        if not finished:
            if not shown:
                raise _StreamBroken("the stream ended before any text")
            raise _StreamBroken("the stream ended before the model finished")
        return Completion(
            text="".join(shown),
            attempts=retrying.statistics.get("attempt_number", 1),
            seconds=time.monotonic() - started,
            usage=usage,
        )

    def _wait(self, state: RetryCallState) -> float:
        """Jittered exponential backoff, at least a 429's Retry-After, capped by config."""
        cap = self.settings.retry_max_wait
        if cap <= 0:
            return 0.0
        attempt: int = state.attempt_number
        backoff = min(cap, 2.0 ** (attempt - 1)) * random.uniform(0.5, 1.0)
        exc = state.outcome.exception() if state.outcome else None
        retry_after = _retry_after_seconds(exc)
        return min(cap, max(backoff, retry_after or 0.0))

    def _explain(self, exc: BaseException, attempts: int, seconds: float) -> LLMError:
        import openai

        host, model = self.settings.endpoint_host, self.settings.model
        tries = f" after {attempts} attempts over {seconds:.1f} s" if attempts > 1 else ""
        status = getattr(exc, "status_code", None)
        kind = getattr(exc, "type", None)
        request_id = getattr(exc, "request_id", None)
        detail = _server_message(exc)
        info: _ErrorInfo = {
            "status": status,
            "error_type": kind,
            "request_id": request_id,
            "attempts": attempts,
        }

        if isinstance(exc, openai.AuthenticationError | openai.PermissionDeniedError):
            return LLMConfigError(
                f"{host} rejected the API key ({status} {kind or ''}: {detail}). Check "
                "MOONSHOT_API_KEY in .env; keys from platform.moonshot.ai work only on "
                "api.moonshot.ai and keys from platform.moonshot.cn only on api.moonshot.cn.",
                **info,
            )
        if isinstance(exc, openai.NotFoundError):
            return LLMConfigError(
                f"Model {model!r} was not found at {host} ({status} {kind or ''}: {detail}). "
                "Set MEMTEST_MODEL to a model this endpoint serves (default kimi-k2.6), "
                "and check MEMTEST_BASE_URL.",
                **info,
            )
        if isinstance(exc, openai.RateLimitError) and kind == QUOTA_EXHAUSTED:
            return LLMError(
                f"The account behind MOONSHOT_API_KEY is out of balance at {host} "
                f"({kind}: {detail}). Top it up; this is not retried.",
                **info,
            )
        if isinstance(exc, openai.RateLimitError):
            return LLMError(
                f"{host} kept rate-limiting the request{tries} ({kind}: {detail}).", **info
            )
        if isinstance(exc, openai.BadRequestError):
            hint = ""
            if "context" in detail.lower() or "token" in detail.lower():
                hint = " Start a new session (--new-session) or lower MEMTEST_MEMORY_TOKEN_BUDGET."
            if kind == "content_filter":
                return LLMError(f"{host}'s content filter refused the request: {detail}", **info)
            return LLMError(
                f"{host} refused the request (400 {kind or ''}: {detail}).{hint}", **info
            )
        if isinstance(exc, openai.InternalServerError):
            return LLMError(
                f"{host} had a server error ({status} {kind or ''}: {detail}){tries}.", **info
            )
        if isinstance(exc, openai.APITimeoutError):
            return LLMError(
                f"{host} did not answer within {self.settings.timeout:g} s{tries} "
                "(MEMTEST_TIMEOUT).",
                **info,
            )
        if isinstance(exc, openai.APIConnectionError):
            return LLMError(
                f"Could not connect to {host}{tries}: {exc}. Check MEMTEST_BASE_URL "
                "and your network.",
                **info,
            )
        if isinstance(exc, openai.APIStatusError):
            return LLMError(f"{host} answered {status} {kind or ''}: {detail}", **info)
        return LLMError(f"The call to {host} failed: {type(exc).__name__}: {exc}", **info)


def _usage(reply: Any) -> dict[str, int]:
    """The token counts a reply (or the last chunk of a stream) carries, if any."""
    usage = getattr(reply, "usage", None)
    if usage is None:
        return {}
    counts = {
        k: getattr(usage, k, None) for k in ("prompt_tokens", "completion_tokens", "total_tokens")
    }
    return {k: v for k, v in counts.items() if isinstance(v, int)}


class _StreamBroken(Exception):
    """A streamed reply stopped after part of it was shown."""


def is_transient(exc: BaseException) -> bool:
    """Worth another attempt: connection trouble, timeouts, 429 (not quota), 5xx."""
    import openai

    if isinstance(exc, openai.APIConnectionError):  # includes APITimeoutError
        return True
    if isinstance(exc, openai.RateLimitError):
        return getattr(exc, "type", None) != QUOTA_EXHAUSTED
    return isinstance(exc, openai.APIStatusError) and exc.status_code >= 500


def _retry_after_seconds(exc: BaseException | None) -> float | None:
    response = getattr(exc, "response", None)
    value = response.headers.get("retry-after") if response is not None else None
    try:
        return float(value) if value is not None else None
    except ValueError:
        return None


def _server_message(exc: BaseException) -> str:
    body = getattr(exc, "body", None)
    if isinstance(body, dict) and isinstance(body.get("message"), str):
        return str(body["message"])
    return str(getattr(exc, "message", exc))
