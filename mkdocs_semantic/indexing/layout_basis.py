"""What a rebuild keeps from the build before, so that a page edit changes few files.

A bundle's int8 vectors depend on one global scale, and its partitions on the centroids
k-means found: left to themselves, both change with any edit (the scale with the largest
component anywhere, k-means with every row). The basis is those two, read back from the
bundle the last build wrote (`from_bundle`) or, when that is gone (`mkdocs build` empties
the site folder first), from a small file beside the embedding cache (`load`, `save`).
The writer reuses them while they still fit (quantize.quantize, partitions.build_partitions).
"""

from __future__ import annotations

import io
import json
import os
import zipfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..bundle.format import MANIFEST, BundleError
from ..bundle.reader import read_catalog, read_manifest, read_payload
from ..files import MiB, atomic_write, open_regular
from ..logs import build_log as log

LAYOUT_CACHE_MAX_BYTES = 256 * MiB
"""The int8 centroids of far more partitions than any site has."""
MODEL_KEYS = ("sha256", "pooling", "normalize", "max_tokens", "document_prefix")
"""What in a catalog's model entry decides the document vectors."""


@dataclass(frozen=True)
class LayoutBasis:
    """The int8 scale and partition centroids of one build's vectors."""

    model: str
    """The vectors' model (`model_key`): a basis from another model is not reused."""
    dim: int
    scale: float
    centroids: np.ndarray | None
    """int8 codes, one row per partition; None in the exact layout."""


def model_key(model: dict) -> str:
    return json.dumps([model.get(k) for k in MODEL_KEYS])


def from_bundle(out: Path) -> LayoutBasis | None:
    """The basis of the int8 bundle in `out`; None when there is none, or it does not read."""
    if not (out / MANIFEST).is_file():
        return None
    try:
        catalog = read_catalog(out, read_manifest(out))
        spec = catalog["vectors"][0]
        if spec["dtype"] != "i8":
            return None
        centroids = None
        if spec["layout"] == "partitioned":
            data = read_payload(out, *spec["centroids"])
            centroids = np.frombuffer(data, dtype=np.int8).reshape(-1, spec["dim"]).copy()
    except BundleError:
        return None
    return LayoutBasis(model=model_key(catalog["model"]), dim=spec["dim"],
                       scale=float(spec["scale"]), centroids=centroids)


def load(path: Path | None) -> LayoutBasis | None:
    """The basis saved at `path`; None when there is none or it does not read."""
    if path is None or not os.path.lexists(path):
        return None
    try:
        with open_regular(path, max_bytes=LAYOUT_CACHE_MAX_BYTES) as fh, \
                np.load(fh, allow_pickle=False) as data:
            centroids = data["centroids"] if bool(data["partitioned"]) else None
            return LayoutBasis(model=str(data["model"]), dim=int(data["dim"]),
                               scale=float(data["scale"]),
                               centroids=None if centroids is None
                               else centroids.astype(np.int8))
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile) as exc:
        log.warning("ignoring unreadable vector layout cache %s (%s): the layout is "
                    "worked out again", path, exc or type(exc).__name__)
        return None


def save(path: Path, basis: LayoutBasis) -> None:
    centroids = basis.centroids if basis.centroids is not None else \
        np.zeros((0, basis.dim), np.int8)
    buffer = io.BytesIO()
    np.savez(buffer, model=np.array(basis.model), dim=np.array(basis.dim),
             scale=np.array(basis.scale), partitioned=np.array(basis.centroids is not None),
             centroids=centroids)
    atomic_write(path, buffer.getvalue())
