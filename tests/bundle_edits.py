"""Test helper: publish an edited catalog the way a build would, so that a test reaches
the reader's field checks rather than its hash check."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from mkdocs_semantic.bundle.names import checked, self_checked_body
from mkdocs_semantic.bundle.reader import shard_list
from mkdocs_semantic.bundle.shard_lists import write_shard_list


def publish_catalog(root: Path, catalog: dict) -> None:
    """Write `catalog` under its hashed name and point root's manifest at it."""
    manifest = json.loads((root / "manifest.json").read_text())
    data = json.dumps(catalog).encode()
    digest = hashlib.sha256(data).hexdigest()
    name = f"catalog.{digest[:16]}.json"
    (root / name).write_bytes(data)
    manifest["catalog"] = {"name": name, "bytes": len(data), "sha256": digest}
    (root / "manifest.json").write_text(json.dumps(manifest))


def rewrite_shard_list(root: Path, value: dict) -> tuple[dict, list[str]]:
    """A catalog shard list (in the catalog, no directories) written again with a space
    added to its first shard, so under a new hash: its new value and the shards' names."""
    entries = shard_list(value).entries
    assert entries is not None, "a list in the catalog"
    bodies = [self_checked_body(name, (root / name).read_bytes()) for _, name, _ in entries]
    bodies[0] += b" "
    names: list[str] = []

    def write(name: str, body: bytes) -> int:
        data = checked(name, body)
        (root / name).write_bytes(data)
        names.append(name)
        return len(data)

    new = write_shard_list([(e[0], b) for e, b in zip(entries, bodies)], value["stem"], write)
    return new, names
