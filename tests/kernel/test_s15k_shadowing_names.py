"""s15k (review 15x M17): connect() refuses a name that would hide a pre-imported module, a builtin or
the codemode API, and says so when it replaces a codemode.toml connector (disconnect brings it back)."""

from __future__ import annotations

import pytest

from codemode_kernel.kernel.notebook_runtime import shadowed
from tests.kernel.kernel_harness import Kernel, notes

PING = '%%host\nfrom codemode_kernel import ToolSetConnector\ndef ping() -> str:\n    "Ping."\n    return "pong"\n'


@pytest.mark.parametrize(("name", "words"), [("json", "module json"), ("len", "builtin len()"),
                                             ("print", "builtin print()"), ("codemode", "codemode API")])
def test_names_that_hide_something_say_what(name: str, words: str) -> None:
    hidden = shadowed(name)
    assert hidden is not None and words in hidden, hidden


def test_ordinary_names_hide_nothing() -> None:
    assert [shadowed(n) for n in ("notes", "json_api", "files")] == [None, None, None]


def test_replacing_a_table_is_said_and_disconnect_brings_it_back(kernel: Kernel) -> None:
    run = kernel.ok(PING + 'connect(ToolSetConnector([ping], name="notes"))')
    assert "[connectors.notes]" in run.stdout and "disconnect('notes')" in run.stdout, run.stdout
    assert kernel.ok("notes.ping()").result == {"text/plain": "'pong'"}
    kernel.ok("%%host\ndisconnect('notes')")
    kernel.ok('notes.list_notes()')
    assert notes(kernel.folder) == []
    refused = kernel.execute(PING + 'connect(ToolSetConnector([ping], name="json"))')
    assert refused.error is not None and "json_api" in refused.error["evalue"], refused.error
    assert kernel.ok("json.dumps([1])").result == {"text/plain": "'[1]'"}
