"""Real connectors through CodemodeRuntime: approval pauses, exactly-once approval, rollback, errors as data."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from codemode_kernel.connectors.http_auth import HttpAuth
from codemode_kernel.connectors.mcp import McpConnector
from codemode_kernel.connectors.openapi import OpenApiConnector
from codemode_kernel.demo.mcp_server import NoteStore, build_server
from tests.conftest import RuntimeFactory
from tests.connectors.services import TOKEN, Service

pytestmark = pytest.mark.anyio

DOC = Path(__file__).resolve().parents[2] / "codemode_kernel" / "demo" / "petstore.yaml"
BIN = Path(sys.executable).parent


@pytest.fixture
def pets(pet_service: Service, monkeypatch: pytest.MonkeyPatch) -> OpenApiConnector:
    monkeypatch.setenv("PETS_TOKEN", TOKEN)
    return OpenApiConnector("pets", DOC, base_url=pet_service.url, auth=HttpAuth.bearer(token_env="PETS_TOKEN"),
                            idempotency_header=True,
                            reverts={"createPet": {"method": "deletePet", "args": {"petId": "$result.id"}}})


CREATE_PET = """
before = len(pets.listPets(species="bird"))
pet = pets.createPet(name="Tweety", species="bird", tags=["yellow"])
[before, pet["name"], len(pets.listPets(species="bird"))]
"""


async def test_openapi_write_pauses_then_runs_exactly_once(make_runtime: RuntimeFactory, pets: OpenApiConnector,
                                                           pet_service: Service) -> None:
    """createPet pauses the cell; approve sends the POST once (counted by the service); replays send no POST."""
    rt = make_runtime([pets])
    posts_before = pet_service.requests().get("POST /pets", 0)
    out = await rt.execute(CREATE_PET)
    assert out["status"] == "paused", out
    assert out["pending"][0]["method"] == "createPet"
    assert out["pending"][0]["args"] == {"name": "Tweety", "species": "bird", "tags": ["yellow"]}
    assert pet_service.requests().get("POST /pets", 0) == posts_before
    done = await rt.approve(out["execution_id"])
    assert done["status"] == "completed", done
    before, name, after = done["result"]
    assert name == "Tweety" and after == before + 1
    assert pet_service.requests()["POST /pets"] == posts_before + 1
    again = await rt.approve(out["execution_id"])
    assert again["status"] == "error"
    assert pet_service.requests()["POST /pets"] == posts_before + 1


async def test_openapi_rollback_uses_the_revert_mapping(make_runtime: RuntimeFactory, pets: OpenApiConnector,
                                                        pet_service: Service) -> None:
    """Rolling back a completed execution calls deletePet with the created id."""
    rt = make_runtime([pets])
    out = await rt.execute('pets.createPet(name="Undo", species="fish")["id"]')
    done = await rt.approve(out["execution_id"])
    pet_id = done["result"]
    deletes = pet_service.requests().get("DELETE /pets/{petId}", 0)
    await rt.rollback(out["execution_id"])
    assert pet_service.requests()["DELETE /pets/{petId}"] == deletes + 1
    state = await rt.execution(out["execution_id"])
    assert state is not None and state.status == "rolled_back"
    check = await rt.execute(f"pets.getPet(petId={pet_id})")
    assert check["status"] == "error" and "HTTP 404" in check["error"]


async def test_http_errors_are_exceptions_the_code_can_catch(make_runtime: RuntimeFactory,
                                                             pets: OpenApiConnector) -> None:
    """A 404 is a ConnectorError inside the code; uncaught, the execution ends in error as data."""
    rt = make_runtime([pets])
    caught = await rt.execute("try:\n    pets.getPet(petId=424242)\nexcept ConnectorError as e:\n"
                              "    message = str(e)\nmessage")
    assert caught["status"] == "completed"
    assert "returned HTTP 404 Not Found: no pet with id 424242" in caught["result"]
    bad_args = await rt.execute('pets.createPet(name="x", species="dragon")')
    assert bad_args["status"] == "error" and "species" in bad_args["error"]
    assert bad_args["error_type"] == "ArgumentError"


async def test_unreachable_service_is_an_error_and_the_runtime_stays_usable(make_runtime: RuntimeFactory) -> None:
    """Nothing at base_url: the call fails as data, and the next execution runs normally."""
    rt = make_runtime([OpenApiConnector("pets", DOC, base_url="http://127.0.0.1:9")])
    out = await rt.execute("pets.health()")
    assert out["status"] == "error" and "could not connect" in out["error"]
    assert (await rt.execute("1 + 1"))["result"] == 2


async def test_malformed_document_is_an_error_naming_the_path(make_runtime: RuntimeFactory, tmp_path: Path) -> None:
    """A broken document leaves that connector out; the author's view names where it is broken, the model's does not."""
    broken = tmp_path / "broken.yaml"
    broken.write_text("openapi: 3.0.0\ninfo: {title: t, version: '1'}\npaths:\n  /a:\n    get:\n"
                      "      parameters:\n        - {name: q, in: body}\n")
    rt = make_runtime([OpenApiConnector("api", broken, base_url="http://127.0.0.1:9")])
    assert (await rt.execute("1"))["result"] == 1
    out = await rt.execute("api.a()")
    assert out["status"] == "error"
    assert "connector 'api' is unavailable: its OpenAPI document could not be used" in out["error"]
    assert str(broken) not in out["error"]
    assert "paths./a.get.parameters[0]: parameter 'q': `in` must be path, query, header or cookie" in \
        (await rt.catalog()).unavailable["api"]


async def test_mcp_approval_and_rollback_in_process(make_runtime: RuntimeFactory) -> None:
    """An MCP tool needing approval runs once when approved; rollback calls the mapped tool."""
    store = NoteStore()
    notes = McpConnector("notes", server=build_server(store), requires_approval=["add_note"],
                         reverts={"add_note": {"method": "delete_note", "args": {"note_id": "$result.id"}}})
    rt = make_runtime([notes])
    out = await rt.execute('n = notes.add_note(title="approved once")\n[n["id"], notes.word_count(text="a b")]')
    assert out["status"] == "paused"
    assert store.calls["add_note"] == 0
    done = await rt.approve(out["execution_id"])
    assert done["status"] == "completed" and done["result"] == [1, 2]
    assert store.calls["add_note"] == 1 and store.calls["word-count"] == 1
    await rt.rollback(out["execution_id"])
    assert store.notes == {} and store.calls["delete_note"] == 1


async def test_mcp_tool_errors_are_catchable(make_runtime: RuntimeFactory) -> None:
    """An MCP error result is a ConnectorError the code may catch."""
    rt = make_runtime([McpConnector("notes", server=build_server())])
    out = await rt.execute('try:\n    notes.fail(message="nope")\nexcept ConnectorError as e:\n    r = str(e)\nr')
    assert out["status"] == "completed" and "nope" in out["result"]


async def test_a_server_that_fails_to_start_is_an_error_and_can_be_fixed(make_runtime: RuntimeFactory,
                                                                          tmp_path: Path) -> None:
    """The author sees the server's stderr, the model a short reason; once fixed the same runtime works."""
    flag = tmp_path / "ready"
    script = (f"import os, sys, runpy\nif not os.path.exists({str(flag)!r}):\n"
              "    sys.stderr.write('missing the ready flag\\n'); sys.exit(3)\n"
              "sys.argv = ['demo']\nrunpy.run_module('codemode_kernel.demo.mcp_server', run_name='__main__')\n")
    notes = McpConnector("notes", command=sys.executable, args=["-c", script])
    rt = make_runtime([notes])
    out = await rt.execute("notes.word_count(text='x y z')")
    assert out["status"] == "error" and "connector 'notes' is unavailable: its MCP server did not start" in out["error"]
    assert "missing the ready flag" not in out["error"]
    author = (await rt.catalog()).unavailable["notes"]
    assert "could not be started" in author and "missing the ready flag" in author
    flag.write_text("ok")
    out = await rt.execute("notes.word_count(text='x y z')")
    assert out["status"] == "completed" and out["result"] == 3, out


