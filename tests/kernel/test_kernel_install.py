"""The kernelspec: shipped as wheel shared data, visible to Jupyter, installable by hand."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from jupyter_client.kernelspec import KernelSpecManager

from codemode_kernel.kernel.install import KERNEL_SPEC, LOGOS

REPO = Path(__file__).resolve().parents[2]
SHIPPED = REPO / "share" / "jupyter" / "kernels" / "codemode"


def test_the_shipped_kernel_json_is_the_installer_spec() -> None:
    assert json.loads((SHIPPED / "kernel.json").read_text()) == KERNEL_SPEC
    assert all((SHIPPED / logo).is_file() for logo in LOGOS)
    pyproject = (REPO / "pyproject.toml").read_text()
    assert '"share/jupyter/kernels/codemode" = "share/jupyter/kernels/codemode"' in pyproject


def test_the_installed_environment_lists_the_codemode_kernel() -> None:
    spec = KernelSpecManager().get_kernel_spec("codemode")
    assert spec.display_name == "Code Mode" and spec.language == "python"
    assert spec.interrupt_mode == "message"
    assert spec.argv[1:4] == ["-m", "codemode_kernel", "-f"]


def test_python_m_codemode_kernel_install_with_a_prefix(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "codemode_kernel", "install", "--prefix", str(tmp_path)],
                          capture_output=True, text=True, timeout=60, check=True)
    folder = tmp_path / "share" / "jupyter" / "kernels" / "codemode"
    assert str(folder) in done.stdout
    assert json.loads((folder / "kernel.json").read_text()) == KERNEL_SPEC
    assert sorted(p.name for p in folder.iterdir()) == sorted(["kernel.json", *LOGOS])
