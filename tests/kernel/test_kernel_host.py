"""``%%host`` cells, ``%reload`` and bad configuration, in a real kernel."""

from __future__ import annotations

from pathlib import Path

from tests.kernel.kernel_harness import Kernel, calls, write_notebook_dir

HOST_CELL = '''%%host
def shout(text: str) -> str:
    """Upper-case a text."""
    return text.upper()

connect(ToolSetConnector([shout], name="loud"))
'''


def test_a_host_cell_connects_a_connector_for_later_cells(kernel: Kernel) -> None:
    run = kernel.ok(HOST_CELL)
    assert "Connected 'loud'" in run.stdout
    assert kernel.ok("loud.shout(text='hi')").result == {"text/plain": "'HI'"}
    assert kernel.ok("notes.list_notes()").result is not None, "configured connectors stay"
    completions = kernel.shell_reply(kernel.kc.complete("loud.", 5))["content"]["matches"]
    assert completions == ["shout"]


def test_host_cells_show_their_last_value_and_allow_await(kernel: Kernel) -> None:
    run = kernel.ok("%%host\nimport asyncio\nawait asyncio.sleep(0)\nlen(await runtime.executions())")
    assert run.result is not None and run.result["text/plain"].isdigit()
    printed = kernel.ok("%%host\nprint('from the host')")
    assert printed.stdout == "from the host\n"


def test_a_failing_host_cell_shows_a_traceback_with_its_lines(kernel: Kernel) -> None:
    run = kernel.execute("%%host\nx = 1\nraise RuntimeError('host broke')")
    assert run.status == "error" and run.error is not None
    assert run.error["ename"] == "RuntimeError" and run.error["evalue"] == "host broke"
    text = "\n".join(run.error["traceback"])
    assert "line 2" in text and "raise RuntimeError('host broke')" in text


def test_disconnect_removes_a_host_connector(kernel: Kernel) -> None:
    kernel.ok(HOST_CELL)
    kernel.ok("%%host\ndisconnect('loud')")
    run = kernel.execute("loud.shout(text='x')")
    assert run.error is not None and run.error["ename"] == "NameError"


def test_reload_rereads_the_configuration(kernel: Kernel, notebook_dir: Path) -> None:
    toml = notebook_dir / "codemode.toml"
    toml.write_text(toml.read_text() + '\n[connectors.other]\npython = "kernel_notes:make"\n'
                    f'options = {{ counter = "{notebook_dir / "other.sqlite"}", approval = false }}\n')
    assert kernel.execute("other.list_notes()").status == "error"
    run = kernel.ok("%reload")
    assert "other (3 methods)" in run.stdout
    kernel.ok("other.add_note(text='no approval needed')")
    assert calls(notebook_dir, "add_note") == 0, "the other connector has its own store"


def test_bad_configuration_names_file_key_and_problem_and_the_kernel_still_starts(tmp_path: Path) -> None:
    folder = write_notebook_dir(tmp_path / "nb", extra_toml=(
        '\n[connectors.broken]\npython = "no_such_module:make"\n'
        '\n[connectors.odd]\nhint = "no kind"\n'
    ))
    kernel = Kernel(folder)
    try:
        first = kernel.ok("1 + 1")
        assert "codemode.toml: [connectors.broken.python] cannot import module 'no_such_module'" in first.stderr
        assert "codemode.toml: [connectors.odd] does not say what kind of connector it is" in first.stderr
        assert first.result == {"text/plain": "2"}
        assert kernel.ok("2 + 2").stderr == "", "each problem is reported once"
        assert kernel.ok("notes.list_notes()").result is not None, "the good connector works"
        listing = kernel.ok("%connectors")
        assert "no_such_module" in listing.stderr
        reload = kernel.execute("%reload")
        assert reload.status == "error" and reload.error is not None
        assert reload.error["ename"] == "ConfigurationError" and "broken" in reload.error["evalue"]
    finally:
        kernel.shutdown()


def test_invalid_toml_still_starts_the_kernel(tmp_path: Path) -> None:
    folder = write_notebook_dir(tmp_path / "nb")
    (folder / "codemode.toml").write_text("[connectors.notes\npython = 1\n")
    kernel = Kernel(folder)
    try:
        run = kernel.ok("'still here'")
        assert "codemode.toml: (file) is not valid TOML" in run.stderr
        assert run.result == {"text/plain": "'still here'"}
    finally:
        kernel.shutdown()


def test_without_a_notebook_name_the_store_is_named_after_the_folder(tmp_path: Path) -> None:
    folder = write_notebook_dir(tmp_path / "project")
    kernel = Kernel(folder, notebook=None)
    try:
        assert f"sqlite:///{folder / '.codemode' / 'project.codemode.db'}" in kernel.ok("%store").stdout
    finally:
        kernel.shutdown()


def test_codemode_toml_can_name_another_store(tmp_path: Path) -> None:
    folder = write_notebook_dir(tmp_path / "nb", extra_toml='\n[store]\nurl = "sqlite:///journal/shared.db"\n')
    (folder / "journal").mkdir()
    kernel = Kernel(folder)
    try:
        kernel.ok("1")
        assert (folder / "journal" / "shared.db").is_file()
        assert not (folder / "analysis.codemode.db").exists()
    finally:
        kernel.shutdown()
