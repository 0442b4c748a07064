"""The tokenizer's vocabulary in files by a piece's first characters: whole, keyed files
named from the key alone, shards cut at key boundaries, and enough to tokenize a text
exactly from the files of its words."""

from __future__ import annotations

import bisect
import json

import pytest
from tokenizers import Tokenizer

from mkdocs_semantic.bundle.names import checked, json_bytes, verify
from mkdocs_semantic.bundle.wordpieces import (
    checked_keyed_list,
    checked_piece_shard,
    key_stem,
    keyed_name,
    keyed_stems,
    piece_key,
    word_keys,
    wordpiece_shards,
)
from mkdocs_semantic.model.spec import default_model_spec

TOKENIZER = default_model_spec().tokenizer_path
TEXTS = ["how do I run code on startup", "Lifespan Events", "HTTPException --reload",
         "custom_dir gh-deploy mkdocs.yml", "Café naïve résumé", "日本語のテキスト 🚀",
         "x" * 120, "[CLS] [unk] ##ing ## #", "2024-11-27 v1.2.3", "a I 7 qz zq",
         "\ufb01le \u216b \uff46\uff55\uff4c\uff4c \u0130stanbul straße"]


@pytest.fixture(scope="module")
def shards():
    return wordpiece_shards(TOKENIZER, target_bytes=4096)


def test_piece_keys():
    assert piece_key("lifes", "##") == "li"
    assert piece_key("l", "##") == "l"
    assert piece_key("##pan", "##") == "##p"
    assert piece_key("##", "##") == "##"
    assert piece_key("#", "##") == "#"
    assert piece_key("日本", "##") == "日本"


def test_key_stems():
    assert key_stem("li", "##") == key_stem("l", "##") == key_stem("la", "##") == "sl"
    assert key_stem("7z", "##") == "s7"
    assert key_stem("##p", "##") == "cp"
    assert key_stem("-", "##") == key_stem("#", "##") == "p"
    for other in ("##", "日本", "l日", "##日", "Li", "l-", "-l", "—", "##-"):
        assert key_stem(other, "##") is None
    stems = keyed_stems()
    assert len(stems) == len(set(stems)) == 36 + 36 + 1


def test_word_keys_fold_a_first_character_into_its_pair():
    assert word_keys("lifespan", "##") == {"li", "##i", "##f", "##e", "##s", "##p", "##a", "##n"}
    assert word_keys("l", "##") == {"l"}
    assert word_keys("日本", "##") == {"日本", "日", "##本"}


def test_every_piece_once_in_the_shard_of_its_key_and_in_its_keyed_file(shards):
    vocab = json.loads(TOKENIZER.read_text(encoding="utf-8"))["model"]["vocab"]
    assert set(shards.keyed) == set(keyed_stems())
    firsts = [first for first, _ in shards.shards]
    assert firsts == sorted(firsts) and len(set(firsts)) == len(firsts)
    merged: dict[str, int] = {}
    for number, (_, shard) in enumerate(shards.shards):
        pieces = checked_piece_shard(shard)
        assert not merged.keys() & pieces.keys()
        merged |= pieces
        for piece in pieces:  # the shard a reader looks the piece's key up in
            assert bisect.bisect_right(firsts, piece_key(piece, "##")) - 1 == number, piece
    assert merged == vocab
    in_files: dict[str, int] = {}
    for stem, shard in shards.keyed.items():
        pieces = checked_piece_shard(shard)
        for piece in pieces:
            key = piece_key(piece, "##")
            assert key_stem(key, "##") == stem
        in_files |= pieces
    assert in_files == {p: i for p, i in vocab.items()
                        if key_stem(piece_key(p, "##"), "##") is not None}
    assert "q" in shards.keyed["sq"]["pieces"] and "qu" in shards.keyed["sq"]["pieces"]
    assert "vocab" not in shards.config["model"]
    assert shards.config["model"]["type"] == "WordPiece"


def test_a_keyed_file_checks_itself(shards):
    name = keyed_name("sl", shards.keyed_hash)
    data = checked(name, json_bytes(shards.keyed["sl"]))
    assert verify(name, data) == data
    with pytest.raises(ValueError, match="does not match"):
        verify(keyed_name("sm", shards.keyed_hash), data)  # under another key's name
    with pytest.raises(ValueError, match="does not match"):
        verify(name, data[:-5] + b" " + data[-4:])


def test_the_keyed_list_names_every_file_in_order():
    listed = [[stem, 40] for stem in keyed_stems()]
    assert checked_keyed_list(listed, "x")[:2] == [("s0", 40), ("s1", 40)]
    for bad in (listed[1:], [listed[1], listed[0], *listed[2:]], [["s0", True], *listed[1:]],
                [["s0", 0], *listed[1:]], {}):
        with pytest.raises(ValueError, match="every keyed word piece file"):
            checked_keyed_list(bad, "x")


def test_the_shards_or_files_of_a_texts_words_tokenize_it_as_the_whole_vocabulary(shards):
    whole = Tokenizer.from_file(str(TOKENIZER))
    whole.no_padding()
    whole.no_truncation()
    firsts = [first for first, _ in shards.shards]
    specials = {t["content"]: t["id"] for t in shards.config["added_tokens"]}
    for text in TEXTS:
        words = whole.pre_tokenizer.pre_tokenize_str(whole.normalizer.normalize_str(text))
        keys = set().union(*(word_keys(w, "##") for w, _ in words))
        stems = {key_stem(k, "##") for k in keys} - {None}
        numbers = {bisect.bisect_right(firsts, k) - 1 for k in keys
                   if key_stem(k, "##") is None} - {-1}
        assert len(numbers) < len(firsts)
        vocab = dict(specials)
        for n in numbers:
            vocab |= checked_piece_shard(shards.shards[n][1])
        for stem in stems:
            vocab |= checked_piece_shard(shards.keyed[stem])
        config = {**shards.config, "model": {**shards.config["model"], "vocab": vocab}}
        partial = Tokenizer.from_str(json.dumps(config))
        assert partial.encode(text).ids == whole.encode(text).ids, text
        # the shards alone, as a reader that has not asked for keyed files reads them
        keys |= {w[:1] for w, _ in words}
        vocab = dict(specials)
        for n in {bisect.bisect_right(firsts, k) - 1 for k in keys} - {-1}:
            vocab |= checked_piece_shard(shards.shards[n][1])
        config = {**shards.config, "model": {**shards.config["model"], "vocab": vocab}}
        assert Tokenizer.from_str(json.dumps(config)).encode(text).ids == \
            whole.encode(text).ids, text


def test_a_tokenizer_that_is_not_wordpiece_has_no_shards(tmp_path):
    path = tmp_path / "tokenizer.json"
    path.write_text(json.dumps({"model": {"type": "BPE", "vocab": {"a": 0}, "merges": []}}))
    assert wordpiece_shards(path) is None


@pytest.mark.parametrize("bad", [
    None, [], {"pieces": ["a"], "ids": []}, {"pieces": ["a", "b"], "ids": [1, 0]},
    {"pieces": [""], "ids": [0]}, {"pieces": ["a"], "ids": [-1]}, {"pieces": ["a"], "ids": [True]}])
def test_a_malformed_shard_is_refused(bad):
    with pytest.raises(ValueError, match="word piece shard"):
        checked_piece_shard(bad)
