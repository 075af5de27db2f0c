"""The kernel prints the store URL's password into the notebook (review 14).

``CODEMODE_STORE`` (or ``[store] url``) may be a PostgreSQL URL with a password
(``postgresql+psycopg://analyst:PASSWORD@db/codemode``). The journal masks it in its own errors
(``journal._shown_url``, review 11) and the ``codemode`` command masks it where it prints the
journal's location, but the kernel writes ``session.store_url`` as it is:

- ``%connectors`` (``kernel/magics.py:234``: ``Store: {session.store_url}``) and ``%store``
  (magics.py:404) print it;
- the configuration problem for a store that cannot be opened quotes it
  (``The store '<url>' cannot be opened ... Using sqlite:... instead``), on the first cell and in
  ``%connectors``'s Problems;
- the panel's channel sends it as ``journal`` (``kernel/notebook_channel.py:86``).

Cell outputs are saved in the ``.ipynb`` file, which people share and commit. DESIGN: nothing
a front end shows carries a secret.

The right outcome: every kernel output names the store with its password masked.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.kernel.kernel_harness import Kernel, write_notebook_dir

PASSWORD = "S3cretPw-review14"
# Port 1: nothing listens, so the kernel falls back to the notebook's journal file and says why.
STORE = f"postgresql+psycopg://analyst:{PASSWORD}@127.0.0.1:1/codemode"


def test_no_kernel_output_carries_the_store_password(tmp_path: Path) -> None:
    """It is an error if any IOPub message of %connectors or %store holds the store URL's password."""
    folder = write_notebook_dir(tmp_path / "proj")
    kernel = Kernel(folder, env={"CODEMODE_STORE": STORE})
    try:
        seen = [kernel.execute("%connectors"), kernel.execute("%store")]
    finally:
        kernel.shutdown()
    text = json.dumps([m["content"] for run in seen for m in run.messages])
    assert "Store:" in text, text  # the magics answered
    assert PASSWORD not in text, "the store URL's password reached the notebook's outputs"
