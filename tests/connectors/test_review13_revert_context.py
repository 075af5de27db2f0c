"""A configured revert does not reach its method with the reverted call's idempotency key (review 13).

README tells connector authors that ``ctx.idempotency_key`` (``execution_id:seq``) is "the key to
deduplicate side effects with", and ``reverts = { add_note = { method = "delete_note", args = {
note_id = "$result.id" } } }`` makes a rollback call ``delete_note``. For a ``python`` connector
(``policy.WithPolicy``) that call is ``delete_note``'s ``execute(args, ctx)`` with the *same*
``ExecutionContext`` as the ``add_note`` it undoes: the same idempotency key, and ``ctx.method``
still ``add_note``. A connector (or the service behind it) that deduplicates by the key, as
advised, answers the revert with the stored ``add_note`` outcome and deletes nothing; the rollback
reports success (the execution is ``rolled_back``) while the note stays. The OpenAPI connector
sends ``<key>:revert`` for the same reason; the configured revert of a python connector does not.

The right outcome: the revert reaches ``delete_note`` with a key of its own (and its own method
name), so the note is deleted.
"""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

MODULE = textwrap.dedent('''
    """Notes whose writes are deduplicated by ctx.idempotency_key, as README advises."""
    import json
    import sqlite3
    from pathlib import Path

    from codemode_kernel import ToolSetConnector

    DB = Path(__file__).with_name("notes.sqlite")


    def db():
        c = sqlite3.connect(DB)
        c.execute("create table if not exists notes(id integer primary key, text text)")
        c.execute("create table if not exists done(key text primary key, result text)")
        c.execute("create table if not exists calls(method text, ctx_method text, key text)")
        return c


    def once(c, method, ctx, work):
        c.execute("insert into calls values (?, ?, ?)", (method, ctx.method, ctx.idempotency_key))
        row = c.execute("select result from done where key = ?", (ctx.idempotency_key,)).fetchone()
        if row is not None:
            return json.loads(row[0])  # already applied under this key: the stored outcome
        result = work()
        c.execute("insert into done values (?, ?)", (ctx.idempotency_key, json.dumps(result)))
        return result


    def make():
        def add_note(text: str, ctx) -> dict:
            """Add a note."""
            with db() as c:
                return once(c, "add_note", ctx, lambda: {
                    "id": c.execute("insert into notes(text) values (?)", (text,)).lastrowid, "text": text})

        def delete_note(note_id: int, ctx) -> bool:
            """Delete a note."""
            with db() as c:
                return once(c, "delete_note", ctx,
                            lambda: c.execute("delete from notes where id = ?", (note_id,)).rowcount > 0)

        return ToolSetConnector([add_note, delete_note], name="notes")
''')

CONFIG = '''
[connectors.notes]
python = "idem_notes:make"
requires_approval = false
reverts = { add_note = { method = "delete_note", args = { note_id = "$result.id" } } }
'''

CODEMODE = str(Path(sys.executable).with_name("codemode"))


def codemode(folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([CODEMODE, "--dir", str(folder), *args], cwd=folder, capture_output=True, text=True,
                          timeout=120)



def test_a_rollback_deletes_the_note_a_deduplicating_connector_added(tmp_path: Path) -> None:
    """It is an error if `codemode rollback` says rolled back while delete_note was answered as a duplicate."""
    (tmp_path / "idem_notes.py").write_text(MODULE)
    (tmp_path / "codemode.toml").write_text(CONFIG)
    program = tmp_path / "add.py"
    program.write_text("notes.add_note(text='draft')['id']\n")
    ran = codemode(tmp_path, "run", str(program))
    assert "[completed]" in ran.stdout, ran.stdout + ran.stderr
    rolled = codemode(tmp_path, "rollback", "last")
    with sqlite3.connect(tmp_path / "notes.sqlite") as c:
        notes = [t for (t,) in c.execute("select text from notes")]
        calls = list(c.execute("select method, ctx_method, key from calls"))
    assert [m for m, _, _ in calls] == ["add_note", "delete_note"], (calls, rolled.stdout, rolled.stderr)
    assert calls[1][2] != calls[0][2], f"the revert was sent with the add's key: {calls}"
    assert notes == [], f"the note is still there after a rollback that said: {rolled.stdout}"
