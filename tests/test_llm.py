"""The real openai client against the scripted server: retries, errors, request shape."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from pipeline.errors import LLMConfigError, LLMError
from pipeline.llm import ChatModel
from tests.helpers import make_settings
from tests.llm_server import ScriptedLLM

HELLO = [{"role": "user", "content": "hello"}]


@pytest.fixture
def model(llm: ScriptedLLM, state_dir: Path) -> Iterator[Callable[..., ChatModel]]:
    """Build ChatModels against the scripted server; all are closed after the test."""
    built: list[ChatModel] = []

    def build(**extra: str) -> ChatModel:
        built.append(ChatModel(make_settings(llm, state_dir, **extra)))
        return built[-1]

    yield build
    for chat_model in built:
        chat_model.close()


def test_429_then_success_is_retried(model: Callable[..., ChatModel], llm: ScriptedLLM) -> None:
    """A rate limit is retried and the second reply is used."""
    llm.error(429, "rate_limit_reached_error").reply("hi")
    completion = model().complete(HELLO)
    assert (completion.text, completion.attempts, len(llm.requests)) == ("hi", 2, 2)


def test_overloaded_engine_is_retried(model: Callable[..., ChatModel], llm: ScriptedLLM) -> None:
    """engine_overloaded_error (429) is transient too."""
    llm.error(429, "engine_overloaded_error").error(503, "server_error").reply("ok")
    assert model().complete(HELLO).attempts == 3


def test_5xx_exhaustion_stops_at_the_attempt_cap(
    model: Callable[..., ChatModel], llm: ScriptedLLM
) -> None:
    """Server errors are retried up to MEMTEST_MAX_ATTEMPTS, then reported with the count."""
    for _ in range(5):
        llm.error(500, "server_error", "boom")
    with pytest.raises(LLMError, match="after 3 attempts") as info:
        model(MEMTEST_MAX_ATTEMPTS="3").complete(HELLO)
    assert len(llm.requests) == 3
    assert info.value.exit_code == 1
    assert info.value.status == 500


def test_total_retry_time_is_capped(model: Callable[..., ChatModel], llm: ScriptedLLM) -> None:
    """Retries stop when the next wait would pass MEMTEST_RETRY_MAX_SECONDS."""
    for _ in range(10):
        llm.error(503, "server_error", headers={"retry-after": "1"})
    with pytest.raises(LLMError):
        model(
            MEMTEST_MAX_ATTEMPTS="10",
            MEMTEST_RETRY_MAX_WAIT="1",
            MEMTEST_RETRY_MAX_SECONDS="1.5",
        ).complete(HELLO)
    assert 2 <= len(llm.requests) <= 3


def test_quota_exhaustion_is_not_retried(model: Callable[..., ChatModel], llm: ScriptedLLM) -> None:
    """exceeded_current_quota_error means no balance: one request, a message that says so."""
    llm.error(429, "exceeded_current_quota_error", "Your account is suspended").reply("never")
    with pytest.raises(LLMError, match="out of balance"):
        model().complete(HELLO)
    assert len(llm.requests) == 1


def test_bad_key_is_a_configuration_error(
    model: Callable[..., ChatModel], llm: ScriptedLLM
) -> None:
    """401 is not retried and tells the user to check MOONSHOT_API_KEY (exit code 2)."""
    llm.error(401, "invalid_authentication_error", "Invalid Authentication")
    with pytest.raises(LLMConfigError, match="MOONSHOT_API_KEY") as info:
        model().complete(HELLO)
    assert len(llm.requests) == 1
    assert info.value.exit_code == 2


def test_unknown_model_names_the_variable(
    model: Callable[..., ChatModel], llm: ScriptedLLM
) -> None:
    """404 resource_not_found_error says which model and that MEMTEST_MODEL sets it."""
    llm.error(404, "resource_not_found_error", "Not found the model kimi-k9")
    with pytest.raises(LLMConfigError, match=r"'kimi-k9'.*MEMTEST_MODEL"):
        model(MEMTEST_MODEL="kimi-k9").complete(HELLO)


@pytest.mark.parametrize(
    ("error_type", "text"),
    [
        ("invalid_request_error", "refused the request"),
        ("content_filter", "content filter"),
    ],
)
def test_bad_request_is_not_retried(
    model: Callable[..., ChatModel], llm: ScriptedLLM, error_type: str, text: str
) -> None:
    """400s are reported at once with the server's message."""
    llm.error(400, error_type, "Invalid request: your request exceeded model token limit")
    with pytest.raises(LLMError, match=text) as info:
        model().complete(HELLO)
    assert len(llm.requests) == 1
    assert "token limit" in str(info.value)


def test_timeout_is_retried_then_reported(
    model: Callable[..., ChatModel], llm: ScriptedLLM
) -> None:
    """A server slower than MEMTEST_TIMEOUT is retried, then reported as a timeout."""
    llm.reply("late", delay=1.0).reply("late", delay=1.0)
    with pytest.raises(LLMError, match=r"did not answer within 0\.3 s"):
        model(MEMTEST_TIMEOUT="0.3", MEMTEST_MAX_ATTEMPTS="2").complete(HELLO)
    assert len(llm.requests) == 2


