"""Install the ``codemode`` kernelspec by hand.

``pip install codemode-kernel`` already installs it (wheel shared data under
``<prefix>/share/jupyter/kernels/codemode``); this is for other layouts::

    python -m codemode_kernel install --user          # ~/.local/share/jupyter/kernels
    python -m codemode_kernel install --sys-prefix    # the current environment
    python -m codemode_kernel install --prefix DIR
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
from pathlib import Path

KERNEL_NAME = "codemode"
KERNEL_SPEC = {
    "argv": ["python", "-m", "codemode_kernel", "-f", "{connection_file}"],
    "display_name": "Code Mode",
    "language": "python",
    "interrupt_mode": "message",
    "metadata": {"debugger": False},
}
LOGOS = ("logo-32x32.png", "logo-64x64.png", "logo-svg.svg")


def shipped_spec_dir() -> Path | None:
    """The kernelspec folder shipped with the package (installed, or in a source tree)."""
    for base in (Path(sys.prefix), Path(__file__).resolve().parents[2]):
        folder = base / "share" / "jupyter" / "kernels" / KERNEL_NAME
        if (folder / "kernel.json").is_file():
            return folder
    return None


def install(*, user: bool = False, prefix: str | None = None) -> str:
    """Install the kernelspec; return the folder it went to."""
    from jupyter_client.kernelspec import KernelSpecManager

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / KERNEL_NAME
        folder.mkdir()
        (folder / "kernel.json").write_text(json.dumps(KERNEL_SPEC, indent=2) + "\n", encoding="utf-8")
        shipped = shipped_spec_dir()
        for logo in LOGOS:
            if shipped is not None and (shipped / logo).is_file():
                shutil.copy(shipped / logo, folder / logo)
        return str(KernelSpecManager().install_kernel_spec(str(folder), KERNEL_NAME, user=user, prefix=prefix))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m codemode_kernel install",
                                     description="Install the Code Mode kernelspec.")
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--user", action="store_true", help="install for the current user")
    where.add_argument("--sys-prefix", action="store_true", help="install into sys.prefix (this environment)")
    where.add_argument("--prefix", help="install under this prefix")
    args = parser.parse_args(argv)
    prefix = sys.prefix if args.sys_prefix else args.prefix
    dest = install(user=args.user, prefix=prefix)
    print(f"Installed the Code Mode kernelspec in {dest}")
    return 0
