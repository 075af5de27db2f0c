"""The panel comm: what the JupyterLab panel can read and do through the kernel."""

from __future__ import annotations

import pytest

from codemode_kernel.kernel import panel_messages as pm
from codemode_kernel.kernel.panel import PanelChannel
from tests.panel.conftest import Setup

pytestmark = pytest.mark.anyio

READ_THEN_WRITE = "items = shop.list_items()\nmade = shop.create_item(title='from panel')\n[len(items), made]"


async def test_opening_the_comm_says_hello(setup: Setup) -> None:
    """A panel that opens the comm learns the protocol version, runtime name and connectors."""
    hello = setup.panel.comm.sent[0]
    assert hello == {"type": "hello", "protocol": pm.PROTOCOL_VERSION, "runtime": "default", "connectors": ["shop"]}
    assert setup.manager.targets.keys() == {"codemode.panel"}
    assert setup.channel.open_comms == 1


async def test_snapshot_lists_executions_newest_first(setup: Setup) -> None:
    """The snapshot has every execution with status, first line and counts, newest first."""
    rt = setup.host.rt
    done = await rt.execute("# list them\n\nshop.list_items()")
    paused = await rt.execute(READ_THEN_WRITE)
    snap = await setup.panel.data("snapshot")
    assert [e["id"] for e in snap["executions"]] == [paused["execution_id"], done["execution_id"]]
    newest, oldest = snap["executions"]
    assert (newest["status"], newest["first_line"], newest["calls"], newest["pending"]) == (
        "paused", "items = shop.list_items()", 2, 1)
    assert (oldest["status"], oldest["first_line"], oldest["passes"]) == ("completed", "# list them", 1)
    assert snap["pending"] == [{
        "execution_id": paused["execution_id"], "seq": 1, "connector": "shop", "method": "create_item",
        "path": "shop.create_item", "args": pm.abbreviate({"title": "from panel"}),
    }]
    assert snap["runtime"] == "default" and snap["connectors"] == ["shop"] and snap["snippets"] == []


async def test_snapshot_limit(setup: Setup) -> None:
    """The panel can ask for fewer executions."""
    for _ in range(3):
        await setup.host.rt.execute("1")
    assert len((await setup.panel.data("snapshot", limit=2))["executions"]) == 2


async def test_journal_timeline_after_approval(setup: Setup) -> None:
    """An execution's journal shows each call's seq, path, arguments, result, state and pass."""
    rt = setup.host.rt
    paused = await rt.execute(READ_THEN_WRITE)
    await rt.approve(paused["execution_id"])
    detail = await setup.panel.data("get_execution", execution_id=paused["execution_id"])
    assert detail["status"] == "completed" and detail["passes"] == 2 and detail["code"] == READ_THEN_WRITE
    assert detail["result"]["summary"] == '[ 1, { "id": 2, "title": "from panel" } ]'
    read, write = detail["entries"]
    assert (read["seq"], read["path"], read["state"], read["pass_number"]) == (0, "shop.list_items", "applied", 1)
    assert read["result"]["summary"] == '[ { "id": 1, "title": "first" } ]'
    assert (write["seq"], write["path"], write["state"], write["pass_number"]) == (1, "shop.create_item", "applied", 2)
    assert write["requires_approval"] is True and write["args"]["summary"] == '{ "title": "from panel" }'


async def test_pending_entry_has_no_result(setup: Setup) -> None:
    """A call waiting for approval is shown as pending, without a result."""
    paused = await setup.host.rt.execute(READ_THEN_WRITE)
    detail = await setup.panel.data("get_execution", execution_id=paused["execution_id"])
    assert [(e["state"], e["result"] is None) for e in detail["entries"]] == [("applied", False), ("pending", True)]
    assert detail["result"] is None


async def test_approve_from_the_panel_runs_the_action_once(setup: Setup) -> None:
    """Approve goes through the host (the cell updates) and the approved call runs exactly once."""
    paused = await setup.host.rt.execute(READ_THEN_WRITE)
    eid, seq = paused["execution_id"], paused["pending"][0]["seq"]
    other = setup.open_panel("comm-2")
    reply = await setup.panel.data("approve", execution_id=eid, seq=seq)
    assert reply == {"execution_id": eid, "status": "completed", "error": None, "pending": 0}
    assert setup.host.calls == [("approve", eid)]
    assert setup.shop.calls["create_item"] == 1 and setup.shop.calls["list_items"] == 1
    # Every open panel hears about it, not only the one that clicked.
    assert other.comm.of_type("event") == [{"type": "event", "event": "execution_changed", "execution_id": eid}]

    again = await setup.panel.ask("approve", execution_id=eid, seq=seq)
    assert again["type"] == "error" and again["error_type"] == "InvalidStateError"
    assert "The execution has completed." in again["error"]
    assert setup.shop.calls["create_item"] == 1


