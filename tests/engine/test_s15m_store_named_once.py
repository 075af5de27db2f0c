"""The journal's own errors name a store as every front door does (session 14's closing note).

``journal._shown_url`` (the journal's errors) and ``journal_files.shown_store`` (the front doors)
were near-copies that disagreed on a masked query value: ``?sslpassword=%2A%2A%2A`` in a
StoreError, ``?sslpassword=***`` in ``%store``. There is one now, ``shown_store``.
"""

from __future__ import annotations

import pytest

from codemode_kernel.errors import StoreError
from codemode_kernel.journal import JournalStore
from codemode_kernel.journal_files import shown_store

PASSWORD = "s15m-store-pw"

URLS = {
    "the user part": f"postgresql+psycopg://analyst:{PASSWORD}@127.0.0.1:1/db",
    "the query": f"postgresql+psycopg://analyst@127.0.0.1:1/db?password={PASSWORD}",
    "an ssl password beside other options": f"postgresql+psycopg://analyst@127.0.0.1:1/db?sslmode=disable&sslpassword={PASSWORD}",
}


@pytest.mark.parametrize("url", URLS.values(), ids=URLS.keys())
def test_a_store_error_names_the_store_as_the_front_doors_do(url: str) -> None:
    """It is an error if the journal's StoreError names the store otherwise than shown_store, or shows a password."""
    with pytest.raises(StoreError) as raised:
        JournalStore(url)
    text = str(raised.value)
    assert shown_store(url) in text, text
    assert raised.value.where == shown_store(url)
    assert PASSWORD not in text and "%2A" not in text, text
