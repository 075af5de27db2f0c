"""Review 14x: the model-facing tool of a notebook advertises connectors that cannot work.

``%tool`` ("the model-facing ``codemode`` tool description of this notebook") and
``runtime.tool()`` in a ``%%host`` cell (notebook 07 hands it to a model) list every configured
connector by name. A connector the kernel already knows is unusable (an MCP server whose command
is not installed, an OpenAPI document it refused at start) is listed exactly like a working one,
so a model plans with it and meets ``NameError: name 'gone' is not defined``. ``codemode mcp`` over
the same ``codemode.toml`` marks the missing command ``UNAVAILABLE: ...; its methods cannot be
called (tell the person)`` (serve/server.py ``availability_hints``); the kernel does not.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.kernel.kernel_harness import Kernel, write_notebook_dir

BROKEN = """
[connectors.gone]
mcp = { command = "mcp-server-review14x-not-installed" }

[connectors.badapi]
openapi = "bad.yaml"
base_url = "http://127.0.0.1:9"
"""

BAD_DOCUMENT = """\
openapi: 3.0.0
info: {title: x, version: "1"}
paths:
  /a:
    get:
      operationId: getA
      parameters:
        - name: q
          in: querry
"""


@pytest.fixture(scope="module")
def kernel(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Kernel]:
    folder = write_notebook_dir(tmp_path_factory.mktemp("review14x_tool") / "nb", extra_toml=BROKEN)
    (folder / "bad.yaml").write_text(BAD_DOCUMENT, encoding="utf-8")
    k = Kernel(folder)
    k.ok("1")  # the first cell: configuration problems reported, catalog resolved
    yield k
    k.shutdown()


def _line(description: str, name: str) -> str:
    lines = [ln for ln in description.splitlines() if ln.startswith(f"- {name}")]
    assert lines, description
    return lines[0]


def test_the_working_connector_is_listed_plainly(kernel: Kernel) -> None:
    """The control: a usable connector is listed with its hint and no warning."""
    text = str(kernel.ok("%tool").of("display_data")[0]["data"]["text/plain"])
    assert "unavailable" not in _line(text, "notes").lower()


def test_tool_marks_a_connector_whose_command_is_not_installed(kernel: Kernel) -> None:
    text = str(kernel.ok("%tool").of("display_data")[0]["data"]["text/plain"])
    assert "unavailable" in _line(text, "gone").lower(), text


def test_tool_marks_a_connector_whose_document_was_refused(kernel: Kernel) -> None:
    text = str(kernel.ok("%tool").of("display_data")[0]["data"]["text/plain"])
    assert "unavailable" in _line(text, "badapi").lower(), text


def test_the_host_runtime_tool_says_the_same(kernel: Kernel) -> None:
    """What notebook 07 gives a model is what %tool shows."""
    run = kernel.ok("%%host\nprint(runtime.tool().description)")
    assert "unavailable" in _line(run.stdout, "gone").lower(), run.stdout
