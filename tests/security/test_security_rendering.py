"""Rendering: nothing a program, a connector, a result or a log produces is ever rendered live.

Issue 10, item 1. JupyterLab renders an executed cell's ``text/markdown`` and ``text/html``
as trusted (no sanitizer: ``<img onerror>`` fires, ``<script>`` runs), ipywidgets' HTML
widget sets ``innerHTML``, and MathJax typesets ``$…$`` in HTML outputs. A program that
closes a Markdown fence in its own code could click the Approve button of its own action.

The attack below runs in a real kernel: a hostile program (its code, prints, arguments and
results carry the payload) and a hostile connector (its instructions, descriptions, results
and errors carry it). Every view of them is then asked for, and every message the kernel
sends is checked: no Markdown carries their text, HTML is only the kernel's own tags with
every value escaped, and the text is still shown (as text).
"""

from __future__ import annotations

import ast
import re
import textwrap
from collections.abc import Iterator
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

import codemode_kernel
from tests.kernel.kernel_harness import Kernel, Run, calls, write_notebook_dir

# Each line attacks one renderer: a Markdown fence break, HTML that runs script, a close tag
# that leaves the kernel's own <pre>/<td>, a Markdown link with a script URL, TeX for MathJax.
PAYLOAD = "\n".join([
    "",
    "```",
    '<img src=x onerror="window.__pwned=1">',
    "<script>window.__pwned=2</script>",
    "</pre></code></td></table><b>bold</b>",
    "[click me](javascript:window.__pwned=3)",
    r"$\color{red}{\Huge PWNED}$",
    "```",
])
MARK = "window.__pwned"  # present in every hostile text, rendered or not

HOSTILE_MODULE = textwrap.dedent(f'''
    """A connector whose every text is hostile: instructions, descriptions, results, errors."""
    from codemode_kernel import ToolSetConnector

    PAYLOAD = {PAYLOAD!r}


    def make():
        def echo(text: str) -> dict:
            r"""Echo the text back. {PAYLOAD.replace(chr(10), " ")}"""
            return {{"echoed": text, "payload": PAYLOAD}}

        def rows() -> list:
            r"""Rows of hostile cells. {PAYLOAD.replace(chr(10), " ")}"""
            return [{{"cell": PAYLOAD, "n": 1}}, {{"cell": "$x^2$", "n": 2}}]

        def explode() -> dict:
            """Always fails with a hostile message."""
            raise ValueError(PAYLOAD)

        return ToolSetConnector([echo, rows, explode], name="hostile",
                                instructions={PAYLOAD.replace(chr(10), " ")!r} + "\\nA hostile service.")
''')

HOSTILE_TOML = '\n[connectors.hostile]\npython = "hostile_tools:make"\n'

PROGRAM = f'''note = r"""{PAYLOAD}"""
print(note)
hostile.echo(text=note)
hostile.rows()'''

PAUSING_PROGRAM = f'''note = r"""{PAYLOAD}"""
hostile.echo(text=note)
notes.add_note(text=note)'''


# ---------------------------------------------------------------------------------------
# What "inert" means, checked on every message


SAFE_TAGS = {"b", "caption", "code", "div", "em", "i", "p", "pre", "span", "strong", "table", "tbody", "td",
             "th", "thead", "tr"}
SAFE_ATTRIBUTES = {"class", "style", "title", "colspan"}
NO_TEX = {"pre", "code"}  # MathJax skips these tags, and elements with the class below
TEX_IGNORE = "mathjax_ignore"


