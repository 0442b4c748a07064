"""Shard lists: shards named by number and their own hash, listed by first key and size;
in the catalog while short, in directories once long; keyed lists, whose shard of a key
is named from the key alone."""

from __future__ import annotations

import hashlib
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
    hash_at,
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


def test_a_short_list_names_its_shards_by_number_and_their_own_hash():
    written, write = writer()
    value = write_shard_list(shards(3), "fragments/frag", write)
    hashes = value["hashes"]
    names = [f"fragments/frag{i}.{hashlib.sha256(body).hexdigest()[:8]}.json"
             for i, (_, body) in enumerate(shards(3))]
    assert hashes == "".join(name.split(".")[1] for name in names)
    assert value == {"stem": "fragments/frag", "first": [0, 10, 20],
                     "bytes": [len(written[name]) for name in names], "hashes": hashes}
    listed = parse_shard_list(value, int)
    assert [(first, name) for first, name, _ in listed.entries] == [
        (10 * i, names[i]) for i in range(3)]
    for (_, body), (_, name, size) in zip(shards(3), listed.entries):
        assert self_checked_body(name, verify(name, written[name], size=size)) == body
    # The same bytes get the same names; a changed shard is renamed, the others are not.
    assert write_shard_list(shards(3), "fragments/frag", writer()[1]) == value
    edited = shards(3)
    edited[1] = (10, b'["page 10, edited"]')
    again = write_shard_list(edited, "fragments/frag", writer()[1])["hashes"]
    assert [hash_at(again, i) == hash_at(hashes, i) for i in range(3)] == [True, False, True]


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
    hashes = value["hashes"]
    assert value == {"stem": "lexical/lex", "count": count, "hashes": hashes,
                     "sizes": ["lexical/sizes.0123456789abcdef.json",
                               len(sizes["lexical/sizes.0123456789abcdef.json"])]}
    listed = parse_shard_list(value, str, "lexical/lex")
    assert listed.payloads() == [listed.sizes] and listed.entries is None
    entries = resolve(listed, read_directory(written),
                      lambda name, size: json.loads(sizes[name]))
    assert [(n, name) for n, name, _ in entries] == [
        (n, f"lexical/lex{n}.{hashlib.sha256(bodies[n]).hexdigest()[:8]}.json")
        for n in range(count)]
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
    hashes = write_shard_list(shards(2), "text/text", write)["hashes"]
    with pytest.raises(PayloadError, match="does not match its hash"):
        verify(f"text/text1.{hash_at(hashes, 0)}.json",
               written[f"text/text0.{hash_at(hashes, 0)}.json"])


def test_a_long_list_goes_to_directories(monkeypatch):
    monkeypatch.setattr(shard_lists, "DIRECT_MAX", 4)
    monkeypatch.setattr(shard_lists, "DIR_ENTRIES", 3)
    written, write = writer()
    value = write_shard_list(shards(7), "fragments/frag", write)
    assert value["dirs"]["first"] == [0, 30, 60]  # 3 + 3 + 1 shards
    directories = [f"index/frag{i}.{hash_at(value['dirs']['hashes'], i)}.json"
                   for i in range(3)]
    assert sorted(n for n in written if n.startswith("index/")) == directories
    listed = parse_shard_list(value, int)
    assert listed.entries is None
    assert [p.name for p in listed.payloads()] == directories
    assert [(first, name) for first, name, _ in resolve(listed, read_directory(written))] \
        == [(10 * i, f"fragments/frag{i}.{hashlib.sha256(body).hexdigest()[:8]}.json")
            for i, (_, body) in enumerate(shards(7))]


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
    name = f"index/frag1.{hash_at(value['dirs']['hashes'], 1)}.json"  # shards 3 to 5: say 4 to 6
    body = json.loads(self_checked_body(name, written[name]))
    moved = json.dumps({**body, "at": 4}).encode()
    written[name] = checked(name, moved)
    value["dirs"]["bytes"][1] = len(written[name])
    with pytest.raises(ValueError, match="does not number its shards from 3"):
        resolve(parse_shard_list(value, int), read_directory(written))


