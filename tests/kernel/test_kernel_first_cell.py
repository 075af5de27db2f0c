"""What a new notebook and a broken configuration say, in a real kernel (issue 16, items 3, 4 and 5).

- a folder without ``codemode.toml`` says once, in the first cell, how to add connectors;
- configuration problems are said once each, with the broken connectors named as broken;
- a reason that ends in a full stop does not get a second one;
- ``exit`` and ``quit`` end a console session as in IPython (the ``ask_exit`` payload).
"""

from __future__ import annotations

import textwrap
from pathlib import Path

from tests.kernel.kernel_harness import Kernel, Run


def everything(run: Run) -> str:
    """Every text the cell showed: streams, displays and the error's traceback."""
    parts = [run.stdout, run.stderr]
    parts += [str(c["data"].get("text/plain", "")) for c in run.of("display_data") + run.of("execute_result")]
    if run.error is not None:
        parts += run.error["traceback"]
    return "\n".join(parts)


def test_a_folder_without_codemode_toml_says_once_how_to_add_connectors(tmp_path: Path) -> None:
    folder = tmp_path / "new"
    folder.mkdir()
    kernel = Kernel(folder, notebook="Untitled.ipynb")
    try:
        first = kernel.ok("1 + 1")
        assert "Code Mode: No connectors yet: this folder has no codemode.toml" in first.stdout
        assert '[connectors.notes]\n    python = "my_tools:notes"' in first.stdout
        assert "%%host" in first.stdout and 'connect(ToolSetConnector([add], name="calc"))' in first.stdout
        assert first.result == {"text/plain": "2"}
        second = kernel.ok("2 + 2")
        assert "No connectors yet" not in second.stdout, "said once"
        listing = kernel.ok("%connectors")
        assert "No connectors yet." in everything(listing)
        assert '[connectors.notes]\n    python = "my_tools:notes"' in listing.stdout, "%connectors shows the example"
    finally:
        kernel.shutdown()


def test_a_folder_with_connectors_gets_no_hint(tmp_path: Path) -> None:
    from tests.kernel.kernel_harness import write_notebook_dir

    kernel = Kernel(write_notebook_dir(tmp_path / "nb"))
    try:
        assert "No connectors yet" not in kernel.ok("1").stdout
    finally:
        kernel.shutdown()


BROKEN = textwrap.dedent('''
    [connectors.typo]
    pyhton = "raising_tools:make"

    [connectors.raises]
    python = "raising_tools:make"
''')


def test_every_table_broken_is_said_once_each_and_named_broken_not_missing(tmp_path: Path) -> None:
    folder = tmp_path / "nb"
    folder.mkdir()
    (folder / "codemode.toml").write_text(BROKEN)
    (folder / "raising_tools.py").write_text("raise RuntimeError('the API key is not set')\n")
    kernel = Kernel(folder)
    try:
        first = kernel.ok("1")
        shown = everything(first)
        assert shown.count("[connectors.typo] does not say what kind") == 1, shown
        assert "'pyhton' is not a known key (did you mean 'python'?)" in shown
        assert shown.count("[connectors.raises.python] module 'raising_tools' was found but raised") == 1
        assert "RuntimeError: the API key is not set (raising_tools.py, line 1)" in shown
        assert "beside the notebook" not in shown, "the module is beside the notebook: say what it raised"

        reloaded = kernel.execute("%reload")
        assert reloaded.status == "error"
        text = everything(reloaded)
        # Once in the stream or the error, not in both; the traceback carries the error's text once.
        assert text.count("[connectors.typo] does not say what kind") == 1, text
        assert text.count("[connectors.raises.python]") == 1, text

        listing = kernel.ok("%connectors")
        text = everything(listing)
        assert "No connector is usable: each one has a problem (listed below)." in text
        assert "No connectors yet" not in text and "No connectors are configured" not in text
        assert text.count("[connectors.typo]") == 1 and text.count("[connectors.raises.python]") == 1
    finally:
        kernel.shutdown()


UNAVAILABLE = textwrap.dedent('''
    from codemode_kernel import ToolSetConnector


    class Down(ToolSetConnector):
        async def tools(self):  # as an MCP connector whose server does not start
            raise RuntimeError("the server exited (run it in a terminal to see its output).")


    def make():
        def ping() -> str:
            """Ping."""
            return "pong"
        return Down([ping], name="ghost")
''')


def test_a_reason_that_ends_a_sentence_is_not_given_a_second_full_stop(tmp_path: Path) -> None:
    folder = tmp_path / "nb"
    folder.mkdir()
    (folder / "codemode.toml").write_text('[connectors.ghost]\npython = "ghost_tools:make"\n')
    (folder / "ghost_tools.py").write_text(UNAVAILABLE)
    kernel = Kernel(folder)
    try:
        text = everything(kernel.ok("%connectors"))
    finally:
        kernel.shutdown()
    assert "connector 'ghost' is unavailable: RuntimeError: the server exited" in text
    assert "its output)." in text and ").." not in text, text


def test_exit_and_quit_end_a_console_session_as_in_ipython(tmp_path: Path) -> None:
    folder = tmp_path / "nb"
    folder.mkdir()
    kernel = Kernel(folder)
    try:
        for code, keep in [("exit", False), ("quit()", False), ("exit(keep_kernel=True)", True)]:
            run = kernel.ok(code)
            assert run.reply["content"]["payload"] == [{"source": "ask_exit", "keepkernel": keep}], code
            assert run.error is None and "NameError" not in everything(run)
        assert kernel.ok("exit_code = 3\nexit_code").result == {"text/plain": "3"}, "only the bare words leave"
        for code in ("%%host\nexit()", "%%host\nimport sys\nsys.exit(1)"):
            run = kernel.ok(code)
            assert run.reply["content"]["payload"] == [{"source": "ask_exit", "keepkernel": False}], code
        assert kernel.ok("40 + 2").result == {"text/plain": "42"}, "the kernel is still there"
    finally:
        kernel.shutdown()


def test_a_runtime_problem_is_said_once_and_reads_as_one_sentence(tmp_path: Path) -> None:
    from tests.kernel.kernel_harness import write_notebook_dir

    folder = write_notebook_dir(tmp_path / "nb", executor='kind = "inprocess"\nno_such_limit = 3')
    kernel = Kernel(folder)
    try:
        first = everything(kernel.ok("1 + 1"))
        shown = first + everything(kernel.ok("2 + 2"))
    finally:
        kernel.shutdown()
    assert first.count("[executor]") == 1 and shown.count("[executor]") == 1, shown
    assert "Ignored; the other keys apply." in shown and ".." not in shown  # only that key is dropped (review 14x)
