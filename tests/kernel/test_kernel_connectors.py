"""codemode.toml → real MCP and OpenAPI connectors in a kernel, end to end.

The MCP server is the bundled demo server over stdio; the HTTP service is the bundled
demo API on 127.0.0.1 (a free port), which counts requests per operation so a test can
prove the approved call reached the service once.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.kernel.kernel_harness import Kernel, write_notebook_dir

DOC = Path(__file__).resolve().parents[2] / "codemode_kernel" / "demo" / "petstore.yaml"
TOKEN = "kernel-test-token"


@pytest.fixture(scope="module")
def service() -> Iterator[str]:
    env = {**os.environ, "CODEMODE_DEMO_TOKEN": TOKEN}
    proc = subprocess.Popen([sys.executable, "-m", "codemode_kernel.demo.http_service", "--port", "0"],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env)
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        url = line.strip().rsplit(" ", 1)[-1]
        assert url.startswith("http://127.0.0.1:"), line
        yield url
    finally:
        proc.terminate()
        proc.wait(timeout=10)
        if proc.stdout is not None:
            proc.stdout.close()


def requests_to(url: str, route: str) -> int:
    with urllib.request.urlopen(f"{url}/_debug/requests", timeout=10) as r:
        return int(json.load(r).get(route, 0))


@pytest.fixture(scope="module")
def connected(tmp_path_factory: pytest.TempPathFactory, service: str) -> Iterator[Kernel]:
    folder = tmp_path_factory.mktemp("connectors") / "nb"
    server = json.dumps([sys.executable, "-m", "codemode_kernel.demo.mcp_server", "--store", "memo.json"])
    write_notebook_dir(folder, extra_toml=f'''
[connectors.memo]
mcp = "{" ".join(json.loads(server))}"
approval_from_annotations = true
hint = "MCP notes"

[connectors.petstore]
openapi = {json.dumps(str(DOC))}
base_url = "{service}"
auth = {{ type = "bearer", token_env = "KERNEL_TEST_PET_TOKEN" }}
include = ["tag:pets"]
''')
    kernel = Kernel(folder, env={"KERNEL_TEST_PET_TOKEN": TOKEN})
    yield kernel
    kernel.shutdown()


def test_mcp_tools_are_methods_and_annotations_drive_approval(connected: Kernel) -> None:
    assert connected.ok("memo.shout(text='hi')").result == {"text/plain": "'HI'"}
    assert "word_count" in connected.shell_reply(connected.kc.complete("memo.wo", 7))["content"]["matches"]
    paused = connected.ok("memo.delete_note(note_id=1)")
    assert paused.card is not None, "a destructive MCP tool needs approval"
    connected.ok("%reject last")


def test_an_openapi_write_pauses_and_reaches_the_service_once(connected: Kernel, service: str) -> None:
    before = requests_to(service, "POST /pets")
    paused = connected.ok("pet = petstore.createPet(name='Rex', species='dog')\npet['name']")
    card = paused.card
    assert card is not None
    assert requests_to(service, "POST /pets") == before
    connected.wait_until(lambda: bool(connected.widgets.buttons(card, "Approve")), what="the card")
    connected.click(connected.widgets.buttons(card, "Approve")[0])
    connected.wait_until(lambda: "Completed" in connected.widgets.header(card), what="completion")
    assert "'Rex'" in connected.widgets.texts(card)
    assert requests_to(service, "POST /pets") == before + 1
    connectors = connected.ok("%connectors").of("display_data")[0]["data"]["text/plain"]
    assert "memo" in connectors and "mcp" in connectors and "openapi" in connectors
