"""Text -> vectors with an ONNX sentence-embedding model (onnxruntime + tokenizers)."""

from __future__ import annotations

import json
import os
import threading
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from functools import cached_property
from itertools import islice
from pathlib import Path
from typing import TypeVar

import numpy as np

from ..constants import MAX_MODEL_TOKENS
from .spec import ModelError, ModelSpec, ProgressCallback

Batch = TypeVar("Batch")


BATCH_TOKENS = 512
"""Padded tokens per model run. On CPU, small batches of texts of equal length cost
~40 % less than 32 texts sorted by characters (measured once on fastapi-docs' chunk
texts when this was chosen; the measuring script is not kept), and keep
onnxruntime's memory arena small."""
DISABLED_OPTIMIZERS = ("SkipLayerNormFusion",)
"""Graph rewrites of onnxruntime left out: its fused SkipLayerNormalization kernel took
14 % of a run of the default model; the Add and LayerNormalization it replaces take
about 10 % less CPU in all (onnxruntime 1.32, one thread per run, fastapi-docs' chunk
texts; docs/decisions/embedding-levers.md), with vectors within 2e-7 of the fused graph's."""


MAX_WORKERS = 4
"""Batches a build embeds at once at most (each holds its own activations, a few tens
of MB); more threads than this go to each batch's onnxruntime run."""


