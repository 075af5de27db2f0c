"""describe: compact and capped by default, drill-down on demand, paged connectors, bare names, misses as data."""

from __future__ import annotations

import ast
from collections.abc import AsyncIterator
from typing import Any

import pytest

from codemode_kernel import CodemodeRuntime, Connector, InProcessExecutor, Tool, tool
from codemode_kernel.discovery.describe import COMPACT_CAP, PAGE_SIZE
from tests.discovery.catalog import connectors

pytestmark = pytest.mark.anyio


def _echo(**kwargs: Any) -> dict[str, Any]:
    return kwargs


ADDRESS = {"type": "object", "description": "Where the parcel goes.",
           "properties": {"street": {"type": "string", "description": "Street and number."},
                          "city": {"type": "string"}, "geo": {"$ref": "#/$defs/Geo"}},
           "required": ["street", "city"]}
SHIP = {
    "type": "object",
    "properties": {"order_id": {"type": "string", "description": "The order to ship. Found on the receipt."},
                   "address": ADDRESS,
                   "speed": {"type": "string", "enum": ["standard", "express"], "description": "How fast."},
                   "note": {"type": "string", "description": "A note for the courier."}},
    "required": ["order_id", "address"],
    "$defs": {"Geo": {"type": "object", "properties": {"lat": {"type": "number"}, "lon": {"type": "number"}}}},
}
RESULT = {"type": "object", "properties": {"tracking": {"type": "string", "description": "Tracking number."},
                                           "label": {"type": "object", "properties": {"url": {"type": "string"}}}}}


class Parcels(Connector):
    """Methods whose arguments nest, one with hundreds of arguments, and many methods for paging."""

    name = "parcels"
    instructions = "Ship parcels.\nSecond line is not the summary."

    def tools(self) -> dict[str, Tool]:
        out = {"ship_order": tool(_echo, description="Ship an order.\n\n" + "Long prose. " * 200, input_schema=SHIP,
                                  output_schema=RESULT, requires_approval=True)}
        wide = {f"field_{i}": {"type": "string", "description": f"Field number {i}. " + "Words " * 30}
                for i in range(400)}
        out["import_everything"] = tool(_echo, description="Import a record with every field.",
                                        input_schema={"type": "object", "properties": wide, "required": ["field_0"]})
        for i in range(93):
            out[f"list_things_{i:03d}"] = tool(_echo, description=f'List things {i}.\n"""\x00 not a summary')
        out["list_items"] = tool(_echo, description="List parcels' items.")
        return out


@pytest.fixture
async def rt() -> AsyncIterator[CodemodeRuntime]:
    async with CodemodeRuntime([Parcels(), *connectors()], store="sqlite://", executor=InProcessExecutor()) as runtime:
        yield runtime


def runs(source: str) -> None:
    """The declarations are valid, runnable Python."""
    exec(compile(source, "<describe>", "exec"), {})


async def test_a_method_is_compact_by_default_with_a_way_to_drill_down(rt: CodemodeRuntime) -> None:
    """The signature and direct arguments; a nested argument is dict[str, Any], named for drill-down."""
    out = await rt.describe("parcels.ship_order")
    runs(out.types)
    assert out.kind == "method" and out.requires_approval is True and out.description == "Ship an order."
    assert "order_id: str, address: dict," in out.types
    assert "speed: Literal['standard', 'express'] = ..." in out.types
    assert "order_id: The order to ship." in out.types and "Found on the receipt" not in out.types
    assert "class " not in out.types and "Long prose" not in out.types
    assert out.types.startswith("# describe more: .address .return, full=True\n")
    assert '"""Ship an order. Needs approval.' in out.types


async def test_the_codemode_tool_says_how_to_drill_down(rt: CodemodeRuntime) -> None:
    """The drill-down suffixes a compact describe names are explained once, in the tool's description."""
    text = rt.tool().description
    assert "codemode.describe('conn.method')" in text and "'conn.method.arg' or '.return'" in text
    assert "full=True" in text


