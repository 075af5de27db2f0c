"""How the kernel shows things: MIME bundles for results and tables, Jupyter errors.

Pure functions of data (no Jupyter imports), so the cell, the approval card and the
magics render the same way and tests can check them directly.

Rich results (issue 16, item 6), each with ``text/plain`` (the value's Python ``pprint``
form, as IPython shows it, for consoles, nbconvert and papermill):

- a list of records (dicts whose values are scalars or short) is a table, its columns the
  keys in order of first appearance; a list of equal-length tuples or lists is a table
  without a header;
- a small dict or list (one short line) is only text: a tree would hide what fits on a line;
- anything larger is an HTML tree of ``<details>`` (:func:`tree_html`), open two levels
  deep, with a count on every branch; lists of records inside it are tables too.

No ``application/json``: JupyterLab prefers it over HTML and shows it as a tree collapsed
to its root (``▶ root [] 3 items``), which is what people looked at before.

Values are hostile (issue 10, item 1): HTML comes only from :mod:`.markup`, which escapes
every value, and code is shown in ``<pre>``, never in a Markdown fence a program can close.
"""

from __future__ import annotations

import json
import pprint
import re
from collections.abc import Mapping, Sequence
from datetime import date, datetime
from typing import Any

from codemode_kernel.bytes_text import shown
from codemode_kernel.kernel.markup import Html, bundle, element, join, preformatted
from codemode_kernel.terminal import inert_output, terminal_json, terminal_text

Bundle = dict[str, Any]

MAX_TABLE_ROWS = 200
MAX_CELL_CHARS = 200
MAX_TEXT_CHARS = 100_000
#: A dict or list whose Python form fits in this many characters is shown as text only.
INLINE_CHARS = 80
#: A record's value this long (as compact JSON) or longer makes its list a tree, not a table.
RECORD_VALUE_CHARS = 120
#: How many levels of a tree are open when it is shown (the root is level 0).
OPEN_LEVELS = 2
#: How many items of one list, and how many nodes in all, a tree shows.
TREE_ITEMS = 100
TREE_NODES = 2_000
#: Strings in a tree are cut here (the full text up to 2,000 characters is in the tooltip).
TREE_STRING_CHARS = 300
TABLE_CLASS = "codemode-table"
CODE_CLASS = "codemode-code"
TREE_CLASS = "codemode-tree"

_RED, _GREEN, _CYAN, _BOLD, _RESET = "\x1b[31m", "\x1b[32m", "\x1b[36m", "\x1b[1m", "\x1b[0m"
_RULE = "-" * 75
_SCALARS = (str, int, float, bool, type(None), bytes, datetime, date)


# ---------------------------------------------------------------------------------------
# Values


def is_table(value: Any) -> bool:
    """True for a non-empty list of records: dicts whose values are scalars or short (compact JSON)."""
    return (
        isinstance(value, list) and bool(value)
        and all(isinstance(row, dict) and bool(row) and all(_cell_sized(v) for v in row.values()) for row in value)
    )


def is_row_table(value: Any) -> bool:
    """True for a list of at least two tuples or lists of one length (two or more) with short items."""
    if not (isinstance(value, list) and len(value) >= 2 and all(isinstance(r, tuple | list) for r in value)):
        return False
    width = len(value[0])
    return width >= 2 and all(len(r) == width and all(_cell_sized(v) for v in r) for r in value)


def _cell_sized(value: Any) -> bool:
    if isinstance(value, _SCALARS):
        return not isinstance(value, str | bytes) or len(value) <= MAX_CELL_CHARS * 10
    return len(json_text(value, indent=None)) < RECORD_VALUE_CHARS


def is_inline(value: Any) -> bool:
    """True for a dict or list whose Python form is one short line."""
    return "\n" not in (text := pprint.pformat(value, width=INLINE_CHARS, sort_dicts=False)) and \
        len(text) <= INLINE_CHARS


def plain_text(value: Any) -> str:
    """The ``text/plain`` form: what IPython would print for the value, capped."""
    text = pprint.pformat(value, width=100, sort_dicts=False)
    return _cap(text, MAX_TEXT_CHARS)


def json_text(value: Any, indent: int | None = 2, *, reveal: bool = False) -> str:
    """Readable JSON of a decoded value (bytes, datetimes and tuples shown sensibly). ``reveal``: the
    characters a person cannot see, or that reorder what follows, as escapes (a call's arguments,
    which a person reads before deciding: review 12)."""
    if reveal:
        return terminal_json(_jsonable(value), indent=indent)
    return json.dumps(_jsonable(value), indent=indent, ensure_ascii=False)


