"""Jupyter protocol conformance of the Code Mode kernel (jupyter_kernel_test).

No sample displays a widget: the suite's message validator does not know ``comm_open``
(see the Jupyter recipes note), so these samples stay with plain outputs.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import jupyter_kernel_test as jkt
from jupyter_client.manager import start_new_kernel

from tests.kernel.kernel_harness import write_notebook_dir


class CodemodeKernelConformance(jkt.KernelTests):
    kernel_name = "codemode"
    language_name = "python"
    file_extension = ".py"

    code_hello_world = "print('hello, world')"
    code_stderr = "%%host\nimport sys\nprint('to stderr', file=sys.stderr)"
    completion_samples = [  # noqa: RUF012 - the base class's form
        {"text": "notes.li", "matches": {"list_notes"}},
        {"text": "codemode.st", "matches": {"step"}},
    ]
    complete_code_samples = ["1", "print('hello, world')", "def f(x):\n  return x * 2\n\n"]  # noqa: RUF012
    incomplete_code_samples = ["print('''hello", "def f(x):\n  x * 2"]  # noqa: RUF012
    invalid_code_samples = ["import = 7q"]  # noqa: RUF012
    code_page_something = "notes.add_note?"
    code_generate_error = "raise ValueError('boom')"
    code_execute_result = [  # noqa: RUF012
        {"code": "6 * 7", "result": "42"},
        {"code": "{'a': 1, 'b': list(range(40))}", "mime": "text/html"},
        {"code": "[{'a': 1}, {'a': 2}]", "mime": "text/html"},
    ]
    code_display_data = [{"code": "%connectors", "mime": "text/html"}]  # noqa: RUF012
    code_history_pattern = "6 *"
    supported_history_operations = ("tail", "range", "search")
    code_inspect_sample = "zip"
    code_clear_output = "%%host\nfrom IPython.display import clear_output\nclear_output()"

    folder: Path

    @classmethod
    def setUpClass(cls) -> None:
        # A notebook folder of its own, so the kernel neither reads nor writes the repository.
        cls.folder = Path(tempfile.mkdtemp(prefix="codemode-jkt-"))
        write_notebook_dir(cls.folder)
        env = {k: v for k, v in os.environ.items() if not k.startswith(("JPY_", "CODEMODE_"))}
        env.update(IPYTHONDIR=str(cls.folder / ".ipython"), JPY_SESSION_NAME=str(cls.folder / "jkt.ipynb"))
        cls.km, cls.kc = start_new_kernel(kernel_name=cls.kernel_name, cwd=str(cls.folder), env=env)

    @classmethod
    def tearDownClass(cls) -> None:
        super().tearDownClass()
        shutil.rmtree(cls.folder, ignore_errors=True)
