"""The semantic extra: embeddings, the blend, the confidence gate, the vector cache."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from pipeline import store
from pipeline.embeddings import Embedder, content_key, semantic_available, vectors_for
from pipeline.retrieval import Retriever
from pipeline.text import terms
from tests.helpers import candidate, invoke, keyless_env, make_settings, reflection, turn_env
from tests.llm_server import ScriptedLLM
from tests.strategies import memory

pytestmark = pytest.mark.skipif(
    not semantic_available(), reason="needs the semantic extra: pip install -e '.[semantic]'"
)

STORE = [
    memory("mem_0001", "User is allergic to peanuts"),
    memory("mem_0002", "User plays the cello in an orchestra"),
    memory("mem_0003", "User's sister Ana lives in Lisbon"),
    memory("mem_0004", "User works as a night-shift nurse"),
]


@pytest.fixture(scope="module")
def embedder() -> Embedder:
    return Embedder()


def test_vectors_are_unit_length_and_batch_independent(embedder: Embedder) -> None:
    """384 dimensions, L2-normalised, the same whether embedded alone or in a batch."""
    texts = ["A man is eating food.", "A man is eating a piece of bread.", "短句"]
    batch = embedder.embed(texts)
    alone = np.vstack([embedder.embed([t]) for t in texts])
    assert batch.shape == (3, 384)
    assert np.allclose(np.linalg.norm(batch, axis=1), 1.0, atol=1e-5)
    assert np.allclose(batch, alone, atol=1e-5)


def test_similar_sentences_score_higher(embedder: Embedder) -> None:
    """A paraphrase is closer than an unrelated sentence (all-MiniLM-L6-v2's known values)."""
    v = embedder.embed(
        [
            "A man is eating food.",
            "A man is eating a piece of bread.",
            "The girl is carrying a baby.",
        ]
    )
    assert v[0] @ v[1] > 0.7
    assert v[0] @ v[2] < 0.1


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("What city is my sibling in?", "mem_0003"),
        ("which musical instrument do I practise?", "mem_0002"),
        ("which nuts should I avoid?", "mem_0001"),
    ],
)
def test_paraphrases_are_found_without_shared_words(
    embedder: Embedder, query: str, expected: str
) -> None:
    """Queries that share no word with their memory still rank it first, by meaning."""
    assert not set(terms(query)) & {t for m in STORE for t in terms(m.content)}
    ranking = Retriever(embedder).index(STORE).rank(query)
    assert ranking.selection_mode == "semantic"
    assert ranking.scored[0].memory.id == expected


def test_unrelated_query_falls_back_deterministically(embedder: Embedder) -> None:
    """No shared word and every cosine at the level of unrelated text: the priority
    fallback orders, the same whatever the store's order."""
    ranking = Retriever(embedder).index(STORE).rank("quantum chromodynamics lecture notes")
    assert ranking.selection_mode == "fallback_priority"
    again = (
        Retriever(embedder)
        .index(list(reversed(STORE)))
        .rank("quantum chromodynamics lecture notes")
    )
    assert [s.memory.id for s in ranking.scored] == [s.memory.id for s in again.scored]


def test_empty_query_falls_back_without_embedding(embedder: Embedder) -> None:
    """A query with no words at all has no signal: fallback order, boundaries first."""
    store = [*STORE, memory("mem_0005", "Never discuss politics", type="boundary")]
    ranking = Retriever(embedder).index(store).rank(" ?! ")
    assert ranking.selection_mode == "fallback_priority"
    assert ranking.scored[0].memory.id == "mem_0005"


def test_low_cosine_still_ranks_by_meaning_not_by_type(embedder: Embedder) -> None:
    """A weak but real semantic match is used: a boundary does not jump ahead of the
    memory the question is about just because the best cosine is low."""
    store = [
        memory("mem_0001", "User does not want to talk about politics", type="boundary"),
        memory("mem_0002", "User prefers answers as short bullet points"),
        memory("mem_0003", "User keeps two beehives at the bottom of the garden"),
    ]
    ranking = Retriever(embedder).index(store).rank("How should you format your responses to me?")
    assert ranking.selection_mode == "semantic"
    assert ranking.scored[0].memory.id == "mem_0002"


