"""Fixtures for the kernel tests (the harness itself is in kernel_harness.py)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.kernel.kernel_harness import Kernel, write_notebook_dir


@pytest.fixture
def notebook_dir(tmp_path: Path) -> Path:
    return write_notebook_dir(tmp_path / "nb")


@pytest.fixture(scope="module")
def shared_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_notebook_dir(tmp_path_factory.mktemp("shared") / "nb")


@pytest.fixture(scope="module")
def shared_kernel(shared_dir: Path) -> Iterator[Kernel]:
    """One kernel for a module's tests (each test uses its own note texts)."""
    kernel = Kernel(shared_dir)
    yield kernel
    kernel.shutdown()


@pytest.fixture
def kernel(notebook_dir: Path) -> Iterator[Kernel]:
    kernel = Kernel(notebook_dir)
    yield kernel
    kernel.shutdown()