class _Inspector(HTMLParser):
    """Every tag and attribute of an HTML text, and the text that MathJax would typeset."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.problems: list[str] = []
        self.stack: list[tuple[str, bool]] = []  # (tag, TeX is off inside)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag not in SAFE_TAGS:
            self.problems.append(f"tag <{tag}>")
        for name, value in attrs:
            if name not in SAFE_ATTRIBUTES:
                self.problems.append(f"attribute {name}={value!r} on <{tag}>")
            if name == "style" and value and ("url(" in value or "expression" in value):
                self.problems.append(f"style {value!r}")
        classes = dict(attrs).get("class") or ""
        inherited = bool(self.stack) and self.stack[-1][1]
        self.stack.append((tag, inherited or tag in NO_TEX or TEX_IGNORE in classes.split()))

    def handle_endtag(self, tag: str) -> None:
        for i in range(len(self.stack) - 1, -1, -1):
            if self.stack[i][0] == tag:
                del self.stack[i:]
                return
        self.problems.append(f"stray </{tag}>")

    def handle_data(self, data: str) -> None:
        tex_off = bool(self.stack) and self.stack[-1][1]
        if ("$" in data or "\\(" in data) and not tex_off:
            self.problems.append(f"text MathJax would typeset: {data.strip()[:60]!r}")


def html_problems(source: str) -> list[str]:
    inspector = _Inspector()
    inspector.feed(source)
    inspector.close()
    return inspector.problems


def bundle_problems(where: str, bundle: dict[str, Any]) -> list[str]:
    problems = []
    for mime, value in bundle.items():
        if mime == "text/markdown" and MARK in str(value):
            problems.append(f"{where}: Markdown carries the hostile text")
        if mime in ("text/html", "image/svg+xml", "application/javascript", "text/latex") \
                and isinstance(value, str):
            problems += [f"{where} {mime}: {p}" for p in html_problems(value)]
            if mime != "text/html" and MARK in value:
                problems.append(f"{where}: {mime} carries the hostile text")
    if bundle and "text/plain" not in bundle:
        problems.append(f"{where}: no text/plain fallback")
    return problems


def run_problems(where: str, run: Run) -> list[str]:
    """Check every display, result and error of a cell, and any pager payload of its reply."""
    problems = []
    for msg in run.messages:
        content = msg["content"]
        if msg["msg_type"] in ("display_data", "execute_result", "update_display_data"):
            problems += bundle_problems(f"{where} {msg['msg_type']}", content["data"])
    for page in run.reply["content"].get("payload", []):
        problems += bundle_problems(f"{where} pager", page.get("data", {}))
    return problems


def widget_problems(kernel: Kernel) -> list[str]:
    """Every HTML widget's value (set as innerHTML) and every output inside widgets."""
    problems = []
    for model_id, state in kernel.widgets.models.items():
        name = state.get("_model_name")
        if name in ("HTMLModel", "HTMLMathModel"):
            problems += [f"widget {name} {model_id}: {p}" for p in html_problems(str(state.get("value", "")))]
            if name == "HTMLMathModel" and MARK in str(state.get("value", "")):
                problems.append(f"widget {model_id}: HTMLMath typesets hostile text")
        if state.get("description_allow_html") and MARK in str(state.get("description", "")):
            problems.append(f"widget {model_id}: its description is HTML with hostile text")
        for out in state.get("outputs", []) or []:
            if out.get("output_type") in ("display_data", "execute_result"):
                problems += bundle_problems(f"widget output {model_id}", out.get("data", {}))
    return problems


def no_markup_keys(where: str, value: Any) -> list[str]:
    """Completion replies are plain data: no MIME bundle with markup anywhere inside."""
    if isinstance(value, dict):
        found = [f"{where}: {k}" for k in value if k in ("text/markdown", "text/html")]
        return found + [p for v in value.values() for p in no_markup_keys(where, v)]
    if isinstance(value, list):
        return [p for v in value for p in no_markup_keys(where, v)]
    return []


def shows_the_text(run: Run) -> bool:
    """The hostile text is still shown to the person, as text (never silently dropped)."""
    texts = [run.stdout, run.stderr] + [c["data"].get("text/plain", "") for c in run.of("display_data")]
    texts += [(run.result or {}).get("text/plain", "")]
    texts += [page.get("data", {}).get("text/plain", "") for page in run.reply["content"].get("payload", [])]
    texts += [f"{e['evalue']}" for e in run.of("error")]
    return any(MARK in t or "window.__pwned" in t.replace("\\n", "\n") for t in texts)


# ---------------------------------------------------------------------------------------
# The scene: a hostile program and a hostile connector in a real kernel


@pytest.fixture(scope="module")
def hostile_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = write_notebook_dir(tmp_path_factory.mktemp("hostile") / "nb", extra_toml=HOSTILE_TOML)
    (folder / "hostile_tools.py").write_text(HOSTILE_MODULE, encoding="utf-8")
    return folder


@pytest.fixture(scope="module")
def hostile_kernel(hostile_dir: Path) -> Iterator[Kernel]:
    kernel = Kernel(hostile_dir)
    yield kernel
    kernel.shutdown()


@dataclass
class Scene:
    runs: dict[str, Run]
    ids: dict[str, str]  # the execution id of each hostile run, by status


@pytest.fixture(scope="module")
def scene(hostile_kernel: Kernel) -> Scene:
    """The hostile runs: a completed program, a paused one (its card), a failing one."""
    k = hostile_kernel
    runs = {"completed": k.ok(PROGRAM)}
    runs["saved"] = k.ok("%snippet save evil_snippet last")
    runs["paused"] = k.ok(PAUSING_PROGRAM)
    assert runs["paused"].card is not None, "the hostile program waits for approval in its card"
    runs["failed"] = k.execute("hostile.explode()")
    assert runs["failed"].status == "error"
    listing = k.ok("%executions 3").of("display_data")[0]["data"]["text/plain"]
    ids = {status: eid for eid, status in re.findall(r"^(\w{26})\s+(\w+)", listing, re.M)}
    assert set(ids) == {"completed", "paused", "error"}, listing
    return Scene(runs, ids)


def test_the_hostile_cells_show_their_text_inertly(hostile_kernel: Kernel, scene: Scene) -> None:
    """A hostile program's own cell (prints, table result, error, approval card) holds no live markup."""
    problems = [p for name, run in scene.runs.items() for p in run_problems(name, run)]
    hostile_kernel.drain()
    problems += widget_problems(hostile_kernel)
    assert problems == []
    assert shows_the_text(scene.runs["completed"]) and shows_the_text(scene.runs["failed"])


