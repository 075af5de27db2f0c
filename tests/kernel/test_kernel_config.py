"""Loading codemode.toml / [tool.codemode]: connectors, store, rules, and clear problems."""

from __future__ import annotations

import asyncio
import textwrap
from pathlib import Path

import pytest

from codemode_kernel import demo
from codemode_kernel.config import (
    default_store_url,
    find_config,
    load_config,
    notebook_path,
    resolve_sqlite_url,
)
from codemode_kernel.connectors.base import Connector
from codemode_kernel.connectors.policy import WithPolicy
from codemode_kernel.errors import ConfigurationError
from codemode_kernel.kernel.magics import Magics
from codemode_kernel.kernel.output import RecordingSink
from codemode_kernel.kernel.session import NotebookSession

TOOLS = textwrap.dedent('''
    from codemode_kernel import ToolSetConnector

    def make(prefix: str = ""):
        def add_item(title: str) -> dict:
            """Add an item."""
            return {"title": prefix + title}
        def add_draft(title: str) -> dict:
            """Add a draft."""
            return {"title": title}
        def list_items() -> list:
            """List items."""
            return []
        return ToolSetConnector([add_item, add_draft, list_items], name="items")

    ready = make()
    not_a_connector = 42
''')


def folder_with(tmp_path: Path, toml: str, module: str = "cfg_tools") -> Path:
    folder = tmp_path / "nb"
    folder.mkdir(exist_ok=True)
    (folder / f"{module}.py").write_text(TOOLS)
    (folder / "codemode.toml").write_text(textwrap.dedent(toml))
    return folder


def approvals(connector: Connector) -> dict[str, bool]:
    raw = connector.tools()
    tools = asyncio.run(raw) if asyncio.iscoroutine(raw) else raw
    return {n: t.requires_approval for n, t in tools.items()}  # type: ignore[union-attr]


def test_a_python_factory_with_options_hint_and_approval_rules(tmp_path: Path) -> None:
    folder = folder_with(tmp_path, '''
        [connectors.items]
        python = "cfg_tools:make"
        options = { prefix = "p-" }
        requires_approval = ["add_*"]
        hint = "Things to do."
        [connectors.every]
        python = "cfg_tools:make"
        requires_approval = true
        no_approval = ["list_*"]
    ''')
    config = load_config(folder)
    assert config.problems == ()
    items, every = config.connectors
    assert items.name == "items" and isinstance(items, WithPolicy)
    assert approvals(items) == {"add_item": True, "add_draft": True, "list_items": False}
    assert approvals(every) == {"add_item": True, "add_draft": True, "list_items": False}
    assert dict(config.hints) == {"items": "Things to do."}
    assert config.source == folder / "codemode.toml" and config.base_dir == folder


def test_the_table_name_is_the_connectors_global_name(tmp_path: Path) -> None:
    folder = folder_with(tmp_path, '[connectors.todo]\npython = "cfg_tools:ready"\n')
    (todo,) = load_config(folder).connectors
    assert todo.name == "todo"


OPENAPI_FACTORY = textwrap.dedent('''
    from codemode_kernel import OpenApiConnector

    def pets():
        return OpenApiConnector("pets", {"openapi": "3.0.3", "info": {"title": "t", "version": "1"}, "paths": {}},
                                base_url="http://127.0.0.1:9")
''')


def test_each_connectors_kind_is_the_key_its_table_uses(tmp_path: Path) -> None:
    """The configuration records python / mcp / openapi; %connectors shows that, not a guess from the class."""
    folder = folder_with(tmp_path, '''
        [connectors.items]
        python = "cfg_tools:make"
        requires_approval = ["add_*"]
        [connectors.factory_pets]
        python = "cfg_pets:pets"
        [connectors.petstore]
        openapi = "petstore.yaml"
        base_url = "http://127.0.0.1:9"
    ''')
    (folder / "cfg_pets.py").write_text(OPENAPI_FACTORY)
    (folder / "petstore.yaml").write_text((Path(demo.__file__).parent / "petstore.yaml").read_text())
    config = load_config(folder)
    assert config.problems == ()
    assert dict(config.kinds) == {"items": "python", "factory_pets": "python", "petstore": "openapi"}

    async def listed() -> str:
        session = NotebookSession(cwd=folder, env={})
        session.load()
        sink = RecordingSink()
        try:
            assert (await Magics(session).run_line("%connectors", sink)).status == "ok"
        finally:
            await session.aclose()
        return next(v for k, v in sink.outputs if k == "display")["text/plain"]

    table = asyncio.run(listed())
    rows = {line.split()[0]: line.split()[1] for line in table.splitlines() if line.split()[:1] in (
        ["items"], ["factory_pets"], ["petstore"])}
    assert rows == {"items": "python", "factory_pets": "python", "petstore": "openapi"}


