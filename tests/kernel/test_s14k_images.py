"""A result's MCP image content is shown as an image, raster types only, base64 checked (review 14x, noticed)."""

from __future__ import annotations

import base64
from pathlib import Path

from codemode_kernel.kernel.display import MAX_IMAGES, image_bundles
from tests.kernel.kernel_harness import Kernel, write_notebook_dir

PIXEL = base64.b64encode(b"\x89PNG\r\n\x1a\n" + b"\x00" * 20).decode()


def test_image_blocks_become_image_bundles() -> None:
    value = ["Chart: x", {"type": "image", "mime_type": "image/png", "data": PIXEL}]
    (shown,) = image_bundles(value)
    assert shown["image/png"] == PIXEL and shown["text/plain"].startswith("<image/png image, ")
    assert image_bundles({"type": "image", "mime_type": "image/gif", "data": PIXEL})[0]["image/gif"] == PIXEL


def test_anything_else_stays_text() -> None:
    svg = base64.b64encode(b"<svg onload='alert(1)'/>").decode()
    assert image_bundles({"type": "image", "mime_type": "image/svg+xml", "data": svg}) == []
    assert image_bundles({"type": "image", "mime_type": "image/png", "data": PIXEL + '"><script>'}) == []
    assert image_bundles({"type": "image", "mime_type": "image/png", "data": ""}) == []
    assert image_bundles({"type": "text", "text": "x"}) == [] and image_bundles("image") == []
    many = [{"type": "image", "mime_type": "image/png", "data": PIXEL}] * (MAX_IMAGES + 5)
    assert len(image_bundles(many)) == MAX_IMAGES


CONNECT = f'''%%host
def chart(title: str) -> list:
    """A caption and a picture."""
    return ["Chart: " + title, {{"type": "image", "mime_type": "image/png", "data": "{PIXEL}"}}]
connect(ToolSetConnector([chart], name="pics"))
'''


def test_a_cell_shows_the_image_of_its_result(tmp_path: Path) -> None:
    kernel = Kernel(write_notebook_dir(tmp_path / "proj"))
    try:
        kernel.ok(CONNECT)
        run = kernel.ok("pics.chart(title='x')")
    finally:
        kernel.shutdown()
    assert run.result is not None and "Chart: x" in run.result["text/plain"]
    images = [c["data"] for c in run.of("display_data") if "image/png" in c["data"]]
    assert len(images) == 1 and images[0]["image/png"] == PIXEL, run.of("display_data")