def usable_cores() -> int:
    """CPU cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not on Linux
        return os.cpu_count() or 1


def thread_split(threads: int) -> tuple[int, int]:
    """(batches run at once, onnxruntime threads each) for `threads` CPU threads in all,
    0 meaning one per core.

    Whole batches side by side beat one batch spread over the cores: one batch's
    operators are small, so its threads wait on each other at every one of them, and
    on a shared machine a thread that loses its core stalls the others (on a busy
    2-core machine, two one-thread runs took half to two thirds of the time of one
    two-thread run, with the same vectors to the bit; docs/decisions/embedding-levers.md).
    """
    total = threads if threads > 0 else usable_cores()
    workers = max(1, min(MAX_WORKERS, total))
    return workers, max(1, total // workers)


def map_batches(run: Callable[[Batch], np.ndarray], batches: Sequence[Batch], *,
                workers: int = 1) -> Iterator[np.ndarray]:
    """`run` of each batch, yielded in order, with up to `workers` batches running at
    once in threads (onnxruntime releases the GIL while it runs). At most twice
    `workers` batches are started ahead of the one yielded."""
    if workers <= 1 or len(batches) <= 1:
        yield from map(run, batches)
        return
    pool = ThreadPoolExecutor(workers, thread_name_prefix="semantic-embed")
    queue = iter(batches)
    try:
        pending = deque(pool.submit(run, b) for b in islice(queue, 2 * workers))
        while pending:
            done = pending.popleft().result()
            pending.extend(pool.submit(run, b) for b in islice(queue, 1))
            yield done
    finally:
        pool.shutdown(wait=True, cancel_futures=True)








def plan_batches(lengths: Sequence[int], *, max_items: int,
                 max_tokens: int = BATCH_TOKENS) -> list[list[int]]:
    """Indices into `lengths`, grouped into batches of similar length: at most
    `max_items` texts and `max_tokens` padded tokens each (a longer text goes alone)."""
    order = sorted(range(len(lengths)), key=lambda i: lengths[i])
    batches: list[list[int]] = []
    current: list[int] = []
    for i in order:
        # Sorted ascending: this text sets the batch's padded length.
        if current and (len(current) >= max_items
                        or (len(current) + 1) * lengths[i] > max_tokens):
            batches.append(current)
            current = []
        current.append(i)
    if current:
        batches.append(current)
    return batches






def load_tokenizer(path: Path, max_tokens: int | None):
    """Load a `tokenizer.json`, truncating at `max_tokens` and padding to the longest."""
    from tokenizers import Tokenizer

    try:
        tokenizer = Tokenizer.from_file(str(path))
    except Exception as exc:
        raise ModelError(f"cannot read tokenizer {path}: {exc}",
                         option="model.tokenizer") from exc
    tokenizer.no_padding()
    tokenizer.no_truncation()
    if max_tokens is not None:
        tokenizer.enable_truncation(max_length=max_tokens)
        pad_id = tokenizer.token_to_id("[PAD]")
        pad_token = "[PAD]"
        if pad_id is None:
            pad_id, pad_token = _pad_from_file(path)
        tokenizer.enable_padding(pad_id=pad_id, pad_token=pad_token)
    return tokenizer


def _pad_from_file(path: Path) -> tuple[int, str]:
    padding = json.loads(path.read_text(encoding="utf-8")).get("padding") or {}
    return int(padding.get("pad_id", 0)), str(padding.get("pad_token", "<pad>"))


SMALL_BATCH = 64
"""Fewer texts than this are counted one by one: tokenizers' encode_batch hands even
a few short texts to its thread pool, which cost 1.6 times the CPU of encoding them
in turn (the chunker counts a page's pieces a few at a time, while the model embeds
on the other cores)."""


def token_counts(tokenizer, texts: Sequence[str]) -> list[int]:
    """Tokens per text as `tokenizer` encodes it (special tokens included; padding, where
    the tokenizer pads a batch, not counted); a few texts one by one (SMALL_BATCH)."""
    if len(texts) < SMALL_BATCH:
        return [len(tokenizer.encode(t).ids) for t in texts]
    return [sum(e.attention_mask) for e in tokenizer.encode_batch(list(texts))]


class TokenCounter:
    """Counts tokens as the model sees them (special tokens included, no truncation)."""

    def __init__(self, tokenizer_path: Path) -> None:
        self.tokenizer = load_tokenizer(tokenizer_path, None)

    def __call__(self, texts: Sequence[str]) -> list[int]:
        return token_counts(self.tokenizer, texts)

    def token_ends(self, text: str) -> list[int]:
        encoding = self.tokenizer.encode(text)
        return [end for (start, end), special in
                zip(encoding.offsets, encoding.special_tokens_mask) if not special]


class OnnxEmbedder:
    """Sentence embeddings from an ONNX transformer: pooling, then L2 normalisation.

    `threads`: onnxruntime threads of each run (0: onnxruntime chooses). `workers`:
    batches of one call run at once, each in a thread of its own (see `thread_split`).
    """

    def __init__(self, spec: ModelSpec, *, threads: int = 0, batch_size: int = 32,
                 workers: int = 1) -> None:
        max_tokens = spec.max_tokens
        if isinstance(max_tokens, bool) or not isinstance(max_tokens, int) \
                or not 2 <= max_tokens <= MAX_MODEL_TOKENS:
            raise ModelError(
                f"model.max_tokens is {max_tokens!r}; it must be a whole number from 2 to "
                f"{MAX_MODEL_TOKENS} and at most what the model reads: set model.max_tokens in "
                "mkdocs.yml (a built bundle: rebuild the site with a valid value)",
                option="model.max_tokens")
        self.spec = spec
        self.threads = threads
        self.batch_size = max(1, batch_size)
        self.workers = max(1, workers)
        self.tokenizer = load_tokenizer(spec.tokenizer_path, max_tokens)
        self._loading = threading.Lock()

    @property
    def session(self):
        """The onnxruntime session, loaded on first use (once, whichever thread asks)."""
        session = self.__dict__.get("_session")
        if session is None:
            with self._loading:
                session = self.__dict__.get("_session")
                if session is None:
                    session = self.__dict__["_session"] = self._load_session()
        return session

    def _load_session(self):
        import onnxruntime as ort

        options = ort.SessionOptions()
        if self.threads > 0:
            options.intra_op_num_threads = self.threads
            options.inter_op_num_threads = 1
        options.log_severity_level = 3
        try:
            session = ort.InferenceSession(
                str(self.spec.model_path), options, providers=["CPUExecutionProvider"],
                disabled_optimizers=list(DISABLED_OPTIMIZERS))
        except Exception as exc:
            raise ModelError(f"cannot load ONNX model {self.spec.model_path}: {exc}",
                             option="model.path") from exc
        self._input_names = {i.name for i in session.get_inputs()}
        if "input_ids" not in self._input_names:
            raise ModelError(
                f"{self.spec.model_path} has inputs {sorted(self._input_names)}; "
                "a sentence-embedding model with an 'input_ids' input is needed",
                option="model.path")
        self._check_max_tokens(session)
        return session

    def release(self) -> None:
        """Drop the onnxruntime session: the model's weights (unpacked to float32) and
        its memory arena, about 250 MB. The next use loads it again."""
        self.__dict__.pop("_session", None)

    def _check_max_tokens(self, session) -> None:
        """One inference at model.max_tokens tokens; if the model refuses it, find the
        longest input it accepts (by bisection) and fail with a message that names it.

        Without this, a too-high model.max_tokens fails only later, on the first long
        query or chunk, with the runtime's own error.
        """
        wanted = self.spec.max_tokens
        if self._accepts(session, wanted):
            return
        if not self._accepts(session, 2):
            raise ModelError(f"the model {self.spec.model_path} fails even on a 2-token input: "
                             "check that model.path and model.tokenizer belong together",
                             option="model.path")
        accepted, refused = 2, wanted
        while refused - accepted > 1:
            middle = (accepted + refused) // 2
            if self._accepts(session, middle):
                accepted = middle
            else:
                refused = middle
        raise ModelError(
            f"model.max_tokens is {wanted}, but the model {self.spec.id} reads at "
            f"most {accepted} tokens: set model.max_tokens to {accepted} or less in mkdocs.yml "
            "(a built bundle: rebuild the site with that setting)",
            option="model.max_tokens")

    def _accepts(self, session, length: int) -> bool:
        """Whether the model runs on one input of `length` tokens."""
        import onnxruntime as ort

        ids = self._probe_ids(length)
        quiet = ort.RunOptions()
        quiet.log_severity_level = 4  # a refused probe is expected: do not log it
        try:
            session.run(None, self._feeds(ids[None, :], np.ones((1, length), dtype=np.int64)),
                        quiet)
        except Exception:  # onnxruntime's errors share no public base class
            return False
        return True

    def _probe_ids(self, length: int) -> np.ndarray:
        """Real token ids, `length` of them, ending with the tokenizer's closing token."""
        ids = list(self.tokenizer.encode("word " * length).ids) or [0]  # cut at max_tokens
        filler = ids[len(ids) // 2]
        ids = ids[:-1] + [filler] * max(0, length - len(ids)) + ids[-1:]
        return np.array(ids[: length - 1] + ids[-1:], dtype=np.int64)

    def _feeds(self, ids: np.ndarray, mask: np.ndarray,
               type_ids: np.ndarray | None = None) -> dict[str, np.ndarray]:
        feeds = {"input_ids": ids}
        if "attention_mask" in self._input_names:
            feeds["attention_mask"] = mask
        if "token_type_ids" in self._input_names:
            feeds["token_type_ids"] = np.zeros_like(ids) if type_ids is None else type_ids
        return feeds

    @cached_property
    def dim(self) -> int:
        dim = int(self._run(["dimension probe"]).shape[1])
        if self.spec.dim is not None and dim != self.spec.dim:
            raise ModelError(
                f"the model {self.spec.model_path} returns {dim}-dimensional vectors "
                f"but model.dim is {self.spec.dim}: set model.dim to {dim} or use another model",
                option="model.dim",
            )
        return dim

    def embed_documents(self, texts: Sequence[str],
                        progress: ProgressCallback | None = None) -> np.ndarray:
        prefixed = [self.spec.document_prefix + t for t in texts]
        return self._embed(prefixed, progress)

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        return self._embed([self.spec.query_prefix + t for t in texts], None)

    def embed_token_ids(self, token_ids: Sequence[int]) -> np.ndarray:
        from .onnx import single_token_vectors

        cls_id, sep_id = (self.tokenizer.token_to_id(t) for t in ("[CLS]", "[SEP]"))
        return single_token_vectors(self, [int(i) for i in token_ids], cls_id=cls_id,
                                    sep_id=sep_id)

    def token_lengths(self, texts: Sequence[str]) -> list[int]:
        # a page's chunks, as they are cut (indexing/early.py): a few at a time
        return token_counts(self.tokenizer, [self.spec.document_prefix + t for t in texts])

    def _embed(self, texts: list[str], progress: ProgressCallback | None) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        if not texts:
            return out
        # Tokenized once: each batch takes its texts' encodings, cut to its longest.
        encodings = self.tokenizer.encode_batch(texts)
        lengths = [sum(e.attention_mask) for e in encodings]
        batches = plan_batches(lengths, max_items=self.batch_size)
        vectors = map_batches(lambda batch: self._run_encoded(
            [encodings[i] for i in batch], max(lengths[i] for i in batch)), batches,
            workers=self.workers)
        for batch, rows in zip(batches, vectors):
            out[batch] = rows
            if progress is not None:
                progress(len(batch))
        return out

    def _run(self, texts: list[str]) -> np.ndarray:
        encodings = self.tokenizer.encode_batch(texts)
        return self._run_encoded(encodings, len(encodings[0].ids))

    def _run_encoded(self, encodings: list, width: int) -> np.ndarray:
        """Vectors of tokenized texts, as one batch `width` tokens wide. The encodings may
        be padded wider (to the longest text of the call that made them): padding is on
        the right, so their first `width` tokens are what a call of these texts alone
        gives."""
        session = self.session
        ids = np.array([e.ids[:width] for e in encodings], dtype=np.int64)
        mask = np.array([e.attention_mask[:width] for e in encodings], dtype=np.int64)
        type_ids = np.array([e.type_ids[:width] for e in encodings], dtype=np.int64)
        output = session.run(None, self._feeds(ids, mask, type_ids))[0]
        if output.ndim == 3:
            output = pool(output, mask, self.spec.pooling)
        output = output.astype(np.float32)
        if self.spec.normalize:
            output = l2_normalize(output)
        return output


def pool(hidden: np.ndarray, mask: np.ndarray, pooling: str) -> np.ndarray:
    if pooling == "cls":
        return hidden[:, 0]
    weights = mask[:, :, None].astype(np.float32)
    return (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)


def l2_normalize(x: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(x, axis=1, keepdims=True)
    return x / np.clip(norms, 1e-12, None)


def single_token_vectors(embedder, token_ids: Sequence[int], *, cls_id: int, sep_id: int,
                         batch_size: int = 512) -> np.ndarray:
    """The model's vector of each token alone ([CLS] token [SEP]), pooled and normalized
    as the embedder pools a text. `embedder` is an `OnnxEmbedder`; ids go in directly so
    word pieces (`##ing`) keep their own identity. Its `workers` batches run at once."""
    from .onnx import l2_normalize, map_batches, pool

    session = embedder.session
    inputs = {i.name for i in session.get_inputs()}
    out = np.zeros((len(token_ids), embedder.dim), dtype=np.float32)
    ids = np.asarray(token_ids, dtype=np.int64)

    def run(start: int) -> np.ndarray:
        batch = ids[start : start + batch_size]
        input_ids = np.stack([np.full(len(batch), cls_id), batch, np.full(len(batch), sep_id)],
                             axis=1).astype(np.int64)
        mask = np.ones_like(input_ids)
        feeds = {"input_ids": input_ids}
        if "attention_mask" in inputs:
            feeds["attention_mask"] = mask
        if "token_type_ids" in inputs:
            feeds["token_type_ids"] = np.zeros_like(input_ids)
        hidden = session.run(None, feeds)[0]
        pooled = pool(hidden, mask, embedder.spec.pooling) if hidden.ndim == 3 else hidden
        pooled = pooled.astype(np.float32)
        return l2_normalize(pooled) if embedder.spec.normalize else pooled

    starts = range(0, len(ids), batch_size)
    for start, rows in zip(starts, map_batches(run, starts,
                                               workers=getattr(embedder, "workers", 1))):
        out[start : start + len(rows)] = rows
    return out


