"""Where a notebook's journal file lives, and how it follows the notebook (issue 16, items 2 and 7).

The rule, in one place for every front door (the kernel, ``codemode``, ``codemode mcp``):

- A notebook's journal is ``.codemode/<notebook name>.codemode.db`` in the notebook's folder;
  SQLite's ``-wal`` and ``-shm`` files sit beside it, so the file browser (which hides dot
  folders) shows none of the three. Without a notebook name (nbclient, papermill, nbconvert
  and consoles do not say which notebook they run) the name is the folder's:
  ``.codemode/<folder>.codemode.db``. ``CODEMODE_NOTEBOOK`` names the notebook for them.
- A journal from before that rule, ``<notebook name>.codemode.db`` beside the notebook, is
  moved into ``.codemode/`` the first time a kernel opens it; while another program has it
  open it is used where it is, and moved later. Nothing is copied, nothing is dropped.
- Each journal records which notebook it belongs to (``notebook_identity``: a journal id and
  the notebook's path), and the lab extension keeps the same id in the notebook's metadata
  (``metadata.codemode.journal``). A notebook whose expected journal does not exist but whose
  metadata names a journal id finds that journal: if the notebook the journal records is
  gone, the notebook was renamed or moved and the journal is moved after it; if that
  notebook is still there and carries the same id, this notebook is a *copy*, which starts
  a journal of its own (the original keeps its history; the copy is told so).
- A journal is moved only when no other program has it open (SQLite leaves write-ahead
  mode only for a sole connection, which is the test); otherwise it stays and is used where
  it is, and the move happens at a later start.

Design log: a journal named by a stable id alone (``.codemode/<uuid>.db``) would survive
renames without moving anything, but nobody could tell which file is which notebook's, and
a copied notebook would silently share its original's journal. A journal that reads the
notebook's path from the kernel's environment only (the previous rule) orphaned its history
on every rename (issue 16). Hence names people can read, plus an id to re-find them.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import sqlite3
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

JOURNAL_FOLDER = ".codemode"
STORE_SUFFIX = ".codemode.db"
NOTEBOOK_ENV = "CODEMODE_NOTEBOOK"
IDENTITY_TABLE = "notebook_identity"
METADATA_KEY = "codemode"
_SIDE_FILES = ("-wal", "-shm", "-journal")
_MAX_NOTEBOOK_BYTES = 64 * 1024 * 1024  # a notebook larger than this is not read for its id


def journal_file(notebook: Path | None, cwd: Path) -> Path:
    """Where the journal of ``notebook`` belongs (of the folder ``cwd`` when there is no notebook)."""
    folder, stem = _folder_and_stem(notebook, cwd)
    return folder / JOURNAL_FOLDER / (stem + STORE_SUFFIX)


def legacy_journal_file(notebook: Path | None, cwd: Path) -> Path:
    """Where the journal was kept before ``.codemode/``: beside the notebook."""
    folder, stem = _folder_and_stem(notebook, cwd)
    return folder / (stem + STORE_SUFFIX)


def existing_journal(notebook: Path | None, cwd: Path) -> Path:
    """The journal file to open now: the one in ``.codemode/``, else an older one beside the notebook."""
    target = journal_file(notebook, cwd)
    legacy = legacy_journal_file(notebook, cwd)
    if not target.exists() and legacy.exists():
        return legacy
    return target


def _folder_and_stem(notebook: Path | None, cwd: Path) -> tuple[Path, str]:
    if notebook is not None:
        return notebook.parent, notebook.stem
    return cwd, cwd.name or "codemode"


# ---------------------------------------------------------------------------------------
# Identity: which notebook a journal belongs to


@dataclass(frozen=True)
class Identity:
    """What a journal file records about its notebook."""

    journal_id: str
    notebook: str  # absolute path, as the kernel last knew it ("" when none)


def new_journal_id() -> str:
    return uuid.uuid4().hex


def read_identity(db: Path) -> Identity | None:
    """The identity a journal file records, or ``None`` (no such file, no record, not SQLite)."""
    if not db.is_file():
        return None
    try:
        conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5)
    except sqlite3.Error:
        return None
    try:
        rows = dict(conn.execute(f"SELECT key, value FROM {IDENTITY_TABLE}").fetchall())
    except sqlite3.Error:
        return None
    finally:
        conn.close()
    journal_id = rows.get("journal_id")
    return Identity(str(journal_id), str(rows.get("notebook") or "")) if journal_id else None


def write_identity(db: Path, identity: Identity) -> None:
    """Record ``identity`` in the journal file (a table of its own beside the journal's)."""
    conn = sqlite3.connect(db, timeout=10)
    try:
        with conn:
            conn.execute(f"CREATE TABLE IF NOT EXISTS {IDENTITY_TABLE} (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
            conn.executemany(f"INSERT OR REPLACE INTO {IDENTITY_TABLE} (key, value) VALUES (?, ?)",
                             [("journal_id", identity.journal_id), ("notebook", identity.notebook)])
    finally:
        conn.close()


def notebook_journal_id(notebook: Path | None) -> str | None:
    """The journal id kept in a notebook file's metadata (``metadata.codemode.journal``), if any."""
    if notebook is None:
        return None
    try:
        if notebook.stat().st_size > _MAX_NOTEBOOK_BYTES:
            return None
        data = json.loads(notebook.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    meta = data.get("metadata") if isinstance(data, dict) else None
    ours = meta.get(METADATA_KEY) if isinstance(meta, dict) else None
    value = ours.get("journal") if isinstance(ours, Mapping) else None
    return value if isinstance(value, str) and value.strip() else None


# ---------------------------------------------------------------------------------------
# Moving a journal


def move_journal(source: Path, target: Path) -> str | None:
    """Move a journal file to ``target`` if no other program has it open; ``None``, or why not.

    SQLite leaves write-ahead mode (``PRAGMA journal_mode=DELETE``) only for a sole
    connection, and then folds the ``-wal`` file into the database: after that the journal is
    one file, moved under an exclusive lock. The next open turns write-ahead mode on again.
    """
    if target.exists():
        return f"{target} already exists"
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(source, timeout=0, isolation_level=None)
    except (OSError, sqlite3.Error) as exc:
        return f"it cannot be opened ({exc})"
    try:
        mode = str(conn.execute("PRAGMA journal_mode=DELETE").fetchone()[0]).lower()
        if mode != "delete":
            return "another program (a kernel, codemode mcp) has it open"
        conn.execute("BEGIN EXCLUSIVE")
        try:
            os.replace(source, target)
        finally:
            conn.execute("COMMIT")
    except sqlite3.OperationalError as exc:
        return f"another program (a kernel, codemode mcp) has it open ({exc})"
    except sqlite3.Error as exc:
        return f"it is not a readable SQLite journal ({exc})"
    except OSError as exc:
        return f"it could not be moved ({exc.strerror or exc})"
    finally:
        conn.close()
    for side in _SIDE_FILES:  # left by a program that crashed; the data is in the main file now
        with contextlib.suppress(OSError):
            Path(str(source) + side).unlink()
    return None


# ---------------------------------------------------------------------------------------
# Finding a notebook's journal


@dataclass(frozen=True)
class Located:
    """The journal a notebook opens, the id it carries, and what was done to find it (for the first cell)."""

    path: Path
    journal_id: str
    note: str | None = None


def locate(notebook: Path | None, cwd: Path) -> Located:
    """Find (and if needed move) the journal of ``notebook``; see the module docstring for the rule."""
    target = journal_file(notebook, cwd)
    legacy = legacy_journal_file(notebook, cwd)
    if target.exists():
        return Located(target, _id_of(target, notebook))
    if legacy.exists():
        reason = move_journal(legacy, target)
        if reason is None:
            return Located(target, _id_of(target, notebook),
                           f"moved the journal {legacy.name} into {JOURNAL_FOLDER}/ (journals now live there, "
                           "out of the file browser)")
        return Located(legacy, _id_of(legacy, notebook),
                       f"the journal stays at {legacy.name} for now: {reason}; it moves into {JOURNAL_FOLDER}/ "
                       "at a later start")
    wanted = notebook_journal_id(notebook)  # read only now: the notebook may be large
    if wanted is None or notebook is None:
        return Located(target, new_journal_id())
    for candidate in _journals_near(notebook):
        found = read_identity(candidate)
        if found is None or found.journal_id != wanted:
            continue
        owner = Path(found.notebook) if found.notebook else None
        if owner is not None and owner != notebook and owner.exists() and notebook_journal_id(owner) == wanted:
            return Located(target, new_journal_id(),
                           f"this notebook is a copy of {owner.name}: it starts a journal of its own "
                           f"({JOURNAL_FOLDER}/{target.name}); the history of {owner.name} stays with it "
                           f"({_shown(candidate, notebook)})")
        was = f" from {owner.name}" if owner is not None and owner != notebook else ""
        reason = move_journal(candidate, target)
        if reason is None:
            return Located(target, wanted, f"the journal followed the notebook{was}: "
                                           f"{_shown(candidate, notebook)} → {JOURNAL_FOLDER}/{target.name}")
        return Located(candidate, wanted, f"this notebook's journal is used where it is, "
                                          f"{_shown(candidate, notebook)}: {reason}; it is renamed at a later start")
    return Located(target, new_journal_id())


def follow_rename(current: Path, old_notebook: Path, new_notebook: Path) -> tuple[Path, str | None]:
    """A running kernel's notebook was renamed or moved: move its journal after it.

    ``current`` is the journal file in use. Returns the file to use from now on and, when the
    journal could not move, why (it is then used where it is, and followed at a later start).
    """
    if current not in (journal_file(old_notebook, old_notebook.parent),
                       legacy_journal_file(old_notebook, old_notebook.parent)):
        return current, None  # not a file named after the notebook (an explicit store): nothing follows
    target = journal_file(new_notebook, new_notebook.parent)
    if target == current:
        return current, None
    if not current.exists():
        return target, None
    reason = move_journal(current, target)
    if reason is None:
        return target, None
    return current, reason


def _id_of(journal: Path, notebook: Path | None) -> str:
    """The id an existing journal carries: its own record, else the notebook's, else a new one."""
    found = read_identity(journal)
    if found is not None:
        return found.journal_id
    return notebook_journal_id(notebook) or new_journal_id()


def _journals_near(notebook: Path) -> list[Path]:
    folder = notebook.parent
    found: list[Path] = []
    for where in (folder / JOURNAL_FOLDER, folder):
        with contextlib.suppress(OSError):
            found += sorted(p for p in where.glob("*" + STORE_SUFFIX) if p.is_file())
    return found


def _shown(path: Path, notebook: Path) -> str:
    with contextlib.suppress(ValueError):
        return str(path.relative_to(notebook.parent))
    return str(path)


def sqlite_url(path: str | os.PathLike[str]) -> str:
    """The SQLAlchemy URL of the SQLite file at ``path``, its characters quoted: a '?' or '%XX' in a
    notebook's name would otherwise pick another file, or pass options to the driver (review 12:
    'what?.ipynb' opened '.codemode/what', 'x%20y.ipynb' shared 'x y.ipynb''s journal). SQLAlchemy
    reads the path back exactly (``make_url(...).database``)."""
    return "sqlite:///" + quote(os.fspath(path), safe="/")


_URL_PASSWORD = re.compile(r"(://[^/?#@:]*:)[^/?#@]*@")
_QUERY_PASSWORD = re.compile(r"([?&][^=&#]*password[^=&#]*=)[^&#]*", re.IGNORECASE)


def shown_store(url: str) -> str:
    """A store URL as every front door shows it: the password masked (``postgresql://analyst:***@db/x``),
    in the user part and in the query too (libpq and psycopg take ``?password=`` and ``?sslpassword=``;
    review 14 H3). The raw URL is only for connecting; anything a person or a notebook reads names the
    store through this, the journal's own errors too (``JournalStore.where``). A masked query value
    reads ``***``, as in the user part (SQLAlchemy would write ``%2A%2A%2A``)."""
    from sqlalchemy.engine import make_url

    try:
        parsed = make_url(url)
        secret = {key: "***" for key in parsed.query if "password" in key.lower()}
        shown = (parsed.update_query_dict(secret) if secret else parsed).render_as_string(hide_password=True)
        return shown.replace("=%2A%2A%2A", "=***")
    except Exception:  # not a URL SQLAlchemy reads: mask what looks like a password all the same
        return _QUERY_PASSWORD.sub(r"\1***", _URL_PASSWORD.sub(r"\1***@", url))


def without_store_secrets(text: str, url: str) -> str:
    """``text`` (an error that may quote the store URL) with the URL shown masked and its passwords
    replaced by ``***`` wherever else they appear."""
    from urllib.parse import unquote

    from sqlalchemy.engine import make_url

    text = text.replace(url, shown_store(url))
    secrets: set[str] = set()
    try:
        parsed = make_url(url)
        if parsed.password:
            secrets.add(str(parsed.password))
        for key, value in parsed.query.items():
            if "password" in key.lower():
                secrets.update([value] if isinstance(value, str) else value)
    except Exception:
        secrets.update(m.group(0).split(":")[-1].rstrip("@") for m in _URL_PASSWORD.finditer(url))
        secrets.update(m.group(0).split("=", 1)[1] for m in _QUERY_PASSWORD.finditer(url))
    for secret in sorted({s for s in secrets if s}, key=len, reverse=True):
        for form in {secret, unquote(secret)}:
            if len(form) >= 3:
                text = text.replace(form, "***")
    return text
