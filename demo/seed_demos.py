"""Seed 000's acceptance demos, run as real CLI turns against a scripted local model.

  1. short-term continuity: a follow-up in the same session is answered from the earlier
     turn, which is in the prompt;
  2. long-term recall: in a new session, the same user's memory is in the prompt;
  3. isolation: a different user gets none of it.

The scripted model answers only from what its prompt contains, so each PASS shows what
the program put there. Prints PASS/FAIL per demo; exits 1 if any fails.

    python demo/seed_demos.py
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.llm_server import ScriptedLLM, Step, is_reflection, reply_step  # noqa: E402


def scripted_model(request: dict) -> Step:
    """Answers from the prompt alone; reflects "remember that I'm X" as "User is X"."""
    messages = request["messages"]
    if is_reflection(request):
        text = messages[-1]["content"].split("USER INPUT:", 1)[1].split("ASSISTANT RESPONSE:")[0]
        match = re.search(r"remember that i'?m ([^.?!\n]+)", text, re.IGNORECASE)
        candidates = (
            [
                {
                    "type": "identity",
                    "subject": "user",
                    "content": f"User is {match[1]}",
                    "confidence": 0.95,
                    "reason": "stated by the user",
                    "explicit": True,
                }
            ]
            if match
            else []
        )
        return reply_step(json.dumps({"candidates": candidates, "revisions": []}))
    prompt = "\n".join(m["content"] for m in messages[:-1])
    question = messages[-1]["content"].lower()
    if "name" in question and (dog := re.search(r"dog is called (\w+)", prompt)):
        return reply_step(f"Your dog is called {dog[1]}.")
    if "allergic" in question and (allergy := re.search(r"allergic to (\w+)", prompt)):
        return reply_step(f"You are allergic to {allergy[1]}.")
    return reply_step("I don't know that yet.")


def turn(url: str, state: Path, text: str, *extra: str) -> dict:
    env = {
        "PATH": os.environ.get("PATH", ""),
        "PYTHONPATH": str(ROOT),
        "MOONSHOT_API_KEY": "sk-demo",
        "MEMTEST_BASE_URL": url,
        "MEMTEST_STATE_DIR": str(state),
        "MEMTEST_ENV_FILE": str(state.parent / "demo.env"),
        "MEMTEST_RETRIEVER": "lexical",
    }
    result = subprocess.run(
        [sys.executable, str(ROOT / "memory_test.py"), "-i", text, "--json", *extra],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    if result.returncode != 0:
        raise SystemExit(f"turn failed: {result.stderr}")
    return json.loads(result.stdout)


def main() -> int:
    results = []
    with tempfile.TemporaryDirectory() as tmp, ScriptedLLM(responder=scripted_model) as llm:
        state = Path(tmp) / "state"
        (Path(tmp) / "demo.env").write_text("")

        turn(llm.url, state, "My dog is called Rex.", "--user", "sam")
        answer = turn(llm.url, state, "What is my dog's name?", "--user", "sam")
        results.append(
            (
                "1 short-term continuity (same session)",
                "Rex" in answer["response"],
                answer["response"],
            )
        )

        turn(llm.url, state, "Please remember that I'm allergic to peanuts.", "--user", "sam")
        answer = turn(llm.url, state, "What am I allergic to?", "--user", "sam", "--new-session")
        recalled = "peanuts" in answer["response"] and any(
            "peanuts" in m["content"] for m in answer["memories_used"]
        )
        results.append(
            ("2 long-term recall (new session, same user)", recalled, answer["response"])
        )

        before = len(llm.requests)
        answer = turn(llm.url, state, "What am I allergic to?", "--user", "alex")
        leaked = "peanuts" in json.dumps(llm.requests[before:]) or answer["memories_used"]
        results.append(("3 isolation (different user)", not leaked, answer["response"]))

    for name, passed, said in results:
        print(f"{'PASS' if passed else 'FAIL'}  {name}: {said!r}")
    return 0 if all(passed for _, passed, _ in results) else 1


if __name__ == "__main__":
    sys.exit(main())
