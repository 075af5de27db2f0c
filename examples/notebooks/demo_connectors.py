"""Connectors for the teaching notebooks: a notes store (SQLite) and a team directory.

Both are real and offline. ``codemode.toml`` beside this file makes them the globals
``notes`` and ``team`` of every Code Mode cell in this folder.

- ``notes`` is a :class:`~codemode_kernel.Connector` written by hand: a small SQLite notes
  store whose writes need approval and can be rolled back (each write records what it
  changed in an undo table keyed by ``execution_id:seq``, so a revert works from any
  process, after a restart). One write cannot be undone: ``send_note`` "sends" a note
  (to a local outbox table), and a sent message cannot be recalled. Notebook 03 uses it to
  show that rollback is compensation, not isolation.
- ``team`` is a :class:`~codemode_kernel.ToolSetConnector` made of plain functions: its
  input schemas come from the type hints and docstrings.

Connector code runs in the kernel (the host), never in the sandbox: the sandbox sees
only the JSON values these methods return.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from codemode_kernel import Connector, ExecutionContext, Tool, ToolSetConnector, tool

HERE = Path(__file__).resolve().parent
DEFAULT_PATH = HERE / "notes.sqlite"

SEED_NOTES: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("Release checklist", "Tag the release, publish the wheel, announce it.", ("release", "ada")),
    ("Flaky test in CI", "test_retention fails once in 40 runs on 2 cores.", ("ci", "grace")),
    ("Standup notes", "Ada: packaging. Grace: CI. Linus: docs.", ("meeting",)),
    ("Docs: connector guide", "Explain tool annotations and approvals.", ("docs", "linus")),
    ("Idea: weekly digest", "Mail a digest of new notes every Monday.", ("idea",)),
)

SCHEMA = """
CREATE TABLE IF NOT EXISTS notes (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    title TEXT NOT NULL,
    body TEXT NOT NULL DEFAULT '',
    tags TEXT NOT NULL DEFAULT '[]',
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    deleted INTEGER NOT NULL DEFAULT 0,
    created_by TEXT UNIQUE
);
CREATE TABLE IF NOT EXISTS outbox (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    note_id INTEGER NOT NULL,
    recipient TEXT NOT NULL,
    subject TEXT NOT NULL,
    sent_at TEXT NOT NULL,
    sent_by TEXT UNIQUE
);
CREATE TABLE IF NOT EXISTS activity (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    at TEXT NOT NULL,
    call TEXT NOT NULL,
    what TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS undo (
    call TEXT PRIMARY KEY,
    note_id INTEGER NOT NULL,
    before TEXT
);
"""


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


class NotesStore(Connector):
    """A notes store in one SQLite file, exposed as the ``notes`` connector.

    Writes are exactly-once per journaled call: each write is keyed by the call's
    ``idempotency_key`` (``execution_id:seq``), so a retried call returns what the first
    one did instead of writing twice.
    """

    instructions = (
        "A small notes store: notes have an id, a title, a body and tags. Reading is free; "
        "add/update/delete/send need approval. Every write except send_note can be rolled back."
    )

    def __init__(self, path: str | Path = DEFAULT_PATH, *, name: str = "notes", seed: bool = True) -> None:
        self.name = name
        self.path = Path(path)
        self._lock = threading.Lock()
        with self._db() as db:
            db.executescript(SCHEMA)
            empty = db.execute("SELECT COUNT(*) FROM notes").fetchone()[0] == 0
            if seed and empty:
                for title, body, tags in SEED_NOTES:
                    now = _now()
                    db.execute("INSERT INTO notes (title, body, tags, created_at, updated_at) VALUES (?, ?, ?, ?, ?)",
                               (title, body, json.dumps(list(tags)), now, now))

    # -- storage ----------------------------------------------------------------------------

    @contextmanager
    def _db(self) -> Iterator[sqlite3.Connection]:
        # One short connection per call: methods run on worker threads, and several kernels
        # may share the file (WAL lets readers and one writer work at once).
        with self._lock:
            db = sqlite3.connect(self.path, timeout=10)
            try:
                db.row_factory = sqlite3.Row
                db.execute("PRAGMA journal_mode=WAL")
                with db:
                    yield db
            finally:
                db.close()

    @staticmethod
    def _note(row: sqlite3.Row) -> dict[str, Any]:
        return {"id": row["id"], "title": row["title"], "body": row["body"], "tags": json.loads(row["tags"]),
                "updated_at": row["updated_at"]}

    def _get(self, db: sqlite3.Connection, note_id: int, *, deleted: bool = False) -> sqlite3.Row:
        row = db.execute("SELECT * FROM notes WHERE id = ? AND deleted = ?", (note_id, int(deleted))).fetchone()
        if row is None:
            raise LookupError(f"no note with id {note_id}; notes.list_notes() shows the ids that exist")
        return row

    @staticmethod
    def _log(db: sqlite3.Connection, call: str, what: str) -> None:
        # Every call that reaches the store is logged, so a notebook can show which calls
        # really ran (a replayed call never reaches the connector, so it is not here).
        db.execute("INSERT INTO activity (at, call, what) VALUES (?, ?, ?)", (_now(), call, what))

    def _remember(self, db: sqlite3.Connection, ctx: ExecutionContext, note_id: int,
                  before: Mapping[str, Any] | None) -> None:
        db.execute("INSERT OR IGNORE INTO undo (call, note_id, before) VALUES (?, ?, ?)",
                   (ctx.idempotency_key, note_id, json.dumps(before) if before is not None else None))

    def _undo_record(self, db: sqlite3.Connection, ctx: ExecutionContext) -> sqlite3.Row:
        # A revert's context names the call it undoes (execution_id, seq); its own key ends ':revert'.
        call = f"{ctx.execution_id}:{ctx.seq}"
        row = db.execute("SELECT * FROM undo WHERE call = ?", (call,)).fetchone()
        if row is None:
            raise LookupError(f"nothing recorded for call {call}; it cannot be reverted")
        return row

    # -- reading ----------------------------------------------------------------------------

    def list_notes(self, tag: str | None = None) -> list[dict[str, Any]]:
        """List notes, oldest first; with ``tag``, only the notes that have it.

        Args:
            tag: keep only notes with this tag (e.g. "release").
        """
        with self._db() as db:
            self._log(db, "list_notes", f"tag={tag!r}")
            rows = db.execute("SELECT * FROM notes WHERE deleted = 0 ORDER BY id").fetchall()
        notes = [self._note(r) for r in rows]
        return [n for n in notes if tag is None or tag in n["tags"]]

    def get_note(self, note_id: int) -> dict[str, Any]:
        """Get one note by its id.

        Args:
            note_id: the id shown by list_notes.
        """
        with self._db() as db:
            self._log(db, "get_note", f"#{note_id}")
            return self._note(self._get(db, note_id))

    def find_notes(self, text: str) -> list[dict[str, Any]]:
        """Find notes whose title or body contains the text (case-insensitive).

        Args:
            text: the words to look for.
        """
        needle = text.lower()
        with self._db() as db:
            self._log(db, "find_notes", repr(text))
            rows = db.execute("SELECT * FROM notes WHERE deleted = 0 ORDER BY id").fetchall()
        return [self._note(r) for r in rows if needle in r["title"].lower() or needle in r["body"].lower()]

    def outbox(self) -> list[dict[str, Any]]:
        """The messages send_note has sent, oldest first."""
        with self._db() as db:
            rows = db.execute("SELECT * FROM outbox ORDER BY id").fetchall()
        return [{"message_id": r["id"], "note_id": r["note_id"], "to": r["recipient"], "subject": r["subject"],
                 "sent_at": r["sent_at"]} for r in rows]

    def activity(self, last: int = 10) -> list[str]:
        """What the store did, newest last: every call that reached it, and every revert.

        Args:
            last: how many entries to return.
        """
        with self._db() as db:
            rows = db.execute("SELECT * FROM activity ORDER BY id DESC LIMIT ?", (last,)).fetchall()
        return [f"{r['call']} {r['what']}".rstrip() for r in reversed(rows)]

    # -- writing (each records how to undo it) ------------------------------------------------

    def add_note(self, title: str, body: str = "", tags: list[str] | None = None, *,
                 ctx: ExecutionContext) -> dict[str, Any]:
        """Add a note and return it with its new id.

        Args:
            title: a short title.
            body: the text of the note.
            tags: labels such as "release" or a person's handle.
        """
        with self._db() as db:
            again = db.execute("SELECT * FROM notes WHERE created_by = ?", (ctx.idempotency_key,)).fetchone()
            if again is not None:  # the same journaled call, retried: do not write twice
                return self._note(again)
            now = _now()
            cur = db.execute("INSERT INTO notes (title, body, tags, created_at, updated_at, created_by) "
                             "VALUES (?, ?, ?, ?, ?, ?)", (title, body, json.dumps(tags or []), now, now,
                                                           ctx.idempotency_key))
            note_id = int(cur.lastrowid or 0)
            self._remember(db, ctx, note_id, None)
            self._log(db, "add_note", f"#{note_id} {title!r}")
            return self._note(self._get(db, note_id))

    def update_note(self, note_id: int, title: str | None = None, body: str | None = None, *,
                    ctx: ExecutionContext) -> dict[str, Any]:
        """Change a note's title and/or body; returns the note as it is now.

        Args:
            note_id: the note to change.
            title: the new title (unchanged when omitted).
            body: the new body (unchanged when omitted).
        """
        with self._db() as db:
            row = self._get(db, note_id)
            self._remember(db, ctx, note_id, {"title": row["title"], "body": row["body"]})
            db.execute("UPDATE notes SET title = ?, body = ?, updated_at = ? WHERE id = ?",
                       (title if title is not None else row["title"], body if body is not None else row["body"],
                        _now(), note_id))
            self._log(db, "update_note", f"#{note_id}")
            return self._note(self._get(db, note_id))

    def tag_note(self, note_id: int, tag: str, *, ctx: ExecutionContext) -> dict[str, Any]:
        """Add a tag to a note (no approval needed: tags are cheap to change).

        Args:
            note_id: the note to tag.
            tag: the tag to add.
        """
        with self._db() as db:
            row = self._get(db, note_id)
            tags = json.loads(row["tags"])
            self._remember(db, ctx, note_id, {"tags": list(tags)})
            if tag not in tags:
                tags.append(tag)
                db.execute("UPDATE notes SET tags = ?, updated_at = ? WHERE id = ?", (json.dumps(tags), _now(), note_id))
            self._log(db, "tag_note", f"#{note_id} +{tag}")
            return self._note(self._get(db, note_id))

    def delete_note(self, note_id: int, *, ctx: ExecutionContext) -> dict[str, Any]:
        """Delete a note; returns the note as it was.

        Args:
            note_id: the note to delete.
        """
        with self._db() as db:
            row = self._get(db, note_id)
            self._remember(db, ctx, note_id, None)
            db.execute("UPDATE notes SET deleted = 1, updated_at = ? WHERE id = ?", (_now(), note_id))
            self._log(db, "delete_note", f"#{note_id}")
            return self._note(row)

    def send_note(self, note_id: int, to: str, *, ctx: ExecutionContext) -> dict[str, Any]:
        """Send a note to someone by e-mail (here: to a local outbox). This cannot be undone.

        Args:
            note_id: the note to send.
            to: the recipient's address, e.g. "ada@example.org".
        """
        with self._db() as db:
            again = db.execute("SELECT * FROM outbox WHERE sent_by = ?", (ctx.idempotency_key,)).fetchone()
            if again is None:
                note = self._get(db, note_id)
                cur = db.execute("INSERT INTO outbox (note_id, recipient, subject, sent_at, sent_by) "
                                 "VALUES (?, ?, ?, ?, ?)", (note_id, to, note["title"], _now(), ctx.idempotency_key))
                again = db.execute("SELECT * FROM outbox WHERE id = ?", (cur.lastrowid,)).fetchone()
                self._log(db, "send_note", f"#{note_id} to {to}")
            return {"message_id": again["id"], "to": again["recipient"], "subject": again["subject"]}

    # -- compensation ---------------------------------------------------------------------------

    def _revert_add(self, args: dict[str, Any], result: Any, ctx: ExecutionContext) -> None:
        with self._db() as db:
            record = self._undo_record(db, ctx)
            db.execute("UPDATE notes SET deleted = 1, updated_at = ? WHERE id = ?", (_now(), record["note_id"]))
            self._log(db, "revert add_note", f"#{record['note_id']} deleted again")

    def _revert_restore(self, args: dict[str, Any], result: Any, ctx: ExecutionContext) -> None:
        with self._db() as db:
            record = self._undo_record(db, ctx)
            before = json.loads(record["before"])
            if "tags" in before:
                db.execute("UPDATE notes SET tags = ?, updated_at = ? WHERE id = ?",
                           (json.dumps(before["tags"]), _now(), record["note_id"]))
                self._log(db, "revert tag_note", f"#{record['note_id']} tags restored")
            else:
                db.execute("UPDATE notes SET title = ?, body = ?, updated_at = ? WHERE id = ?",
                           (before["title"], before["body"], _now(), record["note_id"]))
                self._log(db, "revert update_note", f"#{record['note_id']} text restored")

    def _revert_delete(self, args: dict[str, Any], result: Any, ctx: ExecutionContext) -> None:
        with self._db() as db:
            record = self._undo_record(db, ctx)
            db.execute("UPDATE notes SET deleted = 0, updated_at = ? WHERE id = ?", (_now(), record["note_id"]))
            self._log(db, "revert delete_note", f"#{record['note_id']} restored")

    def _revert_send(self, args: dict[str, Any], result: Any, ctx: ExecutionContext) -> None:
        with self._db() as db:
            self._log(db, "revert send_note", "FAILED: a sent message cannot be recalled")
        raise RuntimeError(f"message {result.get('message_id')} to {args.get('to')} was already sent and cannot be "
                           "recalled; send a correction instead")

    # -- the contract -------------------------------------------------------------------------

    def tools(self) -> Mapping[str, Tool]:
        return {
            "list_notes": tool(self.list_notes),
            "get_note": tool(self.get_note),
            "find_notes": tool(self.find_notes),
            "outbox": tool(self.outbox),
            "activity": tool(self.activity),
            "add_note": tool(self.add_note, requires_approval=True, revert=self._revert_add),
            "update_note": tool(self.update_note, requires_approval=True, revert=self._revert_restore),
            "tag_note": tool(self.tag_note, revert=self._revert_restore),
            "delete_note": tool(self.delete_note, requires_approval=True, revert=self._revert_delete),
            "send_note": tool(self.send_note, requires_approval=True, revert=self._revert_send),
        }


def notes(path: str | None = None) -> NotesStore:
    """Factory named in codemode.toml (``python = "demo_connectors:notes"``).

    ``path`` is relative to this folder; the default is ``notes.sqlite`` here.
    """
    return NotesStore(HERE / path if path else DEFAULT_PATH)


# ---------------------------------------------------------------------------------------
# The team directory: plain functions, no class needed

PEOPLE: tuple[dict[str, Any], ...] = (
    {"handle": "ada", "name": "Ada Lovelace", "team": "platform", "email": "ada@example.org", "timezone": "Europe/London"},
    {"handle": "grace", "name": "Grace Hopper", "team": "platform", "email": "grace@example.org",
     "timezone": "America/New_York"},
    {"handle": "linus", "name": "Linus Torvalds", "team": "docs", "email": "linus@example.org",
     "timezone": "America/Los_Angeles"},
)


def list_people(team: str | None = None) -> list[dict[str, Any]]:
    """List the people in the directory, optionally of one team.

    Args:
        team: "platform" or "docs"; all teams when omitted.
    """
    return [dict(p) for p in PEOPLE if team is None or p["team"] == team]


def get_person(handle: str) -> dict[str, Any]:
    """Get one person by handle (e.g. "ada").

    Args:
        handle: the person's short name.
    """
    for p in PEOPLE:
        if p["handle"] == handle:
            return dict(p)
    raise LookupError(f"no person {handle!r}; team.list_people() lists the handles")


def team() -> ToolSetConnector:
    """Factory named in codemode.toml (``python = "demo_connectors:team"``)."""
    return ToolSetConnector([list_people, get_person], name="team",
                            instructions="Who is on which team: names, e-mail addresses, time zones.")
