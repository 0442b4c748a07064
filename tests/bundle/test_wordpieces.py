"""The tokenizer's vocabulary in shards by a piece's first character: whole, cut at key
boundaries, and enough to tokenize a text exactly from the shards of its words."""

from __future__ import annotations

import bisect
import json

import pytest
from tokenizers import Tokenizer

from mkdocs_semantic.bundle.wordpieces import checked_piece_shard, piece_key, wordpiece_shards
from mkdocs_semantic.model.spec import default_model_spec

TOKENIZER = default_model_spec().tokenizer_path
TEXTS = ["how do I run code on startup", "Lifespan Events", "HTTPException --reload",
         "custom_dir gh-deploy mkdocs.yml", "Café naïve résumé", "日本語のテキスト 🚀",
         "x" * 120, "[CLS] [unk] ##ing ## #", "2024-11-27 v1.2.3",
         "\ufb01le \u216b \uff46\uff55\uff4c\uff4c \u0130stanbul"]


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


def test_every_piece_once_in_the_shard_of_its_key(shards):
    vocab = json.loads(TOKENIZER.read_text(encoding="utf-8"))["model"]["vocab"]
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
    assert "vocab" not in shards.config["model"]
    assert shards.config["model"]["type"] == "WordPiece"


def test_the_shards_of_a_texts_words_tokenize_it_as_the_whole_vocabulary(shards):
    whole = Tokenizer.from_file(str(TOKENIZER))
    whole.no_padding()
    whole.no_truncation()
    firsts = [first for first, _ in shards.shards]
    specials = {t["content"]: t["id"] for t in shards.config["added_tokens"]}
    for text in TEXTS:
        words = whole.pre_tokenizer.pre_tokenize_str(whole.normalizer.normalize_str(text))
        keys = {w[:n] for w, _ in words for n in (1, 2)} | \
            {"##" + c for w, _ in words for c in w[1:]}
        numbers = {bisect.bisect_right(firsts, k) - 1 for k in keys} - {-1}
        assert len(numbers) < len(firsts)
        vocab = dict(specials)
        for n in numbers:
            vocab |= checked_piece_shard(shards.shards[n][1])
        config = {**shards.config, "model": {**shards.config["model"], "vocab": vocab}}
        partial = Tokenizer.from_str(json.dumps(config))
        assert partial.encode(text).ids == whole.encode(text).ids, text


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
