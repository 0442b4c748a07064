"""Self-checked JSON payloads are stored deflated, and read back only within bounds."""

from __future__ import annotations

import re
import zlib

import pytest

from mkdocs_semantic.bundle.format import BundleError
from mkdocs_semantic.bundle.names import PayloadError, deflate, deflated, inflate, self_check
from mkdocs_semantic.bundle.reader import read_bundle
from mkdocs_semantic.constants import MAX_KEYED_SHARD_BYTES

from .test_reader_writer import catalog_of, write_sample


def test_only_self_checked_json_payloads_are_deflated():
    assert deflated("lexical/lex3.01234567.json")
    assert deflated("pieces/sl.0123456789abcdef.json")
    assert not deflated("lexical/sizes.0123456789abcdef.json")  # named by its own hash
    assert not deflated("table/row5.0123456789abcdef.bin")
    assert not deflated("vectors/rows.0123456789abcdef.i8")


def test_inflate_gives_back_the_json_and_refuses_anything_else():
    body = b'{"terms": ["cache"]}'
    assert inflate(deflate(body), "x") == body
    for bad, why in ((body, "is not deflated JSON"),
                     (deflate(body)[:-3], "is not one whole deflated stream"),
                     (deflate(body) + b"more", "is not one whole deflated stream"),
                     (deflate(b" " * 101), "inflates to more than the 100 bytes")):
        with pytest.raises(PayloadError, match=re.escape(f"x {why}")):
            inflate(bad, "x", limit=100)


def test_a_deflate_bomb_under_a_shards_name_is_refused_by_name(tmp_path):
    """A deflate bomb under a shard's name, with its check: refused, naming it, before
    a byte is inflated (its listed size; `inflate`'s bound holds where no size is)."""
    write_sample(tmp_path)
    shards = catalog_of(tmp_path)["vocabulary"]["shards"]
    name = f"{shards['stem']}0.{shards['hashes'][:8]}.json"
    size = (tmp_path / name).stat().st_size
    bomb = zlib.compress(b"[" + b" " * MAX_KEYED_SHARD_BYTES + b"]", 9)
    assert len(bomb) + 4 > size  # a bomb does not fit the listed size: the size is checked first
    (tmp_path / name).write_bytes(bomb + self_check(name, bomb))
    with pytest.raises(BundleError, match=re.escape(name)):
        read_bundle(tmp_path)
