"""Review 14x: snippets, as a person saves them and a program (or a model) runs them.

- ``codemode.run('count_tagg', ...)`` (a typo) does not fail the program: it returns
  ``{'error': "no snippet named 'count_tagg'; ..."}`` as the snippet's *value*, the cell
  completes, and the next line reads ``r['count']`` of an error dict. Every other wrong name in
  a program raises (``notes.list_nots()`` is an AttributeError). The completed cell is then what
  ``%snippet save ... last`` saves.
- ``%snippet save NAME`` over an existing snippet replaces it, its code and its description,
  without a word ("Saved snippet 'count_tag' from execution ...", as for a new one).
- A snippet that reads ``input`` run without one fails with ``TypeError: 'NoneType' object is not
  subscriptable``: nothing says it was the snippet, or that it wanted ``input``.
"""

from __future__ import annotations

from tests.kernel.kernel_harness import Kernel


def _saved(kernel: Kernel, name: str, description: str) -> str:
    kernel.ok('input = {"n": 2}')
    kernel.ok('input["n"] + len(notes.list_notes())')
    return kernel.ok(f"%snippet save {name} last {description}").stdout


def test_running_an_unknown_snippet_fails_the_program(shared_kernel: Kernel) -> None:
    _saved(shared_kernel, "r14x_count", "Count the notes plus n")
    run = shared_kernel.execute('r = codemode.run("r14x_cuont", {"n": 1})\nr')
    assert run.status == "error", (run.result, run.stdout)
    assert run.error is not None and "r14x_cuont" in run.error["evalue"]


def test_saving_over_a_snippet_says_so(shared_kernel: Kernel) -> None:
    _saved(shared_kernel, "r14x_keep", "The first version")
    shared_kernel.ok("40 + 2")
    run = shared_kernel.execute("%snippet save r14x_keep last")
    said = run.stdout + (run.error["evalue"] if run.error else "")
    shown = shared_kernel.ok("%snippets")
    kept = "The first version" in str(shown.of("display_data")[0]["data"]["text/plain"])
    assert kept or "replac" in said.lower(), said


def test_a_snippet_run_without_input_is_named_in_its_error(shared_kernel: Kernel) -> None:
    _saved(shared_kernel, "r14x_needs_input", "Needs n")
    run = shared_kernel.execute('codemode.run("r14x_needs_input")')
    assert run.status == "error" and run.error is not None
    assert "r14x_needs_input" in run.error["evalue"], run.error["evalue"]
