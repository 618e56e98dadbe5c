"""Short-term memory: appending turns, folding old ones into the summary, the hard cap."""

from __future__ import annotations

from pipeline.models import SessionFile
from pipeline.session import Fold, leaving_turns, new_session, record_turn, turn_ids
from tests.strategies import NOW


def add(session: SessionFile, n: int, *, fold: Fold | None = None, max_turns: int = 3):
    return record_turn(
        session,
        turn_id=f"t{n}",
        user_input=f"q{n}",
        answer=f"a{n}",
        started=NOW,
        answered=NOW,
        fold=fold,
        max_turns=max_turns,
    )


def session_with(turns: int) -> SessionFile:
    session = new_session(NOW)
    for n in range(turns):
        session = add(session, n, max_turns=100).session
    return session


def test_turn_is_appended_as_user_then_assistant() -> None:
    """A turn is two messages sharing a turn id."""
    recorded = add(new_session(NOW), 1)
    assert [(m.role, m.content, m.turn_id) for m in recorded.session.messages] == [
        ("user", "q1", "t1"),
        ("assistant", "a1", "t1"),
    ]


def test_leaving_turns_are_the_oldest_beyond_the_window() -> None:
    """With three turns kept and three stored, the next turn pushes out the oldest."""
    assert leaving_turns(session_with(3), 3) == ["t0"]
    assert leaving_turns(session_with(2), 3) == []


def test_fold_replaces_old_turns_with_the_summary() -> None:
    """A summary written for the leaving turns replaces them."""
    session = session_with(3)
    fold = Fold(turn_ids=("t0",), base_summary="", summary="They talked about q0.")
    recorded = add(session, 3, fold=fold)
    assert turn_ids(recorded.session) == ["t1", "t2", "t3"]
    assert recorded.session.session_summary == "They talked about q0."
    assert recorded.folded == 1


def test_fold_is_skipped_when_the_summary_changed_meanwhile() -> None:
    """If another process already changed the summary, nothing is folded and nothing lost."""
    session = session_with(3).model_copy(update={"session_summary": "newer summary"})
    fold = Fold(turn_ids=("t0",), base_summary="", summary="stale")
    recorded = add(session, 3, fold=fold)
    assert turn_ids(recorded.session) == ["t0", "t1", "t2", "t3"]
    assert recorded.session.session_summary == "newer summary"


def test_without_summaries_the_window_is_capped_and_what_leaves_is_archived() -> None:
    """Turns are kept verbatim until 2x the window; the oldest then leave the session and
    are handed back whole for the archive, not dropped."""
    session = new_session(NOW)
    archived = []
    for n in range(10):
        recorded = add(session, n)
        session, archived = recorded.session, archived + recorded.archived
    assert turn_ids(session) == ["t4", "t5", "t6", "t7", "t8", "t9"]
    assert [m.turn_id for m in archived] == ["t0", "t0", "t1", "t1", "t2", "t2", "t3", "t3"]
    assert [m.role for m in archived[:2]] == ["user", "assistant"]