# The views that show the hostile text itself (the others show ids, names, counts, or, for
# %search, a method's first sentence only).
SHOWING = ["%journal {completed}", "%journal {paused}", "%snippet show evil_snippet", "%tool",
           "%describe hostile.echo", "hostile.echo?", "%pending"]
VIEWS = [*SHOWING, "%search echo", "%journal {error}", "%executions", "%describe hostile",
         "%describe evil_snippet", "%connectors", "%snippets"]


@pytest.mark.parametrize("magic", VIEWS)
def test_every_view_of_hostile_text_is_inert(hostile_kernel: Kernel, scene: Scene, magic: str) -> None:
    """It is an error if a view shows program or connector text as Markdown or live HTML."""
    run = hostile_kernel.ok(magic.format(**scene.ids))
    assert run_problems(magic, run) == []
    if magic in SHOWING:
        assert shows_the_text(run), f"{magic} still shows the text"


def test_the_journal_of_the_paused_program_is_inert(hostile_kernel: Kernel, scene: Scene,
                                                    hostile_dir: Path) -> None:
    """``%journal`` of the paused execution: its code, args and results as text; the action still waits."""
    eid = scene.ids["paused"]
    run = hostile_kernel.ok(f"%journal {eid}")
    assert run_problems("%journal", run) == []
    assert f"Execution {eid}: paused" in run.stdout and shows_the_text(run)
    assert calls(hostile_dir, "add_note") == 0


def test_inspect_and_completion_replies_are_inert(hostile_kernel: Kernel, scene: Scene) -> None:
    """Shift-Tab and Tab on a hostile connector answer with text and escaped HTML only."""
    k = hostile_kernel
    for code in ("hostile.echo(", "hostile", "note"):
        reply = k.shell_reply(k.kc.inspect(code, len(code)))["content"]
        assert bundle_problems(f"inspect {code}", reply.get("data", {})) == []
    described = k.shell_reply(k.kc.inspect("hostile.echo(", 13))["content"]
    assert described["found"] is True and MARK in described["data"]["text/plain"]
    for code in ("hostile.", "%describe hostile.", "no"):
        reply = k.shell_reply(k.kc.complete(code, len(code)))["content"]
        assert no_markup_keys(f"complete {code}", reply) == []


# ---------------------------------------------------------------------------------------
# One home: the guards above hold for new views too only if nobody writes HTML elsewhere

PACKAGE = Path(codemode_kernel.__file__).parent
LAB_SOURCES = PACKAGE.parent / "labextension" / "src"
MARKUP_HOME = PACKAGE / "kernel" / "markup.py"
TAG = re.compile(r"</?(a|b|i|p|br|div|span|pre|code|table|thead|tbody|tr|td|th|caption|em|strong|img|script|style|"
                 r"iframe|svg|math|object|embed|form|input|button|link|meta|details|summary)\b", re.I)


def _strings(tree: ast.AST) -> list[str]:
    """String constants of a module, without its docstrings (they may name tags in prose)."""
    docs = {id(node.body[0].value) for node in ast.walk(tree)
            if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
            and node.body and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)}
    return [node.value for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs]


def test_html_is_built_only_in_the_markup_module() -> None:
    """It is an error if a module other than kernel/markup.py writes HTML tags, escapes HTML or emits Markdown."""
    problems = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if "labextension" in path.parts:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for value in _strings(tree):
            if value in ("text/markdown", "text/latex"):
                problems.append(f"{path.name}: emits {value}")
            if path != MARKUP_HOME and value == "text/html":
                problems.append(f"{path.name}: builds a text/html entry (use markup.bundle)")
            if path != MARKUP_HOME and path.parent.name == "kernel" and TAG.search(value):
                problems.append(f"{path.name}: writes the tag in {value[:40]!r} (use markup.element)")
        imports = [a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names]
        imports += [n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)]
        if path != MARKUP_HOME and "html" in imports:
            problems.append(f"{path.name}: imports html (escaping belongs to markup.py)")
    assert problems == []


# The browser APIs and React props that turn text into live HTML, and the JupyterLab
# renderers that do (trusted Markdown and HTML are rendered unsanitized).
LIVE_SINKS = ("innerHTML", "outerHTML", "insertAdjacentHTML", "dangerouslySetInnerHTML", "document.write",
              "javascript:", "eval(", "new Function", "srcdoc", "rendermime", "RenderMime", "renderMarkdown",
              "renderHTML", "trusted", "sanitizer")


def test_the_panel_never_turns_text_into_html() -> None:
    """It is an error if the lab extension's sources use an API that renders text as HTML or Markdown."""
    sources = sorted([*LAB_SOURCES.glob("*.ts"), *LAB_SOURCES.glob("*.tsx")])
    assert sources, f"no lab extension sources in {LAB_SOURCES}"
    found = [f"{path.name}: {sink}" for path in sources for sink in LIVE_SINKS
             if sink in path.read_text(encoding="utf-8")]
    assert found == []
