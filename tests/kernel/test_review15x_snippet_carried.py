"""Review 15x: a snippet saved from a cell that reads names carried from earlier cells breaks later.

In a notebook, a program naturally reads names earlier cells assigned (``prefix = "N: "`` in one
cell, ``prefix + ...`` in the next). ``%snippet save labels last ...`` saves that code without a
word; the snippet sees only ``input``, so it fails wherever ``prefix`` is not carried (a model
through ``codemode mcp``, another notebook, this one after ``%reset``): "snippet 'labels' failed:
name 'prefix' is not defined". Notebook 04 teaches the one carried name a snippet may read,
``input``; the save could say which other names the code reads from earlier cells.
"""

from __future__ import annotations

from tests.kernel.kernel_harness import Kernel


def test_saving_a_snippet_that_reads_a_carried_name_says_so(shared_kernel: Kernel) -> None:
    shared_kernel.ok('r15x_prefix = "N: "')
    shared_kernel.ok('r15x_prefix + str(len(notes.list_notes()))')
    saved = shared_kernel.execute("%snippet save r15x_labels last Label the notes")
    said = saved.stdout + saved.stderr + (saved.error["evalue"] if saved.error else "")
    assert "r15x_prefix" in said, said