@pytest.mark.parametrize(
    ("query", "answer", "trap"),
    [
        (
            "What charity work do I do?",
            "User volunteers at a food bank on Thursdays",
            "User works as a freelance translator",
        ),
        (
            "When is my sibling's wedding?",
            "User's brother Tomasz is getting married in June 2025",
            "User is a wedding photographer",
        ),
        (
            "What did my dad do for work?",
            "User's father Ken was a coal miner",
            "User works as a structural engineer",
        ),
    ],
)
def test_one_shared_word_does_not_overturn_a_better_cosine(
    embedder: Embedder, query: str, answer: str, trap: str
) -> None:
    """The trap shares one word with the question; the answer shares none but means it
    (the blend of cosine + 0.3 x BM25 / best BM25 ranked the trap first in all three)."""
    store = [memory("mem_0001", trap), memory("mem_0002", answer)]
    ranking = Retriever(embedder).index(store).rank(query)
    assert ranking.selection_mode == "semantic"
    assert ranking.scored[1].matched  # the trap did match a word
    assert ranking.scored[0].memory.content == answer


def test_rare_shared_words_still_add_to_the_score(embedder: Embedder) -> None:
    """A name the query shares is lexical evidence on top of the cosine: Ana's memory wins
    over a sister with another name."""
    store = [
        memory("mem_0001", "User's sister Ana lives in Lisbon"),
        memory("mem_0002", "User's sister Beatriz lives in Porto"),
    ]
    ranking = Retriever(embedder).index(store).rank("Where does Ana live?")
    assert ranking.scored[0].memory.id == "mem_0001"
    assert ranking.scored[0].score - ranking.scored[1].score > 0.3


def test_questions_about_me_prefer_facts_about_the_user(embedder: Embedder) -> None:
    """ "What do I do for work?" ranks the user's job over a relative's; a question about
    the sister does not get that preference, and the trace says which did."""
    store = [
        memory("mem_0001", "User's sister Clara works as a nurse in Glasgow", type="relationship"),
        memory("mem_0002", "User is a structural engineer", type="identity"),
    ]
    store[0].subject = "other"
    index = Retriever(embedder).index(store)
    mine = index.rank("What do I do for work?").scored
    assert mine[0].memory.id == "mem_0002"
    assert mine[0].about_user
    hers = index.rank("What does my sister do for work?").scored
    assert hers[0].memory.id == "mem_0001"
    assert not any(s.about_user for s in hers)


def test_cache_is_reused_and_invalidated_when_content_changes(embedder: Embedder) -> None:
    """Known texts are not embedded again; a changed text gets a new vector, the old goes."""
    texts = [m.content for m in STORE]
    _, cache, embedded = vectors_for(texts, embedder, {})
    assert embedded == 4
    _, again, embedded = vectors_for(texts, embedder, cache)
    assert embedded == 0
    assert again.keys() == cache.keys()
    changed = [*texts[:3], "User works as a day-shift nurse"]
    matrix, updated, embedded = vectors_for(changed, embedder, cache)
    assert embedded == 1
    assert content_key(texts[3]) not in updated
    assert np.allclose(matrix[3], embedder.embed([changed[3]])[0], atol=1e-5)


def test_vector_file_round_trips_and_bad_files_are_rebuilt(
    tmp_path: Path, embedder: Embedder
) -> None:
    """The cache file holds what was written; a corrupt or foreign one reads as empty."""
    paths = store.StatePaths(tmp_path / "state")
    _, cache, _ = vectors_for(["User likes tea"], embedder, {})
    store.write_vectors(paths, cache, embedder.model_id, lock_timeout=5)
    loaded = store.read_vectors(paths, embedder.model_id)
    assert loaded.keys() == cache.keys()
    assert store.read_vectors(paths, "another-model") == {}
    paths.vectors.write_bytes(b"not a zip file")
    assert store.read_vectors(paths, embedder.model_id) == {}


