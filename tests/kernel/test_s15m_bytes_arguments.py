"""A waiting call's bytes arguments are shown as a person reads them (session 14's closing note).

The card, the console's approval summary and the panel showed a bytes argument as the journal
codec's tag with base64 (``{"$codemode": "bytes", "v": "JVBERi0xLjcK..."}``), and ``%pending``
as ``<15 bytes>``: nothing a person deciding on the call can read. Each now shows Python's
``b'...'`` (non-printable bytes as escapes) with the length, and cuts a long value with a note.
"""

from __future__ import annotations

import base64
import textwrap
from collections.abc import Iterator

import pytest

from codemode_kernel.kernel.display import pending_summary
from codemode_kernel.kernel.panel_messages import pending_action, value_text
from codemode_kernel.kernel.widgets import CardActions, ExecutionCard
from codemode_kernel.models import PendingAction
from tests.kernel.kernel_harness import Kernel, write_notebook_dir
from tests.panel.test_kernel_panel import PanelClient

DATA = b"%PDF-1.7\n\x00\xff\x1b[2J tail"
SHOWN = r"b'%PDF-1.7\n\x00\xff\x1b[2J tail' (20 bytes)"
TAGGED = {"$codemode": "bytes", "v": base64.b64encode(DATA).decode()}
LONG = b"A" * 150 + b"\x00" * 4_850

FILES = textwrap.dedent('''
    from codemode_kernel import ToolSetConnector


    def upload(data: bytes, name: str) -> int:
        """Store a file."""
        return len(data)


    files = ToolSetConnector([upload], name="files", requires_approval={"upload"})
''')


def _card_text(args: dict[str, object]) -> str:
    card = ExecutionCard("01ABC", CardActions(approve_call=lambda seq: None, approve_calls=lambda shown: None,
                                              reject=lambda seq: None, rollback=lambda: None,
                                              save_snippet=lambda n, d: None))
    card.show_pending([{"seq": 0, "connector": "files", "method": "upload", "args": args}])
    return "".join(str(getattr(w, "value", "")) for row in card.pending_box.children
                   for box in row.children for w in getattr(box, "children", (box,)))


def test_the_card_shows_bytes_readably() -> None:
    """It is an error if the card shows a bytes argument as the codec's base64 tag."""
    import html

    text = html.unescape(_card_text({"data": TAGGED, "name": "a.pdf"}))
    assert SHOWN in text, text
    assert TAGGED["v"] not in text and "$codemode" not in text
    assert '"name": "a.pdf"' in text  # the rest is the JSON it was


def test_a_long_bytes_value_is_cut_with_a_note() -> None:
    """It is an error if a long bytes argument is shown whole as escapes, or cut without saying so."""
    text = pending_summary("01ABC", [{"seq": 0, "connector": "files", "method": "upload",
                                      "args": {"data": {"$codemode": "bytes", "v": base64.b64encode(LONG).decode()}}}])
    assert "b'" + "A" * 150 + "\\x00" * 50 + "'… (the first 200 of 5,000 bytes)" in text, text
    assert len(text) < 2_000


def test_a_program_dict_that_looks_like_a_tag_stays_a_dict() -> None:
    """It is an error if a dict the program wrote (escaped by the codec) is shown as bytes."""
    escaped = {"$codemode": "dict", "v": TAGGED}
    summary = pending_summary("01ABC", [{"seq": 0, "connector": "files", "method": "upload", "args": {"x": escaped}}])
    assert "bytes)" not in summary
    assert TAGGED["v"] in summary


def test_the_panel_shows_bytes_readably() -> None:
    """It is an error if the panel's text of a pending call's arguments shows the base64 tag."""
    action = PendingAction(execution_id="01ABC", seq=0, connector="files", method="upload",
                           args={"data": DATA, "name": "a.pdf"})
    args = pending_action(action)["args"]
    assert SHOWN in args["text"] and SHOWN in args["summary"], args
    assert TAGGED["v"] not in args["text"]
    assert "A" * 150 in value_text({"data": {"$codemode": "bytes", "v": base64.b64encode(LONG).decode()}})


@pytest.fixture(scope="module")
def kernel(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Kernel]:
    folder = write_notebook_dir(tmp_path_factory.mktemp("bytes") / "nb",
                                extra_toml='\n[connectors.files]\npython = "files_conn:files"\n')
    (folder / "files_conn.py").write_text(FILES, encoding="utf-8")
    k = Kernel(folder)
    yield k
    k.shutdown()


def test_a_real_kernel_shows_bytes_arguments_readably_everywhere(kernel: Kernel) -> None:
    """It is an error if the kernel's card, approval summary, %pending or panel shows a bytes argument unreadably."""
    run = kernel.execute(f"files.upload(data={DATA!r}, name='a.pdf')")
    assert run.card is not None, run.messages
    card = kernel.widgets.texts(run.card)
    summary = "".join(str(c["data"].get("text/plain", "")) for c in run.of("display_data"))
    table = "".join(str(c["data"].get("text/plain", "")) for c in kernel.ok("%pending").of("display_data"))
    panel = PanelClient(kernel).data("snapshot")["pending"][0]["args"]["text"]
    for where, text in {"card": card, "summary": summary, "%pending": table, "panel": panel}.items():
        assert "%PDF-1.7" in text and "(20 bytes)" in text, (where, text)
        assert TAGGED["v"] not in text and "<20 bytes>" not in text, (where, text)
        assert "\x1b" not in text, (where, text)
