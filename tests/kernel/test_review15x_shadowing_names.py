"""Review 15x: a connector named like a pre-imported module or a builtin silently takes its place,
and ``connect()`` silently replaces a configured connector.

- ``[connectors.json]`` (or ``connect(ToolSetConnector(..., name="json"))``) is accepted; from then
  on every cell's ``json.dumps(...)`` fails: "connector 'json' has no method 'dumps'". Named
  ``len``: ``len([1, 2])`` -> "TypeError: 'ConnectorProxy' object is not callable". Nothing said so
  when the table was read or the connector connected (``%connectors`` lists it as any other).
- In a ``%%host`` cell, ``connect(ToolSetConnector([ping], name="notes"))`` where ``notes`` is the
  codemode.toml table says "Connected 'notes': Code Mode cells can now call notes.<method>(...)" -
  nothing about the configured ``notes`` it replaced; ``%connectors`` then shows the new one with
  the table's ``hint`` ("the analyst's notes").
"""

from __future__ import annotations

from tests.kernel.kernel_harness import Kernel

PING = '%%host\nfrom codemode_kernel import ToolSetConnector\ndef ping() -> str:\n    "Ping."\n    return "pong"\n'


def test_a_connector_named_like_a_module_or_builtin_is_refused_or_flagged(kernel: Kernel) -> None:
    run = kernel.execute(PING + 'connect(ToolSetConnector([ping], name="json"))')
    said = run.stdout + run.stderr + (run.error["evalue"] if run.error else "")
    assert run.status == "error" or "module" in said, said
    assert kernel.execute("json.dumps([1])").status == "ok" or "module" in said, said


def test_connect_says_when_it_replaces_a_configured_connector(kernel: Kernel) -> None:
    run = kernel.execute(PING + 'connect(ToolSetConnector([ping], name="notes"))')
    said = run.stdout + run.stderr + (run.error["evalue"] if run.error else "")
    assert "codemode.toml" in said or "replac" in said, said
