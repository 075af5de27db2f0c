"""The two halves of the panel protocol agree: panel_messages.py and labextension/src/messages.ts.

The TypeScript file is read as text (no node needed): its constants and the fields of its
data interfaces are compared with the Python constants and with the keys of messages the
kernel really sends for a real runtime.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from codemode_kernel.kernel import panel_messages as pm
from tests.panel.conftest import Setup

MESSAGES_TS = Path(__file__).resolve().parents[2] / "labextension" / "src" / "messages.ts"
SOURCE = MESSAGES_TS.read_text(encoding="utf-8")


def ts_const(name: str) -> str:
    match = re.search(rf"export const {name} = (.*?);\n", SOURCE, re.S)
    assert match, f"messages.ts has no constant {name}"
    return match.group(1)


def ts_string_array(name: str) -> list[str]:
    body = ts_const(name)
    assert body.endswith("as const"), f"{name} should be declared 'as const'"
    return re.findall(r"'([^']*)'", body)


def ts_object(name: str) -> Any:
    """A constant object literal of messages.ts, as JSON data."""
    body = ts_const(name).removesuffix("as const").strip()
    body = body.replace("'", '"')
    body = re.sub(r"([{,]\s*)([A-Za-z_]\w*)\s*:", r'\1"\2":', body)
    body = re.sub(r",(\s*[}\]])", r"\1", body)
    return json.loads(body)


def ts_interface(name: str) -> tuple[set[str], set[str]]:
    """(required, optional) top-level field names of an interface, with those it extends."""
    match = re.search(rf"export interface {name}(?:<[^>]*>)?(?: extends (\w+)(?:<[^>]*>)?)? \{{\n(.*?)\n\}}",
                      SOURCE, re.S)
    assert match, f"messages.ts has no interface {name}"
    required: set[str] = set()
    optional: set[str] = set()
    for field, question in re.findall(r"^  (\w+)(\?)?:", match.group(2), re.M):
        (optional if question else required).add(field)
    if match.group(1):
        base_required, base_optional = ts_interface(match.group(1))
        required |= base_required
        optional |= base_optional
    return required, optional


def ts_nested_fields(interface: str) -> dict[str, set[str]]:
    """For an interface whose fields are object types: field name -> names inside it."""
    match = re.search(rf"export interface {interface} \{{\n(.*?)\n\}}", SOURCE, re.S)
    assert match
    out: dict[str, set[str]] = {}
    for key, inner in re.findall(r"^  (\w+): (\{.*?\}|Record<string, never>);", match.group(1), re.M | re.S):
        out[key] = set(re.findall(r"(\w+)\??:", inner))
    return out


def assert_fields(data: dict[str, Any], interface: str) -> None:
    required, optional = ts_interface(interface)
    keys = set(data)
    assert required <= keys, f"{interface}: the kernel does not send {sorted(required - keys)}"
    undeclared = sorted(keys - required - optional)
    assert not undeclared, f"{interface}: messages.ts does not declare {undeclared}"


def test_constants_match() -> None:
    """Target name, protocol version and every enumeration are the same on both sides."""
    assert ts_const("TARGET_NAME") == repr(pm.TARGET_NAME)
    assert int(ts_const("PROTOCOL_VERSION")) == pm.PROTOCOL_VERSION
    assert ts_string_array("KERNEL_MESSAGES") == list(pm.KERNEL_MESSAGES)
    assert ts_string_array("EVENTS") == list(pm.EVENTS)
    assert ts_string_array("VALUE_FIELDS") == list(pm.VALUE_FIELDS)
    assert ts_string_array("EXECUTION_STATUSES") == list(pm.EXECUTION_STATUSES)
    assert ts_string_array("ENTRY_STATES") == list(pm.ENTRY_STATES)


def test_statuses_and_states_match_the_models() -> None:
    """The enumerations mirror the runtime's own types."""
    from typing import get_args

    from codemode_kernel.models import EntryState, ExecutionStatus

    assert set(pm.EXECUTION_STATUSES) == set(get_args(ExecutionStatus))
    assert set(pm.ENTRY_STATES) == set(get_args(EntryState))


def test_request_table_matches() -> None:
    """Every request type has the same parameters, with the same kinds, on both sides."""
    assert ts_object("REQUEST_PARAMS") == {k: dict(v) for k, v in pm.REQUESTS.items()}
    params = ts_nested_fields("IRequestParams")
    assert set(params) == set(pm.REQUESTS)
    for request_type, spec in pm.REQUESTS.items():
        assert params[request_type] == set(spec), request_type
    assert set(ts_interface("IReplyData")[0]) == set(pm.REQUESTS)


@pytest.mark.anyio
async def test_kernel_messages_have_the_declared_fields(setup: Setup) -> None:
    """The kernel's real messages carry exactly the fields messages.ts declares."""
    rt = setup.host.rt
    paused = await rt.execute("shop.list_items()\nshop.create_item(title='a')")
    eid = paused["execution_id"]
    assert_fields(setup.panel.comm.sent[0], "IHelloMessage")

    snapshot_reply = await setup.panel.ask("snapshot")
    assert_fields(snapshot_reply, "IReplyMessage")
    snap = snapshot_reply["data"]
    assert_fields(snap, "ISnapshot")
    assert_fields(snap["executions"][0], "IExecutionSummary")
    assert_fields(snap["pending"][0], "IPendingAction")
    assert_fields(snap["pending"][0]["args"], "IValue")

    approved = await setup.panel.data("approve", execution_id=eid, seq=snap["pending"][0]["seq"])
    assert_fields(approved, "IApproveReply")
    event = setup.panel.comm.of_type("event")[-1]
    assert_fields(event, "IEventMessage")

    detail = await setup.panel.data("get_execution", execution_id=eid)
    assert_fields(detail, "IExecutionDetail")
    for entry in detail["entries"]:
        assert_fields(entry, "IJournalEntry")
    assert_fields(await setup.panel.data("get_value", execution_id=eid, seq=0, field="result"), "IFullValue")

    saved = await setup.panel.data("save_snippet", execution_id=eid, name="make_a", description="Make a.")
    assert_fields(saved, "ISnippetInfo")
    assert_fields(await setup.panel.data("rollback", execution_id=eid), "IRollbackReply")

    (connector,) = await setup.panel.data("list_connectors")
    assert_fields(connector, "IConnectorInfo")
    assert_fields(connector["methods"][0], "IMethodInfo")
    found = await setup.panel.data("search", query="items")
    assert_fields(found, "ISearchOutput")
    assert_fields(found["results"][0], "ISearchResult")
    assert_fields(await setup.panel.data("describe", target="shop"), "IDescribeOutput")

    error = await setup.panel.ask("describe", target="nope.nope")
    assert_fields(error, "IErrorMessage")
