"""A cell cannot change the host's abstract base classes (review 13).

On the in-process executor a cell runs in the host's interpreter, and the allow-listed
``collections`` module hands it the host's own ``collections.abc`` classes, whose public
``register`` method is a write into process-wide state: ``collections.abc.Mapping.register(list)``
makes every list a Mapping for the rest of the process. The host's journal, validation and
discovery ask ``isinstance(x, Mapping)``, so from then on:

- ``Mapping.register(list)``: the cell's own pass ends "the host could not record the pass
  (AttributeError: 'list' object has no attribute 'items'); nothing was recorded" (the journal's
  ``_json_of`` of the connector names), and so does every later execution of the kernel;
- ``Mapping.register(str)`` / ``Sequence.register(dict)``: every later connector call ends
  ``HostError`` (the input validator walks strings as schemas; ``referencing`` reads ``$defs`` as
  a list index).

language.py's design log says the write guard keeps a cell from poisoning shared modules on the
in-process executor (review 12 fixed ``functools.update_wrapper`` writing into ``json``); this is
the same class of write through a method. The right outcome: the registration is refused (an
error the cell sees) or has no effect outside the pass, and the host works on.

Each case runs in a fresh interpreter: a registration cannot be undone, and would change this
test process.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

HOST = textwrap.dedent('''
    import asyncio, collections.abc, json, sys
    from codemode_kernel import CodemodeRuntime, InProcessExecutor
    from tests.support import Shop

    async def main():
        rt = CodemodeRuntime(connectors=[Shop()], store="sqlite:///" + sys.argv[2], executor=InProcessExecutor())
        async with rt:
            first = await rt.execute(sys.argv[1])
            second = await rt.execute("len(shop.list_items())")
        print(json.dumps({"first": first["status"], "second": second["status"], "items": second.get("result"),
                          "error": second.get("error"),
                          "list": isinstance([], collections.abc.Mapping),
                          "str": isinstance("", collections.abc.Mapping),
                          "dict": isinstance({}, collections.abc.Sequence)}))

    asyncio.run(main())
''')

REGISTRATIONS = {
    "list as Mapping": "collections.abc.Mapping.register(list)",
    "str as Mapping": "collections.abc.Mapping.register(str)",
    "dict as Sequence": "collections.abc.Sequence.register(dict)",
    "imported": "from collections.abc import Mapping\nMapping.register(list)",
}


@pytest.mark.parametrize("code", REGISTRATIONS.values(), ids=REGISTRATIONS.keys())
def test_a_cell_cannot_register_into_the_hosts_abcs(tmp_path: Path, code: str) -> None:
    """It is an error if, after such a cell, the host's isinstance answers change or its next execution fails."""
    script = tmp_path / "host.py"
    script.write_text(HOST)
    cell = f"try:\n{textwrap.indent(code, '    ')}\nexcept Exception:\n    pass\n'tried'"
    done = subprocess.run([sys.executable, str(script), cell, str(tmp_path / "j.db")], capture_output=True,
                          text=True, timeout=120, cwd=Path(__file__).resolve().parents[2],
                          env={"PYTHONPATH": str(Path(__file__).resolve().parents[2]), "CODEMODE_SEMANTIC": "0"})
    assert done.returncode == 0, done.stderr[-3000:]
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert (seen["list"], seen["str"], seen["dict"]) == (False, False, False), seen
    assert seen["first"] == "completed", seen
    assert (seen["second"], seen["items"]) == ("completed", 1), seen