async def test_reject_from_the_panel(setup: Setup) -> None:
    """Reject ends the execution without running the call; a second reject says how it ended."""
    paused = await setup.host.rt.execute(READ_THEN_WRITE)
    eid = paused["execution_id"]
    assert await setup.panel.data("reject", execution_id=eid, seq=1) == {"execution_id": eid, "status": "rejected"}
    assert setup.shop.calls["create_item"] == 0
    assert (await setup.host.rt.execution(eid)).status == "rejected"  # type: ignore[union-attr]
    again = await setup.panel.data("reject", execution_id=eid, seq=1)
    assert again["status"] == "rejected"
    assert again["message"].startswith(f"Already decided: execution {eid} was rejected")
    assert setup.shop.calls["create_item"] == 0


async def test_rollback_from_the_panel(setup: Setup) -> None:
    """Roll back reverts the applied call once and reports the new status."""
    paused = await setup.host.rt.execute(READ_THEN_WRITE)
    eid = paused["execution_id"]
    await setup.host.rt.approve(eid)
    assert 2 in setup.shop.items
    reply = await setup.panel.data("rollback", execution_id=eid)
    assert reply == {"execution_id": eid, "status": "rolled_back", "reverted": 1}
    assert setup.shop.reverts == [("create_item", 2)] and 2 not in setup.shop.items
    assert setup.host.calls == [("rollback", eid)]
    detail = await setup.panel.data("get_execution", execution_id=eid)
    assert [e["state"] for e in detail["entries"]] == ["applied", "reverted"]


async def test_rollback_refused_while_paused(setup: Setup) -> None:
    """Rolling back a paused execution is refused with the runtime's reason."""
    paused = await setup.host.rt.execute(READ_THEN_WRITE)
    answer = await setup.panel.ask("rollback", execution_id=paused["execution_id"])
    assert answer["type"] == "error" and answer["error_type"] == "InvalidStateError"
    assert "roll back" in answer["error"]


async def test_delete_execution(setup: Setup) -> None:
    """Delete removes the execution; deleting it again names the problem."""
    done = await setup.host.rt.execute("shop.list_items()")
    eid = done["execution_id"]
    assert await setup.panel.data("delete_execution", execution_id=eid) == {"execution_id": eid, "deleted": True}
    assert await setup.host.rt.execution(eid) is None
    assert setup.panel.comm.of_type("event")[-1] == {"type": "event", "event": "execution_deleted", "execution_id": eid}
    again = await setup.panel.ask("delete_execution", execution_id=eid)
    assert again["error_type"] == "UnknownExecutionError" and eid in again["error"]


async def test_snippets_save_list_delete(setup: Setup) -> None:
    """Save as snippet goes through the host; the list shows it; delete removes it."""
    done = await setup.host.rt.execute("shop.list_items()")
    eid = done["execution_id"]
    saved = await setup.panel.data("save_snippet", execution_id=eid, name=" all_items ", description="List items.")
    assert (saved["name"], saved["description"], saved["connectors"]) == ("all_items", "List items.", ["shop"])
    assert saved["code"]["text"] == "shop.list_items()" and saved["execution_id"] == eid
    assert setup.host.calls == [("save_snippet", eid)]
    assert [s["name"] for s in (await setup.panel.data("snapshot"))["snippets"]] == ["all_items"]

    assert await setup.panel.data("delete_snippet", name="all_items") == {"name": "all_items", "deleted": True}
    missing = await setup.panel.ask("delete_snippet", name="all_items")
    assert missing["error_type"] == "SnippetError" and "saved snippets: none" in missing["error"]


async def test_save_snippet_of_a_paused_execution_is_refused(setup: Setup) -> None:
    """Only completed executions become snippets."""
    paused = await setup.host.rt.execute(READ_THEN_WRITE)
    answer = await setup.panel.ask("save_snippet", execution_id=paused["execution_id"], name="x")
    assert answer["error_type"] == "InvalidStateError"


async def test_connectors_search_and_describe(setup: Setup) -> None:
    """Connectors list their methods with approval and revert flags; search ranks; describe declares."""
    (shop,) = await setup.panel.data("list_connectors")
    assert shop["name"] == "shop" and shop["instructions"] == "A small item store."
    methods = {m["name"]: m for m in shop["methods"]}
    assert list(methods) == sorted(methods)
    assert methods["create_item"]["requires_approval"] is True and methods["create_item"]["revertible"] is True
    assert methods["list_items"]["requires_approval"] is False and methods["list_items"]["revertible"] is False
    assert methods["ping"]["replay"] == "reexecute"

    found = await setup.panel.data("search", query="create a new item")
    assert found["results"][0]["path"] == "shop.create_item"
    declared = await setup.panel.data("describe", target="shop.create_item")
    assert declared["kind"] == "method" and "def create_item" in declared["types"]

    unknown = await setup.panel.ask("describe", target="nothing.here")
    assert unknown["type"] == "error" and unknown["error_type"] == "LookupError"
    assert unknown["error"].startswith("nothing named 'nothing.here'")


