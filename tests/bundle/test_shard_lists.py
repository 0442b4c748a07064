"""Shard lists: in the catalog while short, in directories of entries once long."""

from __future__ import annotations

import json

import pytest

from mkdocs_semantic.bundle import shard_lists
from mkdocs_semantic.bundle.format import BundleError, check_directory
from mkdocs_semantic.bundle.names import payload_name
from mkdocs_semantic.bundle.shard_lists import ShardList, resolve, write_shard_list


def entries(n: int) -> list[list]:
    return [[10 * i, f"fragments/frag.{i:016x}.json", 100 + i] for i in range(n)]


def writer():
    written: dict[str, bytes] = {}

    def put(folder: str, stem: str, ext: str, data: bytes) -> list:
        name = payload_name(folder, stem, ext, data)
        written[name] = data
        return [name, len(data)]

    return put, written


def test_a_short_list_stays_in_the_catalog_and_a_long_one_goes_to_directories(monkeypatch):
    monkeypatch.setattr(shard_lists, "DIRECT_MAX", 4)
    monkeypatch.setattr(shard_lists, "DIR_ENTRIES", 3)
    put, written = writer()
    assert write_shard_list(entries(4), "frag", put) == entries(4) and not written
    value = write_shard_list(entries(7), "frag", put)
    assert [d[0] for d in value["dirs"]] == [0, 30, 60]  # 3 + 3 + 1 entries
    assert all(name.startswith("index/frag.") for name in written)

    def read(name: str, size: int) -> list[tuple]:
        assert len(written[name]) == size
        return check_directory(json.loads(written[name]), name)

    listed = ShardList(entries=None, dirs=tuple(tuple(d) for d in value["dirs"]))
    assert resolve(listed, read) == [tuple(e) for e in entries(7)]
    assert [p.name for p in listed.payloads()] == [d[1] for d in value["dirs"]]


def test_a_directory_that_does_not_start_at_its_key_is_refused():
    listed = ShardList(entries=None, dirs=((0, "index/frag.0000000000000000.json", 1),
                                           (30, "index/frag.0000000000000001.json", 1)))
    pages = {"index/frag.0000000000000000.json": [tuple(e) for e in entries(3)],
             "index/frag.0000000000000001.json": [tuple(e) for e in entries(2)]}
    with pytest.raises(ValueError, match="does not hold the entries from 30"):
        resolve(listed, lambda name, size: pages[name])


@pytest.mark.parametrize("data, message", [
    ([], "not a shard list directory"),
    ({"a": 1}, "not a shard list directory"),
    ([[5, "fragments/frag.0000000000000000.json", 1],
      [2, "fragments/frag.0000000000000001.json", 1]], "not in ascending order"),
    ([[0, "../frag.0000000000000000.json", 1]], "not a payload name"),
    ([[0, "fragments/frag.0000000000000000.json", -1]], "malformed entry"),
])
def test_a_bad_directory_is_refused_by_name(data, message):
    with pytest.raises(BundleError, match=message):
        check_directory(data, "index/frag.0123456789abcdef.json")
