"""What a model is told about unavailable connectors reads as one sentence (issue 16, item 4: ``output)..``)."""

from __future__ import annotations

from codemode_kernel import ToolSetConnector
from codemode_kernel.connectors.unavailable import unavailable_note
from codemode_kernel.wording import sentence


def ping() -> str:
    """Ping."""
    return "pong"


def test_a_summary_with_its_own_full_stop_is_not_stopped_twice() -> None:
    down = ToolSetConnector([ping], name="down")
    down.failure_summary = "its server did not start (see its output)."
    note = unavailable_note({"down": "secret details", "gone": "more"}, {"down": down})
    assert note == ("Note: connector 'down' is unavailable: its server did not start (see its output); "
                    "connector 'gone' is unavailable: its methods could not be listed; the notebook's author "
                    "can see the details with %connectors.")
    assert "secret details" not in note and ".." not in note and ".;" not in note


def test_sentence_adds_a_full_stop_only_where_one_is_missing() -> None:
    assert sentence("it stopped (see its output)") == "it stopped (see its output)."
    assert sentence("it stopped (see its output).") == "it stopped (see its output)."
    assert sentence("Is it on?") == "Is it on?"
    assert sentence("  done.  ") == "done."
    assert sentence("") == ""
