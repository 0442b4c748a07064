"""Test helper: publish an edited catalog the way a build would, so that a test reaches
the reader's field checks rather than its hash check."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path


def publish_catalog(root: Path, catalog: dict) -> None:
    """Write `catalog` under its hashed name and point root's manifest at it."""
    manifest = json.loads((root / "manifest.json").read_text())
    data = json.dumps(catalog).encode()
    digest = hashlib.sha256(data).hexdigest()
    name = f"catalog.{digest[:16]}.json"
    (root / name).write_bytes(data)
    manifest["catalog"] = {"name": name, "bytes": len(data), "sha256": digest}
    (root / "manifest.json").write_text(json.dumps(manifest))