async def test_large_values_are_abbreviated_and_fetched_on_demand(setup: Setup) -> None:
    """A big result travels as a preview; get_value returns all of it."""
    big = "x" * 50_000
    out = await setup.host.rt.execute(f"shop.create_item(title='{big}')")
    eid = out["execution_id"]
    await setup.host.rt.approve(eid)
    detail = await setup.panel.data("get_execution", execution_id=eid)
    (entry,) = detail["entries"]
    assert entry["args"]["truncated"] is True and entry["args"]["chars"] > 50_000
    assert len(entry["args"]["text"]) == pm.PREVIEW_CHARS + 1 and len(entry["args"]["summary"]) <= pm.SUMMARY_CHARS
    assert detail["result"]["truncated"] is True

    full = await setup.panel.data("get_value", execution_id=eid, seq=0, field="args")
    assert full["truncated"] is False and big in full["text"] and full["chars"] == entry["args"]["chars"]
    result = await setup.panel.data("get_value", execution_id=eid, field="result")
    assert big in result["text"]
    code = await setup.panel.data("get_value", execution_id=eid, field="code")
    assert code["text"] == f"shop.create_item(title='{big}')"


async def test_get_value_names_what_exists(setup: Setup) -> None:
    """Asking for a value that does not exist says what does."""
    out = await setup.host.rt.execute("shop.list_items()")
    eid = out["execution_id"]
    no_entry = await setup.panel.ask("get_value", execution_id=eid, seq=7, field="result")
    assert no_entry["error"] == f"Execution {eid!r} has no journal entry 7; its entries are 0 to 0."
    bad_field = await setup.panel.ask("get_value", execution_id=eid, seq=0, field="code")
    assert "'args' and 'result'" in bad_field["error"]
    unknown_field = await setup.panel.ask("get_value", execution_id=eid, field="secrets")
    assert "field must be one of args, result, code, logs" in unknown_field["error"]


async def test_unknown_execution_ids_get_error_replies(setup: Setup) -> None:
    """Every request about an unknown execution gets an error reply; the host is not asked to act."""
    for request_type in ("get_execution", "approve", "rollback", "delete_execution"):
        seq = {"seq": 0} if request_type == "approve" else {}
        answer = await setup.panel.ask(request_type, execution_id="NOPE", **seq)
        assert answer["type"] == "error" and answer["request"] == request_type
        assert answer["error_type"] in ("UnknownExecutionError", "InvalidStateError"), answer
        assert "'NOPE'" in answer["error"]
    reject = await setup.panel.ask("reject", execution_id="NOPE", seq=0)
    assert reject["error_type"] == "UnknownExecutionError"


async def test_notify_reaches_every_open_panel(setup: Setup) -> None:
    """notify() pushes an event to every open panel; closed ones are forgotten."""
    second = setup.open_panel("comm-2")
    third = setup.open_panel("comm-3")
    third.comm.close_from_browser()
    setup.channel.notify("execution_started", "01ABC")
    expected = {"type": "event", "event": "execution_started", "execution_id": "01ABC"}
    assert setup.panel.comm.of_type("event") == [expected] and second.comm.of_type("event") == [expected]
    assert third.comm.of_type("event") == []
    assert setup.channel.open_comms == 2


async def test_a_comm_that_fails_to_send_is_dropped(setup: Setup) -> None:
    """A comm whose send raises (its kernel socket went away) is dropped, not raised."""
    setup.panel.comm.closed = True  # closed without telling the channel
    setup.channel.notify("execution_changed", None)
    assert setup.channel.open_comms == 0


async def test_a_broken_runtime_is_reported_not_raised(setup: Setup) -> None:
    """If the kernel cannot build its runtime, hello and every request say why."""
    setup.host.broken = True
    panel = setup.open_panel("comm-2")
    hello = panel.comm.sent[0]
    assert hello["type"] == "hello" and "codemode.toml" in hello["error"]
    answer = await panel.ask("snapshot")
    assert answer["type"] == "error" and answer["error_type"] == "RuntimeError" and "codemode.toml" in answer["error"]


def test_every_request_type_has_a_handler() -> None:
    """The channel serves exactly the requests the protocol declares."""
    from codemode_kernel.kernel.panel import _HANDLERS

    assert set(_HANDLERS) == set(pm.REQUESTS)


async def test_channel_without_comms_ignores_notify(setup: Setup) -> None:
    """notify() with no panel open does nothing."""
    lonely = PanelChannel(setup.host)
    lonely.notify("execution_changed", None)
    assert lonely.open_comms == 0
