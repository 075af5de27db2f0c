"""A connector connected by hand does not keep the hint of the codemode.toml table it replaced (session 15's note).

``connect(ToolSetConnector([...], name="notes"))`` in a ``%%host`` cell replaces the configured connector
``notes`` (a table with ``hint = "the analyst's notes"``). The replacement is another connector, which the
table's hint may not describe at all, yet ``%connectors`` showed that hint beside it and the model read it
beside the name (the runtime's connector hints).

The right outcome: once replaced, neither ``%connectors`` nor the runtime's hints carry the table's hint;
``disconnect`` brings the configured connector back with its hint.
"""

from __future__ import annotations

from pathlib import Path

from tests.kernel.kernel_harness import Kernel, write_notebook_dir

CONNECT = '''%%host
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b
connect(ToolSetConnector([add], name="notes"))
'''

HINT = "the analyst's notes"


def connectors_text(kernel: Kernel) -> str:
    return str(kernel.ok("%connectors").of("display_data")[0]["data"]["text/plain"])


def test_a_connected_connector_shows_no_hint_of_the_table_it_replaced(tmp_path: Path) -> None:
    folder = write_notebook_dir(tmp_path / "nb")
    kernel = Kernel(folder)
    try:
        assert HINT in connectors_text(kernel)
        kernel.ok(CONNECT)
        assert kernel.ok("notes.add(a=1, b=2)").result == {"text/plain": "3"}
        assert HINT not in connectors_text(kernel)
        hints = kernel.ok("%%host\nprint(repr(runtime.connector_hints.get('notes')))").stdout
        assert hints.strip() == "None", hints
        kernel.ok("%%host\ndisconnect('notes')")
        kernel.ok("1")
        assert HINT in connectors_text(kernel)
        assert HINT in kernel.ok("%%host\nprint(runtime.connector_hints.get('notes'))").stdout
    finally:
        kernel.shutdown()