@pytest.fixture
def git_repo(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    repo.mkdir()
    for args in (["init", "-q", "-b", "main"], ["config", "user.name", "Test"], ["config", "user.email", "t@x.org"]):
        subprocess.run(["git", *args], cwd=repo, check=True)
    (repo / "README.md").write_text("hello\n")
    subprocess.run(["git", "add", "README.md"], cwd=repo, check=True)
    subprocess.run(["git", "commit", "-qm", "first"], cwd=repo, check=True)
    return repo


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
async def test_mcp_server_git_commit_needs_approval_then_lands(make_runtime: RuntimeFactory, git_repo: Path) -> None:
    """mcp-server-git: git_add runs, git_commit pauses; approved, the commit is in the repository once."""
    git = McpConnector("git", command=str(BIN / "mcp-server-git"), args=["--repository", str(git_repo)],
                       requires_approval=["git_commit"], env={"GIT_AUTHOR_NAME": "Code Mode",
                                                              "GIT_AUTHOR_EMAIL": "cm@example.org"})
    rt = make_runtime([git])
    (git_repo / "notes.txt").write_text("from code mode\n")
    repo = str(git_repo)
    code = (f"git.git_add(repo_path={repo!r}, files=['notes.txt'])\n"
            f"msg = git.git_commit(repo_path={repo!r}, message='Add notes via Code Mode')\n"
            "msg")
    out = await rt.execute(code)
    assert out["status"] == "paused", out
    assert out["pending"][0]["method"] == "git_commit"
    log = subprocess.run(["git", "log", "--oneline"], cwd=git_repo, capture_output=True, text=True).stdout
    assert "Add notes via Code Mode" not in log
    done = await rt.approve(out["execution_id"])
    assert done["status"] == "completed", done
    log = subprocess.run(["git", "log", "--format=%s"], cwd=git_repo, capture_output=True, text=True).stdout
    assert log.splitlines() == ["Add notes via Code Mode", "first"]
    assert os.path.exists(git_repo / "notes.txt")
