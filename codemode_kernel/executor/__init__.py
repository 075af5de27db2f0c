"""Executors: run one pass of code once (DESIGN §3, §11).

How a pass gets its own confined process, and the designs rejected on the way, is the
design log at the top of ``zygote.py``; the confinement steps are in ``confinement.py``.
"""
