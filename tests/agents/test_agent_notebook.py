"""Notebook 07's agent loop hands its model JSON, the approved run's outcome included (issue 15)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.examples.notebook_run import make_workspace, run_notebook, text

pytestmark = pytest.mark.timeout(240)


def test_every_outcome_reaches_the_model_as_json(tmp_path: Path) -> None:
    """What the loop gives the model after each program (approved or not) is JSON text of the outcome."""
    nb = run_notebook(make_workspace(tmp_path), "07_agent_loop")
    shown = text(nb, "agent-run")
    sent = re.findall(r"codemode → model:\n(.*)\n", shown)
    assert len(sent) == 2, shown
    outcomes = [json.loads(line) for line in sent]
    assert [o["status"] for o in outcomes] == ["completed", "completed"]
    assert outcomes[1]["result"] == {"digest_id": 6, "titles": ["Release checklist"]}
    assert "approval asked for notes.add_note: approved" in shown
