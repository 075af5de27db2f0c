"""Whatever a browser sends, the kernel answers with an error reply and never raises."""

from __future__ import annotations

import asyncio
import random
import threading
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from codemode_kernel.errors import PanelRequestError
from codemode_kernel.kernel import panel_messages as pm
from codemode_kernel.kernel.panel import PanelChannel
from tests.panel.conftest import FakeComm, FakeCommManager, Host, Setup

pytestmark = pytest.mark.anyio

MALFORMED: list[tuple[Any, str]] = [
    (None, "must be a JSON object, not NoneType"),
    ([1, 2], "must be a JSON object, not list"),
    ("snapshot", "must be a JSON object, not str"),
    ({}, "Unknown panel request type None"),
    ({"type": "drop_tables", "request_id": "r1"}, "Unknown panel request type 'drop_tables'"),
    ({"type": "snapshot"}, "needs a 'request_id' string"),
    ({"type": "snapshot", "request_id": 7}, "needs a 'request_id' string"),
    ({"type": "snapshot", "request_id": "r" * 201}, "needs a 'request_id' string"),
    ({"type": "get_execution", "request_id": "r1"}, "needs 'execution_id' (str)"),
    ({"type": "get_execution", "request_id": "r1", "execution_id": 5}, "'execution_id' must be a string, not int"),
    ({"type": "reject", "request_id": "r1", "execution_id": "x", "seq": True}, "must be a non-negative integer"),
    ({"type": "reject", "request_id": "r1", "execution_id": "x", "seq": -1}, "must be a non-negative integer"),
    ({"type": "reject", "request_id": "r1", "execution_id": "x", "seq": 1.5}, "must be a non-negative integer"),
    ({"type": "snapshot", "request_id": "r1", "limit": "10"}, "must be a non-negative integer"),
    ({"type": "approve", "request_id": "r1", "execution_id": "x", "force": True}, "does not take 'force'"),
    ({"type": "search", "request_id": "r1", "query": "q" * 10_001}, "longer than 10,000 characters"),
]


@pytest.mark.parametrize(("data", "message"), MALFORMED)
async def test_malformed_requests_get_an_error_reply(setup: Setup, data: Any, message: str) -> None:
    """Each malformed request gets exactly one error reply that says what is wrong."""
    before = len(setup.panel.comm.sent)
    await setup.panel.send(data)
    (answer,) = setup.panel.comm.sent[before:]
    assert answer["type"] == "error" and answer["error_type"] == "PanelRequestError"
    assert message in answer["error"]
    assert setup.host.calls == []


async def test_error_reply_keeps_the_request_id_when_it_has_one(setup: Setup) -> None:
    """The panel can match the error to its request."""
    await setup.panel.send({"type": "approve", "request_id": "r9"})
    assert setup.panel.comm.sent[-1]["request_id"] == "r9" and setup.panel.comm.sent[-1]["request"] == "approve"


async def test_a_message_without_content_is_answered(setup: Setup) -> None:
    """Even a comm message with no content gets an error reply rather than an exception."""
    assert setup.panel.comm._on_msg is not None
    setup.panel.comm._on_msg({})
    await setup.channel.drain()
    assert setup.panel.comm.sent[-1]["type"] == "error"


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner, max_size=4),
    max_leaves=12,
)
REQUEST_LIKE = st.fixed_dictionaries(
    {"type": st.sampled_from([*pm.REQUESTS, "nope"]), "request_id": st.text(min_size=1, max_size=8)},
    optional={
        "execution_id": st.text(max_size=30) | st.integers(),
        "seq": st.integers(-2, 5) | st.none() | st.booleans(),
        "field": st.sampled_from([*pm.VALUE_FIELDS, "other"]),
        "name": st.text(max_size=20),
        "query": st.text(max_size=20),
        "target": st.text(max_size=20),
        "limit": st.integers(-1, 5),
        "extra": JSON,
    },
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=JSON | REQUEST_LIKE)
def test_parse_request_accepts_or_refuses_never_crashes(data: Any) -> None:
    """Any JSON value is either a valid request or refused with PanelRequestError."""
    try:
        request = pm.parse_request(data)
    except PanelRequestError as exc:
        assert str(exc)
        return
    assert request.type in pm.REQUESTS and set(request.params) == set(pm.REQUESTS[request.type])