def test_store_runtime_and_executor_sections(tmp_path: Path) -> None:
    folder = folder_with(tmp_path, '''
        [store]
        url = "sqlite:///journal.codemode.db"
        [runtime]
        name = "research"
        max_executions = 7
        [executor]
        kind = "inprocess"
        timeout = 5
    ''')
    config = load_config(folder)
    assert config.problems == ()
    assert config.store_url == f"sqlite:///{folder / 'journal.codemode.db'}"
    assert (config.runtime_name, config.max_executions) == ("research", 7)
    assert config.executor.kind == "inprocess" and dict(config.executor.limits) == {"timeout": 5}


@pytest.mark.parametrize("toml, key, text", [
    ('[connectors.a]\npython = "no_such_mod:x"\n', "connectors.a.python", "cannot import module 'no_such_mod'"),
    ('[connectors.a]\npython = "cfg_tools:missing"\n', "connectors.a.python", "has no attribute 'missing'"),
    ('[connectors.a]\npython = "cfg_tools:not_a_connector"\n', "connectors.a", "not a Connector or a factory"),
    ('[connectors.a]\npython = "cfg_tools"\n', "connectors.a.python", "must be \"module:attribute\""),
    ('[connectors.a]\nhint = "x"\n', "connectors.a", "it needs one of python, mcp, openapi"),
    ('[connectors.a]\npyhton = "cfg_tools:make"\n', "connectors.a",
     "'pyhton' is not a known key (did you mean 'python'?)"),
    ('[connectors.a]\npython = "cfg_tools:make"\nmcp = { command = "x" }\n', "connectors.a", "has python and mcp"),
    ('[connectors.a]\npython = "cfg_tools:make"\noptions = { nope = 1 }\n', "connectors.a",
     "unexpected keyword argument 'nope'"),
    ('[connectors.a]\npython = "cfg_tools:make"\nrequires_approval = 3\n', "connectors.a",
     "requires_approval must be true, false or a list"),
    ('[connectors.codemode]\npython = "cfg_tools:make"\n', "connectors.codemode", "not a usable connector name"),
    ('[connectors.a]\npython = "cfg_tools:make"\ncolour = "red"\n', "connectors.a.colour", "not a known key"),
    ('[connectors.a]\nmcp = 3\n', "connectors.a", "mcp must be a table"),
    ('[connectors.a]\nopenapi = "missing.yaml"\n', "connectors.a", "missing.yaml"),
    ('[store]\nurl = "journal.db"\n', "store.url", "must be an SQLAlchemy URL"),
    ('[runtime]\nmax_executions = 0\n', "runtime.max_executions", "whole number"),
    ('[executor]\nkind = "docker"\n', "executor.kind", "must be \"subprocess\""),
    ('[stores]\nurl = "x"\n', "stores", "is not a known section"),
])
def test_each_problem_names_the_file_the_key_and_what_is_wrong(tmp_path: Path, toml: str, key: str,
                                                               text: str) -> None:
    folder = folder_with(tmp_path, toml + '\n[connectors.good]\npython = "cfg_tools:make"\n')
    config = load_config(folder)
    assert [p.key for p in config.problems] == [key], [str(p) for p in config.problems]
    message = str(config.problems[0])
    assert message.startswith(f"codemode.toml: [{key}] ") and text in message
    assert "good" in [c.name for c in config.connectors], "one bad table costs only itself"


def test_invalid_toml_is_one_problem_for_the_file(tmp_path: Path) -> None:
    folder = folder_with(tmp_path, "[connectors.a\n")
    config = load_config(folder)
    assert config.connectors == ()
    assert len(config.problems) == 1 and "is not valid TOML" in str(config.problems[0])
    assert str(config.problems[0]).startswith("codemode.toml: (file) ")


def test_an_approval_rule_naming_no_method_fails_when_the_connector_is_resolved(tmp_path: Path) -> None:
    folder = folder_with(tmp_path, '[connectors.items]\npython = "cfg_tools:make"\nrequires_approval = ["delete"]\n')
    (items,) = load_config(folder).connectors
    with pytest.raises(ConfigurationError, match="requires_approval names 'delete'"):
        approvals(items)


