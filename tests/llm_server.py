"""A scripted OpenAI-compatible chat server on 127.0.0.1, for tests and benchmarks.

Steps are queued (`reply`, `error`, `raw`, each optionally delayed) and served in order;
when the queue is empty a `responder` function, if set, answers from the request itself.
Every request body is recorded in `requests`. A request with `"stream": true` gets a
reply as server-sent events, a few words per chunk; `cut_stream` scripts a stream whose
connection drops after some chunks.
"""

from __future__ import annotations

import contextlib
import json
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Step:
    status: int = 200
    body: bytes = b""
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0
    # For a streamed reply: drop the connection after this many content chunks.
    cut_after: int | None = None


def completion_body(text: str, *, prompt_tokens: int = 11, completion_tokens: int = 7) -> bytes:
    return json.dumps(
        {
            "id": "chatcmpl-test",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": "scripted",
            "choices": [
                {
                    "index": 0,
                    "finish_reason": "stop",
                    "message": {"role": "assistant", "content": text},
                }
            ],
            "usage": {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion_tokens,
                "total_tokens": prompt_tokens + completion_tokens,
            },
        }
    ).encode()


def reply_step(text: str, *, delay: float = 0.0) -> Step:
    return Step(200, completion_body(text), {"content-type": "application/json"}, delay)


def error_step(
    status: int,
    error_type: str,
    message: str = "scripted error",
    *,
    headers: dict[str, str] | None = None,
    delay: float = 0.0,
) -> Step:
    body = json.dumps({"error": {"type": error_type, "message": message}}).encode()
    return Step(status, body, {"content-type": "application/json", **(headers or {})}, delay)


def stream_events(step: Step) -> list[bytes]:
    """A 200 completion body as the server-sent events of a streamed reply: the text a few
    words per chunk, then the finish reason, the usage and `[DONE]`."""
    body = json.loads(step.body)
    text = body["choices"][0]["message"]["content"]
    words = text.split(" ")
    pieces = [" ".join(words[i : i + 3]) + " " for i in range(0, len(words), 3)]
    pieces[-1] = pieces[-1][:-1]

    def chunk(delta: dict[str, Any], finish: str | None = None, **extra: Any) -> bytes:
        event = {
            "id": "chatcmpl-test",
            "object": "chat.completion.chunk",
            "created": body["created"],
            "model": "scripted",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
            **extra,
        }
        return b"data: " + json.dumps(event).encode() + b"\n\n"

    events = [chunk({"role": "assistant", "content": ""})]
    events += [chunk({"content": piece}) for piece in pieces]
    if step.cut_after is not None:
        return events[: step.cut_after + 1]
    events.append(chunk({}, "stop"))
    usage = {"id": "chatcmpl-test", "object": "chat.completion.chunk", "created": 0}
    usage |= {"model": "scripted", "choices": [], "usage": body["usage"]}
    events.append(b"data: " + json.dumps(usage).encode() + b"\n\n")
    events.append(b"data: [DONE]\n\n")
    return events


def is_reflection(request: dict[str, Any]) -> bool:
    """The reflection call is the one in JSON mode."""
    return request.get("response_format", {}).get("type") == "json_object"


class ScriptedLLM:
    """Start with `with ScriptedLLM() as server:`; point clients at `server.url`."""

    def __init__(self, responder: Callable[[dict[str, Any]], Step] | None = None) -> None:
        self.steps: deque[Step] = deque()
        self.requests: list[dict[str, Any]] = []
        self.responder = responder
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def __enter__(self) -> ScriptedLLM:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    # --- scripting ------------------------------------------------------------------------

    def reply(self, text: str, *, delay: float = 0.0) -> ScriptedLLM:
        self.steps.append(reply_step(text, delay=delay))
        return self

    def reply_json(self, data: object) -> ScriptedLLM:
        return self.reply(json.dumps(data))

    def error(
        self,
        status: int,
        error_type: str,
        message: str = "scripted error",
        *,
        headers: dict[str, str] | None = None,
        delay: float = 0.0,
    ) -> ScriptedLLM:
        self.steps.append(error_step(status, error_type, message, headers=headers, delay=delay))
        return self

    def cut_stream(self, text: str, *, after: int) -> ScriptedLLM:
        """A streamed reply whose connection drops after `after` content chunks."""
        step = reply_step(text)
        step.cut_after = after
        self.steps.append(step)
        return self

    def raw(self, status: int, body: str, content_type: str = "application/json") -> ScriptedLLM:
        self.steps.append(Step(status, body.encode(), {"content-type": content_type}))
        return self

    def _next_step(self, request: dict[str, Any]) -> Step:
        with self._lock:
            self.requests.append(request)
            if self.steps:
                return self.steps.popleft()
        if self.responder is not None:
            return self.responder(request)
        return error_step(500, "server_error", "the test script has no reply left")

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length", 0))
                raw = self.rfile.read(length)
                try:
                    request = json.loads(raw or b"{}")
                except json.JSONDecodeError:
                    request = {"_raw": raw.decode(errors="replace")}
                request["_path"] = self.path
                request["_auth"] = self.headers.get("authorization", "")
                step = server._next_step(request)
                if step.delay:
                    time.sleep(step.delay)
                if request.get("stream") and step.status == 200:
                    self._stream(step)
                    return
                with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                    self.send_response(step.status)
                    for key, value in step.headers.items():
                        self.send_header(key, value)
                    self.send_header("content-length", str(len(step.body)))
                    self.end_headers()
                    self.wfile.write(step.body)

            def _stream(self, step: Step) -> None:
                events = stream_events(step)
                with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                    self.send_response(200)
                    self.send_header("content-type", "text/event-stream")
                    self.send_header("connection", "close")
                    self.end_headers()
                    for event in events:
                        self.wfile.write(event)
                        self.wfile.flush()
                self.close_connection = True

            def log_message(self, format: str, *args: object) -> None:
                pass

        return Handler