def random_request(rng: random.Random, i: int, execution_id: str) -> dict[str, Any]:
    """A request that is valid, slightly wrong, or plain wrong, at random."""
    valid: dict[str, list[Any]] = {
        "execution_id": [execution_id, "NOPE"],
        "seq": [None, 0, 1, 2],
        "field": list(pm.VALUE_FIELDS),
        "name": ["good_name", "bad name!"],
        "description": ["d", None],
        "query": ["items", ""],
        "target": ["shop", "shop.create_item", "x.y"],
        "limit": [None, 0, 1],
    }
    invalid: list[Any] = [None, -1, True, 1.5, "", [], {"a": 1}]
    rtype = rng.choice([*pm.REQUESTS, "nope"])
    data: dict[str, Any] = {"type": rtype, "request_id": f"fuzz{i}"}
    for param in pm.REQUESTS.get(rtype, {"execution_id": "str"}):
        roll = rng.random()
        if roll < 0.8:
            data[param] = rng.choice(valid[param])
        elif roll < 0.9:
            data[param] = rng.choice(invalid)
    if rng.random() < 0.1:
        data[rng.choice(["extra", "seq", "kind"])] = rng.choice(invalid)
    return data


async def test_fuzzed_requests_each_get_one_answer(setup: Setup) -> None:
    """Random requests (over a runtime with executions) each get exactly one reply or error."""
    rt = setup.host.rt
    paused = await rt.execute("shop.list_items()\nshop.create_item(title='z')")
    rng = random.Random(6)
    for i in range(120):
        data = random_request(rng, i, paused["execution_id"])
        await setup.panel.send(data)
        answers = [m for m in setup.panel.comm.sent if m.get("request_id") == f"fuzz{i}"]
        assert len(answers) == 1 and answers[0]["type"] in ("reply", "error"), (data, answers)
    kinds = {m["type"] for m in setup.panel.comm.sent}
    assert {"reply", "error"} <= kinds
    # However many fuzzed approvals got through, the approved action ran at most once.
    assert setup.shop.calls["create_item"] <= 1


async def test_requests_arriving_on_another_thread_are_served_on_the_kernel_loop(setup: Setup) -> None:
    """JupyterLab may route comm messages to a subshell thread; the work still runs on the main loop."""
    paused = await setup.host.rt.execute("shop.create_item(title='t')")
    eid = paused["execution_id"]
    thread_loop_ran = threading.Event()

    def subshell() -> None:
        async def deliver() -> None:
            setup.panel.comm.deliver({"type": "approve", "request_id": "sub1", "execution_id": eid,
                                       "seq": paused["pending"][0]["seq"]})
            thread_loop_ran.set()

        asyncio.run(deliver())

    worker = threading.Thread(target=subshell)
    worker.start()
    while worker.is_alive() or not thread_loop_ran.is_set():
        await asyncio.sleep(0.01)
    for _ in range(500):
        if any(m.get("request_id") == "sub1" for m in setup.panel.comm.sent):
            break
        await asyncio.sleep(0.01)
        await setup.channel.drain()
    (answer,) = [m for m in setup.panel.comm.sent if m.get("request_id") == "sub1"]
    assert answer["type"] == "reply" and answer["data"]["status"] == "completed"
    assert setup.host.threads == [threading.get_ident()]
    assert setup.shop.calls["create_item"] == 1


async def test_a_channel_built_with_an_explicit_loop_uses_it(setup: Setup) -> None:
    """The kernel may hand the channel its loop before the loop runs."""
    channel = PanelChannel(Host(setup.host.rt), loop=asyncio.get_running_loop())
    manager = FakeCommManager()
    channel.register(manager)
    comm = manager.open(PanelChannel.target_name, FakeComm("explicit"))
    comm.deliver({"type": "list_connectors", "request_id": "e1"})
    await channel.drain()
    assert comm.sent[-1]["type"] == "reply" and comm.sent[-1]["data"][0]["name"] == "shop"