def test_a_directory_is_named_by_what_it_holds(monkeypatch):
    monkeypatch.setattr(shard_lists, "DIRECT_MAX", 4)
    monkeypatch.setattr(shard_lists, "DIR_ENTRIES", 3)
    dirs = write_shard_list(shards(7), "fragments/frag", writer()[1])["dirs"]
    monkeypatch.setattr(shard_lists, "DIR_ENTRIES", 2)
    again = write_shard_list(shards(7), "fragments/frag", writer()[1])["dirs"]
    assert hash_at(again["hashes"], 0) != hash_at(dirs["hashes"], 0)  # 2 shards, not 3


@pytest.mark.parametrize("value, message", [
    ([[0, "fragments/frag.0123456789abcdef.json", 1]], "must be {stem, first"),
    ({"stem": "../frag", "hashes": "", "first": [], "bytes": []},
     "has the stem '../frag', not 'text/text'"),
    ({"stem": "fragments/frag", "hashes": "", "first": [], "bytes": []},
     "has the stem 'fragments/frag', not 'text/text'"),
    ({"stem": "text/text", "hashes": "0123", "first": [0], "bytes": [1]},
     "must list the hashes of its 1 shards, 8 hex digits each"),
    ({"stem": "text/text", "hashes": 1, "first": [], "bytes": []}, "must list the hashes"),
    ({"stem": "text/text", "hashes": "0123456X", "first": [0], "bytes": [1]},
     "must list the hashes"),
    ({"stem": "text/text", "hashes": "01234567", "first": [0]}, "must be {stem, first"),
    ({"stem": "text/text", "hashes": "01234567", "first": [0], "bytes": [1],
      "dirs": {"first": [], "bytes": []}}, "must be {stem, first"),
    ({"stem": "text/text", "dirs": {"first": [], "bytes": [], "hashes": ""}},
     "has no directories"),
    ({"stem": "text/text", "hashes": "01234567", "first": [0, 1], "bytes": [1]},
     "of one length"),
    ({"stem": "text/text", "hashes": "0123456701234567", "first": [5, 2], "bytes": [1, 1]},
     "not in ascending order"),
    ({"stem": "text/text", "hashes": "01234567", "first": ["a"], "bytes": [1]},
     "not an integer"),
    ({"stem": "text/text", "hashes": "01234567", "first": [0], "bytes": [-1]},
     "not a count of bytes"),
    ({"stem": "text/text", "hashes": "", "count": -1, "sizes": ["s", 1]},
     "has the count -1, not a number of shards"),
    ({"stem": "text/text", "hashes": "0123456701234567", "count": 2, "sizes": "s"},
     "must name its sizes payload as [name, bytes]"),
    ({"stem": "text/text", "hashes": "01234567", "count": 2, "sizes": ["s", 1]},
     "must list the hashes of its 2 shards"),
])
def test_a_bad_list_is_refused(value, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        parse_shard_list(value, int, "text/text")


@pytest.mark.parametrize("name, data, message", [
    ("index/frag0.01234567.json", [], "not a shard list directory"),
    ("index/frag0.01234567.json", {"at": -1, "first": [0], "bytes": [1], "hashes": "01234567"},
     "not a shard list directory"),
    ("index/frag0.01234567.json", {"at": 0, "first": [], "bytes": [], "hashes": ""},
     "an empty directory"),
    ("index/frag0.01234567.json",
     {"at": 0, "first": [5, 2], "bytes": [1, 1], "hashes": "0123456701234567"},
     "not in ascending order"),
    ("index/frag0.01234567.json", {"at": 0, "first": [0], "bytes": [1]}, "hashes"),
    ("fragments/frag0.01234567.json",
     {"at": 0, "first": [0], "bytes": [1], "hashes": "01234567"},
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
    listed = parse_shard_list({"stem": "lexical/lex", "hashes": "0123456701234567", "count": 2,
                               "sizes": ["lexical/sizes.0123456789abcdef.json", 6]}, str)
    assert [size for *_, size in shard_lists.keyed_entries(listed, [5, 10])] == [5, 10]
    with pytest.raises(ValueError, match="sizes of 2 shards of at most 10 bytes"):
        shard_lists.keyed_entries(listed, [5, 11])
    with pytest.raises(ValueError, match="more than the 10 a reader reads"):
        write_keyed_list([b"x" * 20], "lexical/lex", writer()[1], lambda data: ["s", 1])