def test_tool_codemode_in_a_pyproject_above_the_notebook(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(textwrap.dedent('''
        [project]
        name = "x"
        [tool.codemode.connectors.items]
        python = "cfg_tools:make"
        [tool.codemode.connectors.bad]
        python = 1
    '''))
    (tmp_path / "cfg_tools.py").write_text(TOOLS)
    notebook_dir = tmp_path / "notebooks" / "deep"
    notebook_dir.mkdir(parents=True)
    assert find_config(notebook_dir, env={}) == tmp_path / "pyproject.toml"
    config = load_config(notebook_dir, env={})
    assert [c.name for c in config.connectors] == ["items"]
    assert [p.key for p in config.problems] == ["tool.codemode.connectors.bad.python"]


def test_codemode_toml_beside_the_notebook_wins_and_codemode_config_overrides(tmp_path: Path) -> None:
    folder = folder_with(tmp_path, "")
    (tmp_path / "pyproject.toml").write_text("[tool.codemode]\n")
    assert find_config(folder, env={}) == folder / "codemode.toml"
    other = tmp_path / "elsewhere.toml"
    other.write_text("")
    assert find_config(folder, env={"CODEMODE_CONFIG": str(other)}) == other


def test_no_configuration_means_no_connectors_and_no_problems(tmp_path: Path) -> None:
    config = load_config(tmp_path, env={})
    assert (config.source, config.connectors, config.problems) == (None, (), ())


def test_the_notebook_path_and_the_default_store(tmp_path: Path) -> None:
    nb = notebook_path({"JPY_SESSION_NAME": str(tmp_path / "analysis.ipynb")}, tmp_path)
    assert nb == tmp_path / "analysis.ipynb"
    assert default_store_url(nb, tmp_path) == f"sqlite:///{tmp_path / '.codemode' / 'analysis.codemode.db'}"
    relative = notebook_path({"JPY_SESSION_NAME": "sub/report.ipynb"}, tmp_path)
    assert relative == tmp_path / "report.ipynb", "the kernel runs in the notebook's folder"
    assert notebook_path({"JPY_SESSION_NAME": "Console 1"}, tmp_path) is None
    assert notebook_path({}, tmp_path) is None
    assert default_store_url(None, tmp_path / "proj") == \
        f"sqlite:///{tmp_path / 'proj' / '.codemode' / 'proj.codemode.db'}"
    named = notebook_path({"CODEMODE_NOTEBOOK": "report.ipynb", "JPY_SESSION_NAME": "x.ipynb"}, tmp_path)
    assert named == tmp_path / "report.ipynb", "CODEMODE_NOTEBOOK names the notebook for nbconvert and papermill"


def test_an_older_journal_beside_the_notebook_is_still_the_default_until_it_is_moved(tmp_path: Path) -> None:
    nb = tmp_path / "analysis.ipynb"
    (tmp_path / "analysis.codemode.db").write_bytes(b"")
    assert default_store_url(nb, tmp_path) == f"sqlite:///{tmp_path / 'analysis.codemode.db'}"
    (tmp_path / ".codemode").mkdir()
    (tmp_path / ".codemode" / "analysis.codemode.db").write_bytes(b"")
    assert default_store_url(nb, tmp_path) == f"sqlite:///{tmp_path / '.codemode' / 'analysis.codemode.db'}"


RAISES_ON_IMPORT = "import json\n\nSETTINGS = json.loads('{not json')\n"


def test_a_module_that_raises_on_import_reports_its_own_error_not_a_missing_file(tmp_path: Path) -> None:
    folder = folder_with(tmp_path, '[connectors.a]\npython = "cfg_raises:make"\n')
    (folder / "cfg_raises.py").write_text(RAISES_ON_IMPORT)
    (problem,) = load_config(folder).problems
    text = str(problem)
    assert "module 'cfg_raises' was found but raised while it was imported: JSONDecodeError" in text
    assert "(cfg_raises.py, line 3)" in text and "Fix the module, then run %reload." in text
    assert "beside the notebook" not in text


def test_a_module_whose_own_import_is_missing_names_what_to_install(tmp_path: Path) -> None:
    folder = folder_with(tmp_path, '[connectors.a]\npython = "cfg_needs:make"\n')
    (folder / "cfg_needs.py").write_text("import no_such_dependency_xyz\n")
    (problem,) = load_config(folder).problems
    assert "module 'cfg_needs' was found but could not be imported" in str(problem)
    assert "Install 'no_such_dependency_xyz'" in str(problem) and "beside the notebook" not in str(problem)


def test_a_module_that_is_missing_is_told_where_to_go(tmp_path: Path) -> None:
    (problem,) = load_config(folder_with(tmp_path, '[connectors.a]\npython = "cfg_absent:make"\n')).problems
    assert "cannot import module 'cfg_absent': no such module. Put cfg_absent.py beside the notebook" in str(problem)


def test_relative_sqlite_urls_resolve_against_the_configuration_folder(tmp_path: Path) -> None:
    assert resolve_sqlite_url("sqlite:///a.db", tmp_path) == f"sqlite:///{tmp_path / 'a.db'}"
    assert resolve_sqlite_url("sqlite:////abs/a.db", tmp_path) == "sqlite:////abs/a.db"
    assert resolve_sqlite_url("sqlite:///:memory:", tmp_path) == "sqlite:///:memory:"
    assert resolve_sqlite_url("postgresql://h/db", tmp_path) == "postgresql://h/db"


def test_reload_picks_up_an_edited_module(tmp_path: Path) -> None:
    folder = folder_with(tmp_path, '[connectors.items]\npython = "cfg_reload_tools:make"\n',
                         module="cfg_reload_tools")
    assert "list_items" in approvals(load_config(folder).connectors[0])
    (folder / "cfg_reload_tools.py").write_text(TOOLS.replace("list_items", "list_all"))
    assert "list_all" in approvals(load_config(folder, reload_modules=True).connectors[0])
