"""Shard lists: shards named by number and the list's hash, listed by first key and size;
in the catalog while short, in directories once long; keyed lists, whose shard of a key
is named from the key alone."""

from __future__ import annotations

import json
import re

import pytest

from mkdocs_semantic.bundle import shard_lists
from mkdocs_semantic.bundle.format import BundleError, check_directory
from mkdocs_semantic.bundle.names import (
    PayloadError,
    checked,
    self_checked_body,
    verify,
)
from mkdocs_semantic.bundle.shard_lists import (
    ShardReader,
    bucket_of,
    parse_shard_list,
    resolve,
    write_keyed_list,
    write_shard_list,
)


def shards(n: int, salt: str = "") -> list[tuple[object, bytes]]:
    return [(10 * i, json.dumps([f"page {10 * i}{salt}"]).encode()) for i in range(n)]


def writer() -> tuple[dict[str, bytes], object]:
    written: dict[str, bytes] = {}

    def write(name: str, body: bytes) -> int:
        written[name] = checked(name, body)
        return len(written[name])

    return written, write


def read_directory(written: dict[str, bytes]):
    def read(name: str, size: int) -> list[tuple]:
        data = verify(name, written[name], size=size)
        return check_directory(json.loads(self_checked_body(name, data)), name)
    return read


def test_a_short_list_names_its_shards_by_number_and_the_lists_hash():
    written, write = writer()
    value = write_shard_list(shards(3), "fragments/frag", write)
    digest = value["set"]
    assert value == {"stem": "fragments/frag", "set": digest, "first": [0, 10, 20],
                     "bytes": [len(written[f"fragments/frag{i}.{digest}.json"])
                               for i in range(3)]}
    listed = parse_shard_list(value, int)
    assert [(first, name) for first, name, _ in listed.entries] == [
        (10 * i, f"fragments/frag{i}.{digest}.json") for i in range(3)]
    for (_, body), (_, name, size) in zip(shards(3), listed.entries):
        assert self_checked_body(name, verify(name, written[name], size=size)) == body
    # Another list's bytes get another hash; the same bytes the same names.
    assert write_shard_list(shards(3, "x"), "fragments/frag", writer()[1])["set"] != digest
    assert write_shard_list(shards(3), "fragments/frag", writer()[1]) == value


def test_a_keyed_list_names_a_keys_shard_from_the_key_and_lists_no_key():
    keys = [f"term{i}" for i in range(40)]
    count = 5
    bodies = [json.dumps(sorted(k for k in keys if bucket_of(k, count) == n)).encode()
              for n in range(count)]
    written, write = writer()
    sizes: dict[str, bytes] = {}

    def put_sizes(data: bytes) -> list:
        sizes["lexical/sizes.0123456789abcdef.json"] = data
        return ["lexical/sizes.0123456789abcdef.json", len(data)]

    value = write_keyed_list(bodies, "lexical/lex", write, put_sizes)
    digest = value["set"]
    assert value == {"stem": "lexical/lex", "set": digest, "count": count,
                     "sizes": ["lexical/sizes.0123456789abcdef.json",
                               len(sizes["lexical/sizes.0123456789abcdef.json"])]}
    listed = parse_shard_list(value, str, "lexical/lex")
    assert listed.payloads() == [listed.sizes] and listed.entries is None
    entries = resolve(listed, read_directory(written),
                      lambda name, size: json.loads(sizes[name]))
    assert [(n, name) for n, name, _ in entries] == [
        (n, f"lexical/lex{n}.{digest}.json") for n in range(count)]
    reader = ShardReader(entries, lambda name, size: json.loads(self_checked_body(
        name, verify(name, written[name], size=size))), locate=bucket_of)
    for key in keys:
        assert key in reader.holding(key)[1]
    assert {bucket_of(k, count) for k in keys} == set(range(count)), "every shard holds a key"
    with pytest.raises(ValueError, match="does not list the sizes of 5 shards"):
        resolve(listed, read_directory(written), lambda name, size: [1, 2])
    with pytest.raises(ValueError, match="is a keyed list"):
        resolve(listed, read_directory(written))


def test_a_shard_read_under_another_number_fails_its_check():
    written, write = writer()
    digest = write_shard_list(shards(2), "text/text", write)["set"]
    with pytest.raises(PayloadError, match="does not match its hash"):
        verify(f"text/text1.{digest}.json", written[f"text/text0.{digest}.json"])


def test_a_long_list_goes_to_directories(monkeypatch):
    monkeypatch.setattr(shard_lists, "DIRECT_MAX", 4)
    monkeypatch.setattr(shard_lists, "DIR_ENTRIES", 3)
    written, write = writer()
    value = write_shard_list(shards(7), "fragments/frag", write)
    digest = value["set"]
    assert value["dirs"]["first"] == [0, 30, 60]  # 3 + 3 + 1 shards
    assert sorted(n for n in written if n.startswith("index/")) == [
        f"index/frag{i}.{digest}.json" for i in range(3)]
    listed = parse_shard_list(value, int)
    assert listed.entries is None
    assert [p.name for p in listed.payloads()] == [f"index/frag{i}.{digest}.json"
                                                   for i in range(3)]
    assert [(first, name) for first, name, _ in resolve(listed, read_directory(written))] \
        == [(10 * i, f"fragments/frag{i}.{digest}.json") for i in range(7)]


def test_directories_out_of_order_are_refused(monkeypatch):
    monkeypatch.setattr(shard_lists, "DIRECT_MAX", 4)
    monkeypatch.setattr(shard_lists, "DIR_ENTRIES", 3)
    written, write = writer()
    value = write_shard_list(shards(7), "fragments/frag", write)
    value["dirs"]["first"][1] = 40
    with pytest.raises(ValueError, match="does not hold the entries from 40"):
        resolve(parse_shard_list(value, int), read_directory(written))