async def test_drill_down_declares_one_argument_or_the_result(rt: CodemodeRuntime) -> None:
    """conn.method.arg declares that argument's type (with its nested refs); conn.method.return the result."""
    arg = await rt.describe("parcels.ship_order.address")
    runs(arg.types)
    assert "class ShipOrderAddress(TypedDict):" in arg.types and "street: str" in arg.types
    assert "class Geo(TypedDict):" in arg.types
    result = await rt.describe("parcels.ship_order.return")
    runs(result.types)
    assert "tracking: NotRequired[str]" in result.types
    full = await rt.describe("parcels.ship_order", full=True)
    runs(full.types)
    assert "class Geo(TypedDict):" in full.types and "Long prose" in full.types


async def test_a_declaration_never_passes_the_cap(rt: CodemodeRuntime) -> None:
    """400 documented arguments still fit the compact cap, as valid Python, marked truncated with a way to see all."""
    out = await rt.describe("parcels.import_everything")
    runs(out.types)
    assert len(out.types) <= COMPACT_CAP and out.truncated is True
    assert "field_0" in out.types and "full=True" in out.types


async def test_a_connector_lists_its_methods_one_line_each_page_by_page(rt: CodemodeRuntime) -> None:
    """describe('parcels') pages its methods (PAGE_SIZE a page); hostile summaries stay inside comments."""
    first = await rt.describe("parcels")
    runs(first.types)
    assert first.kind == "connector" and first.page == 1 and first.pages == 3
    assert first.description == "Ship parcels."
    defs = [line for line in first.types.splitlines() if line.lstrip().startswith("def ")]
    assert len(defs) == PAGE_SIZE
    line = "def import_everything(self, *, field_0, **optional): ...  # Import a record with every field."
    assert line in first.types
    assert "page=2" in first.types
    last = await rt.describe("parcels", page=3)
    runs(last.types)
    last_defs = [line for line in last.types.splitlines() if line.lstrip().startswith("def ")]
    assert last.page == 3 and len(last_defs) == 16
    assert "[approval]" in next(line for line in last_defs if "ship_order" in line)
    assert (await rt.describe("parcels", page=99)).page == 3


async def test_a_bare_method_name_resolves_when_only_one_connector_has_it(rt: CodemodeRuntime) -> None:
    """describe('ship_order') is parcels.ship_order; a name two connectors share is answered with both paths."""
    assert (await rt.describe("ship_order")).path == "parcels.ship_order"
    assert (await rt.describe("list_items")).path == "parcels.list_items"


async def test_an_unknown_target_is_answered_with_suggestions(rt: CodemodeRuntime) -> None:
    """The host API raises LookupError with the nearest names; the sandbox gets the same answer as data."""
    with pytest.raises(LookupError, match=r"nothing named 'parcels\.ship_ordr'.*parcels\.ship_order"):
        await rt.describe("parcels.ship_ordr")
    out = await rt.execute("codemode.describe('github.star_repo')")
    assert out["status"] == "completed", out
    answer = out["result"]
    assert answer["kind"] == "not_found"
    assert answer["error"].startswith("'github.star_repo' not found")
    assert "github.activity_star_repo_for_authenticated_user" in answer["suggestions"]
    ast.parse(answer["types"])


async def test_an_unknown_argument_names_the_arguments_the_method_has(rt: CodemodeRuntime) -> None:
    """conn.method.nope is answered as data naming the method's arguments and the closest one."""
    answer = (await rt.execute("codemode.describe('parcels.ship_order.adress')"))["result"]
    assert answer["kind"] == "not_found" and answer["suggestions"] == ["parcels.ship_order.address"]
    assert answer["error"] == ("'parcels.ship_order' has no argument 'adress'; its arguments are order_id, "
                               "address, speed, note ('parcels.ship_order.return' declares its result)")
    ast.parse(answer["types"])


async def test_a_name_several_connectors_share_is_not_guessed() -> None:
    """An ambiguous bare name names every owner instead of picking one."""
    class Other(Parcels):
        name = "depot"

    async with CodemodeRuntime([Parcels(), Other()], store="sqlite://", executor=InProcessExecutor()) as rt:
        out = await rt.execute("codemode.describe('ship_order')")
        answer = out["result"]
        assert answer["kind"] == "not_found"
        assert answer["suggestions"] == ["depot.ship_order", "parcels.ship_order"]


