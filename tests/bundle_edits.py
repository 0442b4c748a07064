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
from mkdocs_semantic.bundle.shard_lists import (
    keyed_entries,
    resolve,
    write_keyed_list,
    write_packed_list,
    write_shard_list,
)


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
    if listed.pack is not None:
        entries = resolve(listed, lambda name, size: [])
    else:
        entries = (listed.entries if listed.sizes is None else
                   keyed_entries(listed, json.loads((root / listed.sizes.name).read_bytes())))
    assert entries is not None, "a list in the catalog"
    bodies = [inflate(self_checked_body(name, stored_shard(root, name)), name)
              for _, name, _ in entries]
    bodies[0] += b" "
    names: list[str] = []

    def write(name: str, body: bytes) -> int:
        data = checked(name, deflate(body))
        (root / name).write_bytes(data)
        names.append(name)
        return len(data)

    folder = value["stem"].split("/")[0]
    if listed.pack is not None:
        new = write_packed_list(bodies, value["stem"], lambda name, body: checked(
            name, deflate(body)), lambda data: write_payload(
                root, folder=folder, stem="frags", ext="bin", data=data).to_json())
        return new, [new["pack"][0]]
    if listed.sizes is not None:
        return write_keyed_list(bodies, value["stem"], write, lambda data: write_payload(
            root, folder=folder, stem="sizes", ext="json", data=data).to_json()), names
    new = write_shard_list([(e[0], b) for e, b in zip(entries, bodies)], value["stem"], write)
    return new, names


def _catalog(root: Path) -> dict:
    manifest = json.loads((root / "manifest.json").read_text())
    return json.loads((root / manifest["catalog"]["name"]).read_text())


def _packed(catalog: dict, name: str) -> tuple[dict, int, int]:
    """The packed keyed list holding shard `name`, the shard's number and offset."""
    stem, number = name.split(".")[0].rstrip("0123456789"), name.split(".")[0]
    value = catalog["fragments"]
    assert "pack" in value and stem == value["stem"], f"{name} is not a packed shard"
    at = int(number[len(stem):])
    return value, at, sum(value["bytes"][:at])


def stored_shard(root: Path, name: str) -> bytes:
    """The stored bytes of shard `name`: its file, or its record in a packed list."""
    if (root / name).is_file():
        return (root / name).read_bytes()
    value, at, offset = _packed(_catalog(root), name)
    return (root / value["pack"][0]).read_bytes()[offset:offset + value["bytes"][at]]


def replace_packed_shard(root: Path, name: str, data: bytes) -> None:
    """Shard `name` of a packed list stored as `data` instead: the list's file written
    again under its new hash, and the catalog published with it."""
    catalog = _catalog(root)
    value, at, offset = _packed(catalog, name)
    pack = (root / value["pack"][0]).read_bytes()
    new = pack[:offset] + data + pack[offset + value["bytes"][at]:]
    written = write_payload(root, folder="fragments", stem="frags", ext="bin", data=new)
    value["pack"], value["bytes"][at] = written.to_json(), len(data)
    publish_catalog(root, catalog)