def _nothing_listening(state_dir: Path) -> ChatModel:
    """A model whose server has gone: two attempts, no wait between them."""
    with ScriptedLLM() as dead:
        url = dead.url
    from pipeline.config import load_settings

    settings = load_settings(
        environ={
            "MOONSHOT_API_KEY": "sk-test",
            "MEMTEST_BASE_URL": url,
            "MEMTEST_RETRY_MAX_WAIT": "0",
            "MEMTEST_MAX_ATTEMPTS": "2",
            "MEMTEST_STATE_DIR": str(state_dir),
        }
    )
    return ChatModel(settings)


def test_connection_refused_is_reported(state_dir: Path) -> None:
    """Nothing listening: retried, then a message naming the host and MEMTEST_BASE_URL."""
    with (
        _nothing_listening(state_dir) as chat_model,
        pytest.raises(LLMError, match="Could not connect"),
    ):
        chat_model.complete(HELLO)


def test_kimi_request_disables_thinking_and_sends_no_sampling(
    model: Callable[..., ChatModel], llm: ScriptedLLM
) -> None:
    """For kimi-k2.6: thinking disabled, JSON mode when asked, no temperature/top_p/n."""
    llm.reply("{}")
    model().complete(HELLO, json_mode=True)
    request = llm.requests[0]
    assert request["model"] == "kimi-k2.6"
    assert request["thinking"] == {"type": "disabled"}
    assert request["response_format"] == {"type": "json_object"}
    assert not {"temperature", "top_p", "n"} & request.keys()
    assert request["_auth"] == "Bearer sk-test-not-a-real-key"


def test_other_models_get_no_thinking_parameter(
    model: Callable[..., ChatModel], llm: ScriptedLLM
) -> None:
    """A non-Kimi model on another server is sent only standard parameters."""
    llm.reply("hi")
    model(MEMTEST_MODEL="llama3.1").complete(HELLO)
    assert "thinking" not in llm.requests[0]


def test_streamed_reply_arrives_in_pieces_and_whole(
    model: Callable[..., ChatModel], llm: ScriptedLLM
) -> None:
    """With on_delta the request streams, every piece is passed on in order, and the
    completion holds the whole text and the usage."""
    text = "Streaming sends the answer a few words at a time to the terminal."
    llm.reply(text)
    pieces: list[str] = []
    completion = model().complete(HELLO, on_delta=pieces.append)
    assert llm.requests[0]["stream"] is True
    assert len(pieces) > 2
    assert "".join(pieces) == completion.text == text
    assert completion.usage["total_tokens"] == 18


def test_stream_failing_before_any_text_is_retried(
    model: Callable[..., ChatModel], llm: ScriptedLLM
) -> None:
    """A 429 before the stream starts is retried as for a plain call; nothing was shown."""
    llm.error(429, "rate_limit_reached_error").reply("second try")
    pieces: list[str] = []
    completion = model().complete(HELLO, on_delta=pieces.append)
    assert (completion.text, completion.attempts, "".join(pieces)) == (
        "second try",
        2,
        "second try",
    )


def test_stream_that_breaks_off_is_a_failed_call_not_retried(
    model: Callable[..., ChatModel], llm: ScriptedLLM
) -> None:
    """A stream that drops after some text fails the call (a retry would show the text
    twice), and the message says how much had arrived."""
    llm.cut_stream("one two three four five six seven eight nine ten", after=2).reply("unused")
    pieces: list[str] = []
    with pytest.raises(LLMError, match="broke off after 28 characters"):
        model().complete(HELLO, on_delta=pieces.append)
    assert "".join(pieces) == "one two three four five six "
    assert len(llm.requests) == 1


def _server_has(llm: ScriptedLLM, count: int) -> bool:
    """Whether the server has received `count` requests within five seconds."""
    deadline = time.monotonic() + 5
    while len(llm.requests) < count and time.monotonic() < deadline:
        time.sleep(0.005)
    return len(llm.requests) >= count


@pytest.mark.parametrize("stream", [False, True])
def test_work_while_waiting_runs_once_the_request_is_out(
    model: Callable[..., ChatModel], llm: ScriptedLLM, stream: bool
) -> None:
    """`while_waiting` work runs when the server has the request and before its reply
    arrives (the client waits in it, so run before sending it would wait in vain), and once:
    the next call does not run it again."""
    llm.reply("first").reply("second")
    chat_model = model()
    seen: list[tuple[bool, str]] = []
    pieces: list[str] = []
    chat_model.while_waiting(lambda: seen.append((_server_has(llm, 1), "".join(pieces))))
    assert seen == []
    chat_model.complete(HELLO, on_delta=pieces.append if stream else None)
    chat_model.complete(HELLO)
    assert seen == [(True, "")]


def test_work_while_waiting_is_not_run_by_a_request_never_sent(state_dir: Path) -> None:
    """With nothing listening the process never waits for a reply, so the work does not
    run; it would run with the next request that is answered."""
    seen: list[str] = []
    with _nothing_listening(state_dir) as chat_model:
        chat_model.while_waiting(lambda: seen.append("ran"))
        with pytest.raises(LLMError, match="Could not connect"):
            chat_model.complete(HELLO)
    assert seen == []
