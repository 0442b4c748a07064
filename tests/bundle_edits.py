"""Test helper: publish an edited catalog the way a build would, so that a test reaches
the reader's field checks rather than its hash check."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from mkdocs_semantic.bundle.names import (
    checked,
    deflate,
    inflate,
    self_checked_body,
    write_payload,
)
from mkdocs_semantic.bundle.reader import shard_list
from mkdocs_semantic.bundle.shard_lists import keyed_entries, write_keyed_list, write_shard_list


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
    """A catalog shard list (in the catalog, no directories) or keyed list written again
    with a space added to its first shard, so under a new hash: its new value and the
    shards' names."""
    listed = shard_list(value)
    entries = (listed.entries if listed.sizes is None else
               keyed_entries(listed, json.loads((root / listed.sizes.name).read_bytes())))
    assert entries is not None, "a list in the catalog"
    bodies = [inflate(self_checked_body(name, (root / name).read_bytes()), name)
              for _, name, _ in entries]
    bodies[0] += b" "
    names: list[str] = []

    def write(name: str, body: bytes) -> int:
        data = checked(name, deflate(body))
        (root / name).write_bytes(data)
        names.append(name)
        return len(data)

    if listed.sizes is not None:
        folder = value["stem"].split("/")[0]
        return write_keyed_list(bodies, value["stem"], write, lambda data: write_payload(
            root, folder=folder, stem="sizes", ext="json", data=data).to_json()), names
    new = write_shard_list([(e[0], b) for e, b in zip(entries, bodies)], value["stem"], write)
    return new, names
