"""Review 14x: an exception inside a Python connector does not say which call failed.

An MCP tool's failure reads ``memo.get_note failed: Error executing tool get_note: no note with
id 9999 ...`` and an OpenAPI one ``petstore.getPet: GET /pets/{petId} returned HTTP 404 ...``.
A Python connector's reads ``ValueError: the disk is full`` (``notes.fail`` raised it), or
``ConnectorError: KeyError: 'b' (line 1)`` for a bug in the connector's code: in a program with
several calls on a line (``[a.x(), b.y()]``), in a loop, or in a snippet, neither the person
nor a model can tell which connector method raised.
"""

from __future__ import annotations

from tests.kernel.kernel_harness import Kernel


def test_a_python_connectors_error_names_the_call(shared_kernel: Kernel) -> None:
    run = shared_kernel.execute('[notes.list_notes(), notes.fail(message="the disk is full")]')
    assert run.status == "error" and run.error is not None
    message = run.error["evalue"]
    assert "the disk is full" in message
    assert "notes.fail" in message, message