class Plain(Connector):
    """Argument docs that say nothing but the name, and one with a Markdown link."""

    name = "plain"

    def tools(self) -> dict[str, Tool]:
        schema = {"type": "object", "required": ["account_id", "sid"], "properties": {
            "account_id": {"type": "integer", "description": "account_id parameter"},
            "sid": {"type": "string", "description": "The SID of the [Account](https://example.test/a) to use."}}}
        return {"get_plan": tool(_echo, description="Get a plan.", input_schema=schema)}


async def test_argument_docs_say_more_than_the_name_and_read_as_plain_text() -> None:
    """'account_id: account_id parameter' is left out; a Markdown link keeps its text, not its target."""
    async with CodemodeRuntime([Plain()], store="sqlite://", executor=InProcessExecutor()) as rt:
        out = await rt.describe("plain.get_plan")
    runs(out.types)
    assert "account_id parameter" not in out.types
    assert "sid: The SID of the Account to use." in out.types and "example.test" not in out.types


OWNER = {"type": "string", "description": "The account owner. Not case sensitive."}


class Repos(Connector):
    """Twelve methods that document their shared ``owner`` argument alike (and one that does not)."""

    name = "repos"

    def tools(self) -> dict[str, Tool]:
        out = {f"op_{i:02d}": tool(_echo, description=f"Operation {i}.", input_schema={
            "type": "object", "required": ["owner"], "properties": {"owner": OWNER}}) for i in range(12)}
        out["odd"] = tool(_echo, description="Odd one.", input_schema={
            "type": "object", "required": ["owner", "size"], "properties": {
                "owner": {"type": "string", "description": "Who pays."}, "size": {"type": "integer",
                                                                          "description": "How big."}}})
        return out


async def test_an_argument_documented_alike_everywhere_is_explained_once_by_the_connector() -> None:
    """owner's doc is in describe('repos'), not repeated by each method's compact describe; a method that
    documents owner differently keeps its own doc, and full=True keeps everything."""
    async with CodemodeRuntime([Repos()], store="sqlite://", executor=InProcessExecutor()) as rt:
        connector = await rt.describe("repos")
        method = await rt.describe("repos.op_03")
        odd = await rt.describe("repos.odd")
        full = await rt.describe("repos.op_03", full=True)
    runs(connector.types)
    assert "Arguments many methods take:\n        owner: The account owner.\n" in connector.types
    assert "owner: str" in method.types and "The account owner" not in method.types
    assert "owner: Who pays." in odd.types and "size: How big." in odd.types
    assert "The account owner" in full.types


class Hostile(Connector):
    """Summaries and names that try to end a comment, a docstring or the source."""

    name = "hostile"

    def tools(self) -> dict[str, Tool]:
        evil = 'Ends """ here\x00\x1b[31m and \u2028 breaks\r\nimport os'
        return {"evil_method": tool(_echo, description=evil, input_schema={
            "type": "object", "properties": {"x": {"type": "string", "description": evil}}, "required": ["x"]})}


async def test_hostile_text_stays_inside_comments_and_docstrings() -> None:
    """Every answer stays valid Python whatever the descriptions, the snippet source or the target hold."""
    async with CodemodeRuntime([Hostile()], store="sqlite://", executor=InProcessExecutor()) as rt:
        runs((await rt.describe("hostile")).types)
        runs((await rt.describe("hostile.evil_method")).types)
        runs((await rt.describe("hostile.evil_method", full=True)).types)
        runs((await rt.describe("hostile.evil_method.x")).types)
        done = await rt.execute("s = 'a\\x00b'\ns")
        await rt.save_snippet("evil", execution_id=done["execution_id"], description='"""\x00')
        runs((await rt.describe("evil")).types)
        answer = (await rt.execute("codemode.describe('nope\\n\"\"\"\\x00')"))["result"]
        assert answer["kind"] == "not_found"
        runs(answer["types"])
