"""``codemode.run`` with a name no journal can hold stops the pass as a host failure (review 15).

A snippet name is the program's text; the host looks it up in the journal as it is. A lone
surrogate (``'\\ud800'``: what ``os.listdir`` gives for an undecodable file name, or a model's
slip) cannot be encoded for the store: on the in-process executor the lookup raises
UnicodeEncodeError inside the host's answer (snippets.run_request -> journal.get_snippet), the
pass ends ``HostError: the host failed to answer the sandbox's 'snippet' request`` (with a host
traceback in the log), and the program cannot catch it; the isolated worker refuses it earlier
as a ``CodecError`` that blames "the input of snippet" (the input was None). A step's name with
one is already refused as the program's own error (``ValueError``), before anything is recorded.

The right outcome: an error the program can catch (there is no such snippet), on both executors.
"""

from __future__ import annotations

import pytest

from tests.conftest import RuntimeFactory

pytestmark = pytest.mark.anyio


async def test_a_name_no_journal_holds_is_an_error_the_program_catches(make_runtime: RuntimeFactory) -> None:
    rt = make_runtime([])
    out = await rt.execute("try:\n    codemode.run('report\\ud800')\n    r = 'ran'\nexcept Exception as e:\n"
                           "    r = 'caught: ' + str(e)\nr")
    assert out["status"] == "completed", out
    assert out["result"].startswith("caught: "), out
