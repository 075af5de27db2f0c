"""Executors: run one pass of code once (DESIGN §3, §11)."""