def test_semantic_turn_embeds_what_it_writes(llm: ScriptedLLM, state_dir: Path) -> None:
    """A written memory is embedded at once; the next turn finds it by meaning."""
    settings = make_settings(llm, state_dir, MEMTEST_RETRIEVER="semantic")
    from pipeline.turn import run_turn

    llm.reply("Noted.").reply(reflection(candidate("User plays the cello in an orchestra")))
    run_turn("I play cello in the city orchestra", settings)
    cached = store.read_vectors(store.StatePaths(state_dir), Embedder.model_id)
    assert content_key("User plays the cello in an orchestra") in cached

    llm.reply("The cello.").reply(reflection())
    report = run_turn("which musical instrument do I practise?", settings)
    assert report.selection_mode == "semantic"
    assert report.used[0].memory.content == "User plays the cello in an orchestra"
    assert "0 embedded now" in report.retrieval_notes[0]


def test_cli_trace_and_json_report_selection_mode(llm: ScriptedLLM, state_dir: Path) -> None:
    """--json carries selection_mode and each memory's cosine."""
    env = turn_env(llm, state_dir, MEMTEST_RETRIEVER="semantic")
    llm.reply("ok").reply(
        reflection(candidate("User's sister Ana lives in Lisbon", type="relationship"))
    )
    assert invoke("-i", "my sister Ana lives in Lisbon", env=env).returncode == 0
    llm.reply("Lisbon.").reply(reflection())
    result = invoke("-i", "What city is my sibling in?", "--json", env=env)
    payload = json.loads(result.stdout)
    assert payload["selection_mode"] == "semantic"
    assert payload["memories_used"][0]["cosine"] > 0.3


def test_every_command_that_writes_embeds_and_search_saves(state_dir: Path, tmp_path: Path) -> None:
    """add, import, restore and approve leave their vectors cached; a search after the
    cache was lost rebuilds it once and saves it, so the next search embeds nothing."""
    env = keyless_env(state_dir, MEMTEST_RETRIEVER="semantic")
    paths = store.StatePaths(state_dir)

    def cached() -> set[str]:
        return set(store.read_vectors(paths, Embedder.model_id))

    assert (
        invoke("memory", "add", "User plays the cello", "--type", "skill", env=env).returncode == 0
    )
    assert content_key("User plays the cello") in cached()
    lines = [
        {"type": "identity", "content": "User's sister Ana lives in Lisbon"},
        {"type": "habit", "content": "User swims every Friday morning"},
    ]
    dump = tmp_path / "in.jsonl"
    dump.write_text("\n".join(json.dumps(line) for line in lines))
    assert invoke("memory", "import", str(dump), env=env).returncode == 0
    assert {content_key(line["content"]) for line in lines} <= cached()

    assert invoke("memory", "forget", "mem_0002", env=env).returncode == 0
    paths.vectors.unlink()
    assert invoke("memory", "restore", "mem_0002", env=env).returncode == 0
    assert cached() == {content_key("User's sister Ana lives in Lisbon")}

    draft = memory("mem_0009", "User is learning Welsh").model_copy(update={"status": "draft"})

    def add_draft(disk: store.Snapshot) -> store.Change[None]:
        disk.ltm.memories.append(draft)
        return store.Change(result=None, ltm=disk.ltm)

    store.transact(paths, add_draft, now=draft.created_at, lock_timeout=5)
    assert invoke("memory", "approve", "mem_0009", env=env).returncode == 0
    assert content_key("User is learning Welsh") in cached()

    paths.vectors.unlink()
    found = invoke("memory", "search", "which musical instrument do I practise?", env=env)
    assert found.returncode == 0
    assert found.stdout.splitlines()[0].startswith("mem_0001")
    assert len(cached()) == 4