def _jsonable(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    if isinstance(value, datetime | date):
        return value.isoformat()
    if isinstance(value, bytes):
        return f"<{len(value)} bytes>"
    if isinstance(value, float) and (value != value or value in (float("inf"), float("-inf"))):
        return repr(value)
    return value


def result_bundle(value: Any) -> Bundle:
    """The MIME bundle of a cell's result."""
    plain = plain_text(value)
    if is_table(value):
        return bundle(plain, records_html(value))
    if not isinstance(value, dict | list | tuple) or is_inline(value):
        return {"text/plain": plain}
    if isinstance(value, list) and is_row_table(value):
        return bundle(plain, table_html([], value))
    return bundle(plain, tree_html(value))


#: Image content a result may carry (an MCP tool's ``{"type": "image", "mime_type", "data"}`` blocks) is
#: shown as an image too, for these raster types only: SVG is markup, and markup comes only from
#: :mod:`.markup` (review 14x, noticed: the demo's ``memo.chart`` showed its base64 text).
IMAGE_TYPES = frozenset({"image/png", "image/jpeg", "image/gif"})
#: Base64 characters of one image shown at most (about 3.75 MB decoded); a larger one stays text.
MAX_IMAGE_CHARS = 5_000_000
#: Images shown from one result at most.
MAX_IMAGES = 20
_BASE64 = re.compile(r"[A-Za-z0-9+/]*={0,2}")


def image_bundles(value: Any) -> list[Bundle]:
    """The images a result carries as MCP image content (the value itself, or blocks of a list), each a
    bundle of its type and a text/plain line; the base64 data is checked, anything else is ignored."""
    blocks = value if isinstance(value, list) else [value]
    out: list[Bundle] = []
    for block in blocks:
        if len(out) >= MAX_IMAGES:
            break
        if not (isinstance(block, dict) and block.get("type") == "image"):
            continue
        mime, data = block.get("mime_type"), block.get("data")
        if (mime in IMAGE_TYPES and isinstance(data, str) and 0 < len(data) <= MAX_IMAGE_CHARS
                and len(data) % 4 == 0 and _BASE64.fullmatch(data)):
            out.append({mime: data, "text/plain": f"<{mime} image, {len(data) * 3 // 4:,} bytes>"})
    return out


def records_html(records: Sequence[Mapping[Any, Any]], *, caption: str | None = None) -> Html:
    """A list of records as a table: one column per key, in order of first appearance."""
    columns: list[Any] = []
    for row in records:
        for key in row:
            if key not in columns:
                columns.append(key)
    return table_html([str(c) for c in columns], [[row.get(c, "") for c in columns] for row in records],
                      caption=caption)


def tree_html(value: Any) -> Html:
    """A dict or list as a tree of ``<details>``: open :data:`OPEN_LEVELS` levels deep, counts on branches.

    Keys and values are escaped text; strings are cut at :data:`TREE_STRING_CHARS`, lists at
    :data:`TREE_ITEMS` items, the whole tree at :data:`TREE_NODES` nodes, each cut saying so.
    """
    budget = [TREE_NODES]
    return element("div", _node(None, value, 0, budget), cls=TREE_CLASS)


def _node(key: str | None, value: Any, level: int, budget: list[int]) -> Html:
    budget[0] -= 1
    label: list[Html | str] = [element("span", key, cls="codemode-key"), ": "] if key is not None else []
    if not isinstance(value, dict | list | tuple) or not value or (level > 0 and is_inline(value)):
        return element("div", *label, _leaf(value), cls="codemode-leaf")
    if isinstance(value, dict):
        size = f"{{}} {len(value)} key{'s' if len(value) != 1 else ''}"
        items: list[tuple[str, Any]] = [(str(k), v) for k, v in value.items()]
    else:
        size = f"[] {len(value)} item{'s' if len(value) != 1 else ''}"
        items = [(str(i), v) for i, v in enumerate(value)]
    named: list[Html | str] = [element("span", key, cls="codemode-key"), " "] if key is not None else []
    summary = element("summary", *named, element("span", size, cls="codemode-size"))
    if isinstance(value, list) and level > 0 and is_table(value):
        body = records_html(value)
    else:
        children = []
        for k, v in items[:TREE_ITEMS]:
            if budget[0] <= 0:
                children.append(element("div", element("em", "… the rest is not shown here (see the text form)"),
                                        cls="codemode-leaf"))
                break
            children.append(_node(k, v, level + 1, budget))
        if len(items) > TREE_ITEMS and budget[0] > 0:
            children.append(element("div", element("em", f"… {len(items) - TREE_ITEMS} more"), cls="codemode-leaf"))
        body = join(children)
    return element("details", summary, element("div", body, cls="codemode-children", style="margin-left:1.2em"),
                   open=level < OPEN_LEVELS)


def _leaf(value: Any) -> Html:
    """One value in a tree: JSON's spelling, strings quoted and cut, small containers on one line."""
    kind = ("null" if value is None else "bool" if isinstance(value, bool) else
            "number" if isinstance(value, int | float) else "string" if isinstance(value, str) else "other")
    shown = json_text(value, indent=None) if isinstance(value, dict | list | tuple) else \
        json.dumps(_jsonable(value), ensure_ascii=False)
    if len(shown) > TREE_STRING_CHARS:
        return element("span", shown[:TREE_STRING_CHARS] + "…", cls=f"codemode-{kind}", title=shown[:2000])
    return element("span", shown, cls=f"codemode-{kind}")


def table_html(columns: Sequence[str], rows: Sequence[Sequence[Any]], *, caption: str | None = None,
               limit: int = MAX_TABLE_ROWS) -> Html:
    """An HTML table; cells are escaped and long values shortened (full text in the tooltip)."""
    head = [element("thead", element("tr", *(element("th", str(c)) for c in columns)))] if columns else []
    body = [element("tr", *(_td(v) for v in row)) for row in rows[:limit]]
    if len(rows) > limit:
        body.append(element("tr", element("td", element("em", f"… {len(rows) - limit} more rows"),
                                          colspan=len(columns) or len(rows[0]))))
    parts = [element("caption", caption)] if caption else []
    return element("table", *parts, *head, element("tbody", *body), cls=TABLE_CLASS)


def _td(value: Any) -> Html:
    text = cell_text(value)
    if len(text) > MAX_CELL_CHARS:
        return element("td", text[:MAX_CELL_CHARS] + "…", title=text[:2000])
    return element("td", text)


def cell_text(value: Any) -> str:
    """One table cell: strings as they are, other values as compact JSON."""
    if isinstance(value, str):
        return value
    if value is None:
        return ""
    return json_text(value, indent=None)


def text_table(columns: Sequence[str], rows: Sequence[Sequence[Any]], *, limit: int = MAX_TABLE_ROWS,
               width: int | None = 60) -> str:
    """A plain-text table with aligned columns (for ``text/plain`` and headless runs); ``width=None``
    keeps every cell whole. Cells are hostile text (a connector's answer, a program's source, a tool's
    description): control characters show as visible escapes, since a console writes this text to its
    terminal (review 14 H1)."""
    cells = [[_short(terminal_text(cell_text(v), multiline=False), width) for v in row] for row in rows[:limit]]
    widths = [max([len(str(c)), *(len(r[i]) for r in cells)]) for i, c in enumerate(columns)]
    lines = ["  ".join(str(c).ljust(w) for c, w in zip(columns, widths, strict=True)).rstrip(),
             "  ".join("-" * w for w in widths)]
    lines += ["  ".join(v.ljust(w) for v, w in zip(r, widths, strict=True)).rstrip() for r in cells]
    if len(rows) > limit:
        lines.append(f"… {len(rows) - limit} more rows")
    return "\n".join(lines)


def table_bundle(columns: Sequence[str], rows: Sequence[Sequence[Any]], *, caption: str | None = None,
                 empty: str = "(none)", width: int | None = 60) -> Bundle:
    """A table as HTML and aligned text; ``empty`` when there are no rows. ``width`` cuts the text's
    cells (``None``: whole, for tables a person must read in full in a console)."""
    if not rows:
        return bundle(empty, element("p", element("em", empty)))
    text = text_table(columns, rows, width=width)
    if caption:
        text = caption + "\n" + text
    return bundle(text, table_html(columns, rows, caption=caption))


def code_bundle(source: str, *, title: str | None = None) -> Bundle:
    """Python declarations or code: a ``<pre>`` block of escaped text, and plain text.

    Never Markdown: code comes from programs and connectors, and a fence it closes would
    turn the rest into live HTML.
    """
    heading = [element("p", element("strong", title))] if title else []
    # text/plain reaches a console's terminal: control characters as visible escapes (review 14 H1).
    return bundle(terminal_text((title + "\n\n" if title else "") + source),
                  join([*heading, preformatted(source.rstrip(), cls=CODE_CLASS)]))


def _short(text: str, width: int | None) -> str:
    text = text.replace("\n", " ")
    return text if width is None or len(text) <= width else text[: width - 1] + "…"


def inert_bundle(data: Mapping[str, Any]) -> Bundle:
    """A MIME bundle as it may leave the kernel: its ``text/plain`` inert for a terminal.

    ``jupyter console`` (and any frontend that prints ``text/plain``) writes that text to a
    terminal; whatever it holds (a table of a connector's text, a program's source, a host
    value's repr) must not script it: escape sequences other than colours show as visible
    escapes (:func:`~codemode_kernel.terminal.inert_output`; review 14 H1). The one choke
    point for every bundle the kernel sends, magics included.
    """
    out = dict(data)
    plain = out.get("text/plain")
    if isinstance(plain, str):
        out["text/plain"] = inert_output(plain)
    return out


def _cap(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit] + f"\n… ({len(text) - limit:,} more characters)"


# ---------------------------------------------------------------------------------------
# Pending actions


def call_text(connector: str, method: str, args: Any, *, width: int | None = 80) -> str:
    """``notes.add(text='x')``: how a call reads in one line; ``width=None`` keeps each argument whole."""
    if isinstance(args, Mapping):
        inner = ", ".join(f"{k}={_short(repr(v), width)}" for k, v in args.items())
    else:
        inner = _short(repr(args), None if width is None else 2 * width)
    return f"{connector}.{method}({inner})"


#: A waiting call longer than this (its arguments written out) is cut in the approval summary, which
#: then says where to read it whole.
SUMMARY_CALL_CHARS = 4_000


def pending_summary(execution_id: str, pending: Sequence[Mapping[str, Any]]) -> str:
    """The plain-text stand-in for an approval card (headless runs, text frontends); ``repr`` leaves
    printable characters that render as nothing raw (variation selectors), so the calls are revealed.

    Each argument is shown whole: a program can pad an argument so that what matters comes after
    any cut (review 14 M2). Only a call longer than :data:`SUMMARY_CALL_CHARS` is cut, and the
    summary then says so and names ``%pending``, which shows it whole."""
    lines = [f"Paused: execution {execution_id} waits for approval of {len(pending)} action(s):"]
    for p in pending:
        args = shown(p.get("args"), tagged=True)  # bytes as b'...' (N bytes), not base64
        call = terminal_text(call_text(str(p.get("connector")), str(p.get("method")), args, width=None),
                             multiline=False)
        if len(call) > SUMMARY_CALL_CHARS:
            call = (call[:SUMMARY_CALL_CHARS] + f"… (cut: {len(call):,} characters; %pending {execution_id} "
                                                "shows the call whole)")
        lines.append(f"  #{p.get('seq')} {call}")
    # Naming the call approves that call only, never one another front end moved on to.
    which = f" {pending[0].get('seq')}" if len(pending) == 1 else ""
    lines.append(f"Approve with %approve {execution_id}{which} (or %approve last); reject with %reject {execution_id}.")
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------
# Errors

_LINE_SUFFIX = re.compile(r" \(line (\d+)\)$")
_LINE_PREFIX = re.compile(r"^Line (\d+): ")


def error_parts(out: Mapping[str, Any]) -> tuple[str, str, int | None]:
    """``(ename, evalue, line)`` of an error output dict of the runtime.

    The runtime's ``error`` text reads ``"<Type>: <message> (line N)"`` for pass errors;
    Jupyter shows the type and the message separately, so both decorations come off.
    """
    ename = str(out.get("error_type") or "Error")
    text = str(out.get("error") or "")
    line = out.get("line")
    match = _LINE_SUFFIX.search(text)
    if match:
        text = text[: match.start()]
        if not isinstance(line, int):
            line = int(match.group(1))
    if text.startswith(ename + ": "):
        text = text[len(ename) + 2:]
    # Compile errors read "Line N: SyntaxError: message" (one line per problem).
    prefix = _LINE_PREFIX.match(text)
    if prefix and "\n" not in text:
        if not isinstance(line, int):
            line = int(prefix.group(1))
        text = text[prefix.end():]
        if text.startswith(ename + ": "):
            text = text[len(ename) + 2:]
    return ename, text, line if isinstance(line, int) else None


def error_traceback(ename: str, evalue: str, *, code: str | None, line: int | None, count: int | None,
                    frames: str = "") -> list[str]:
    """Traceback lines in IPython's style: the failing cell line with two lines of context.

    ``frames`` is the sandbox's own call stack text ("  cell, line 4: …" per frame), shown
    when the error comes from deeper than the cell itself (a function or a snippet).
    """
    out = [f"{_RED}{_RULE}{_RESET}", f"{_RED}{ename}{_RESET}{' ' * max(1, 42 - len(ename))}"
                                     "Traceback (most recent call last)"]
    frame_lines = [f for f in frames.splitlines() if f.strip()]
    if len(frame_lines) > 1:
        out += [f"{_CYAN}{f}{_RESET}" for f in frame_lines[:-1]]
    if code is not None and line is not None:
        lines = code.splitlines()
        where = f"In[{count}]" if count is not None else "cell"
        out.append(f"Cell {_GREEN}{where}{_RESET}, line {line}")
        for n in range(max(1, line - 2), min(len(lines), line + 2) + 1):
            text = lines[n - 1]
            if n == line:
                out.append(f"{_GREEN}----> {n:<3}{_RESET} {_BOLD}{text}{_RESET}")
            else:
                out.append(f"      {n:<3} {text}")
        out.append("")
    elif frame_lines:
        out += [f"{_CYAN}{frame_lines[-1]}{_RESET}", ""]
    out.append(f"{_RED}{ename}{_RESET}: {evalue}")
    return out