def test_a_directory_numbering_its_shards_from_elsewhere_is_refused(monkeypatch):
    monkeypatch.setattr(shard_lists, "DIRECT_MAX", 4)
    monkeypatch.setattr(shard_lists, "DIR_ENTRIES", 3)
    written, write = writer()
    value = write_shard_list(shards(7), "fragments/frag", write)
    name = f"index/frag1.{value['set']}.json"  # its shards are 3 to 5: say 4 to 6
    body = json.loads(self_checked_body(name, written[name]))
    moved = json.dumps({**body, "at": 4}).encode()
    written[name] = checked(name, moved)
    value["dirs"]["bytes"][1] = len(written[name])
    with pytest.raises(ValueError, match="does not number its shards from 3"):
        resolve(parse_shard_list(value, int), read_directory(written))


def test_the_cut_into_directories_is_in_the_lists_hash(monkeypatch):
    monkeypatch.setattr(shard_lists, "DIRECT_MAX", 4)
    monkeypatch.setattr(shard_lists, "DIR_ENTRIES", 3)
    digest = write_shard_list(shards(7), "fragments/frag", writer()[1])["set"]
    monkeypatch.setattr(shard_lists, "DIR_ENTRIES", 2)
    assert write_shard_list(shards(7), "fragments/frag", writer()[1])["set"] != digest


@pytest.mark.parametrize("value, message", [
    ([[0, "fragments/frag.0123456789abcdef.json", 1]], "must be {stem, set"),
    ({"stem": "../frag", "set": "0123456789abcdef", "first": [], "bytes": []},
     "has the stem '../frag', not 'text/text'"),
    ({"stem": "fragments/frag", "set": "0123456789abcdef", "first": [], "bytes": []},
     "has the stem 'fragments/frag', not 'text/text'"),
    ({"stem": "text/text", "set": "0123", "first": [], "bytes": []}, "has the set '0123'"),
    ({"stem": "text/text", "set": 1, "first": [], "bytes": []}, "has the set 1"),
    ({"stem": "text/text", "set": "0123456789abcdef", "first": [0]}, "must be {stem, set"),
    ({"stem": "text/text", "set": "0123456789abcdef", "first": [0], "bytes": [1],
      "dirs": {"first": [], "bytes": []}}, "must be {stem, set"),
    ({"stem": "text/text", "set": "0123456789abcdef", "dirs": {"first": [], "bytes": []}},
     "has no directories"),
    ({"stem": "text/text", "set": "0123456789abcdef", "first": [0, 1], "bytes": [1]},
     "of one length"),
    ({"stem": "text/text", "set": "0123456789abcdef", "first": [5, 2], "bytes": [1, 1]},
     "not in ascending order"),
    ({"stem": "text/text", "set": "0123456789abcdef", "first": ["a"], "bytes": [1]},
     "not an integer"),
    ({"stem": "text/text", "set": "0123456789abcdef", "first": [0], "bytes": [-1]},
     "not a count of bytes"),
    ({"stem": "text/text", "set": "0123456789abcdef", "count": -1, "sizes": ["s", 1]},
     "has the count -1, not a number of shards"),
    ({"stem": "text/text", "set": "0123456789abcdef", "count": 2, "sizes": "s"},
     "must name its sizes payload as [name, bytes]"),
])
def test_a_bad_list_is_refused(value, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        parse_shard_list(value, int, "text/text")


@pytest.mark.parametrize("name, data, message", [
    ("index/frag0.0123456789abcdef.json", [], "not a shard list directory"),
    ("index/frag0.0123456789abcdef.json", {"at": -1, "first": [0], "bytes": [1]},
     "not a shard list directory"),
    ("index/frag0.0123456789abcdef.json", {"at": 0, "first": [], "bytes": []},
     "an empty directory"),
    ("index/frag0.0123456789abcdef.json", {"at": 0, "first": [5, 2], "bytes": [1, 1]},
     "not in ascending order"),
    ("fragments/frag0.0123456789abcdef.json", {"at": 0, "first": [0], "bytes": [1]},
     "not a directory's name"),
])
def test_a_bad_directory_is_refused_by_name(name, data, message):
    with pytest.raises(BundleError, match=message):
        check_directory(data, name)


def test_a_lone_surrogate_counts_as_the_replacement_character_as_in_a_browser():
    assert bucket_of("a\ud800b", 4096) == bucket_of("a\ufffdb", 4096)
    assert bucket_of("\ud83d\ude00", 4096) == bucket_of("😀", 4096)  # a pair is its character


def test_a_keyed_list_whose_sizes_pass_a_readers_bound_is_refused(monkeypatch):
    monkeypatch.setattr(shard_lists, "MAX_KEYED_SHARD_BYTES", 10)
    listed = parse_shard_list({"stem": "lexical/lex", "set": "0123456789abcdef", "count": 2,
                               "sizes": ["lexical/sizes.0123456789abcdef.json", 6]}, str)
    assert [size for *_, size in shard_lists.keyed_entries(listed, [5, 10])] == [5, 10]
    with pytest.raises(ValueError, match="sizes of 2 shards of at most 10 bytes"):
        shard_lists.keyed_entries(listed, [5, 11])
    with pytest.raises(ValueError, match="more than the 10 a reader reads"):
        write_keyed_list([b"x" * 20], "lexical/lex", writer()[1], lambda data: ["s", 1])
