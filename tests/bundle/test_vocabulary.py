"""The site's words, sharded by range, read back by prefix."""

from __future__ import annotations

import pytest

from mkdocs_semantic.bundle.lexical import LexicalFields
from mkdocs_semantic.bundle.shard_lists import ShardReader
from mkdocs_semantic.bundle.vocabulary import (
    Entry,
    Vocabulary,
    build_vocabulary,
    checked_shard,
    checked_spelling_shard,
    spelling_key,
    spelling_shards,
    vocabulary_shards,
    vocabulary_word,
)


def test_words_are_lowercased_letters_counted_once_per_chunk():
    words = build_vocabulary([
        LexicalFields("Lifespan Events", "Startup", "Run code on startup, startup again."),
        LexicalFields("Caching", "", "Caché naïve x2 e.g. response_model to of HTTPException"),
    ])
    assert {e.key: e.count for e in words if e.is_word} == {
        "caching": 1, "caché": 1, "code": 1, "events": 1, "lifespan": 1, "naïve": 1,
        "run": 1, "startup": 1}
    assert {e.key: e.form for e in words if not e.is_word} == {
        "response_model": "response_model", "httpexception": "HTTPException", "e.g": "e.g"}
    assert vocabulary_word("A" * 33) is None and vocabulary_word("\U0001d400\U0001d401") is None


def test_a_key_written_mostly_as_a_plain_word_stays_a_word():
    """One odd spelling (a man page's `authoriZation`) does not turn a word the site
    writes plainly into a name: a reader's completion then shows the word."""
    words = build_vocabulary([
        LexicalFields("", "", "Authorization needs an authorization header."),
        LexicalFields("", "", "See authoriZation, then authorization again."),
        LexicalFields("", "", "Call fetchData, fetchdata or fetchData."),
    ])
    by_key = {e.key: e for e in words}
    assert by_key["authorization"].form == "authorization"
    assert by_key["authorization"].is_word and by_key["authorization"].count == 2
    assert by_key["fetchdata"].form == "fetchData" and not by_key["fetchdata"].is_word


def test_keys_written_as_long_flags_are_marked_and_kept_in_the_shards():
    words = build_vocabulary([
        LexicalFields("", "", "Run with --workers 4 or --worker-class, then work."),
        LexicalFields("", "", "a--b ---reload and x --Verbose; flags: --log-level."),
    ])
    assert {e.key for e in words if e.flag} == {"workers", "worker-class", "verbose",
                                                "log-level"}
    shards = vocabulary_shards(words, target_bytes=40)
    read = [e for _, shard in shards for e in checked_shard(shard).entries]
    assert read == words and len(shards) > 1


def reader_of(shards: list[tuple[str, dict]], stem: str, check, read: list[str]) -> ShardReader:
    """A ShardReader of `shards` held in memory, each checked by `check` when read, its
    name added to `read`."""
    listed = [(first, f"{stem}{i}.0123456789abcdef.json", 0) for i, (first, _) in enumerate(shards)]
    by_name = {name: shard for (_, name, _), (_, shard) in zip(listed, shards)}

    def load(name, size):
        read.append(name)
        return check(by_name[name])

    return ShardReader(listed, load)


NOTHING = ShardReader([], lambda name, size: None)


def test_shards_cover_the_words_in_order_and_prefixes_read_only_their_shards():
    counts = {f"{a}{b}word": i + 1 for i, (a, b) in enumerate(
        (a, b) for a in "abcdefgh" for b in "abcdefgh")}
    shards = vocabulary_shards([Entry(w, c, w) for w, c in counts.items()], target_bytes=60)
    assert len(shards) > 8
    flat = [w for _, s in shards for w in s["words"]]
    assert flat == sorted(counts) and [f for f, _ in shards] == [s["words"][0] for _, s in shards]
    read: list[str] = []
    vocabulary = Vocabulary(reader_of(shards, "vocabulary/words", checked_shard, read), NOTHING)
    assert [e.key for e in vocabulary.starting(["cd"])] == ["cdword"]
    assert vocabulary.starting(["c"]) == [Entry(w, counts[w], w) for w in sorted(counts)
                                          if w.startswith("c")]
    assert vocabulary.starting(["zz"]) == [] and vocabulary.starting(["0"]) == []
    assert len(set(read)) < len(shards)


def test_a_slip_reads_only_the_spelling_shards_near_its_length_and_first_letters():
    words = [f"{a}{b}{'x' * n}" for a in "abcdefgh" for b in "abcdefgh" for n in range(1, 12)]
    entries = [Entry(w, i + 1, w) for i, w in enumerate(sorted(words))]
    names = [Entry("ab_cd", 3, "ab_cd"), Entry("abcdef", 2, "abCdef")]  # never candidates
    shards = spelling_shards(sorted(entries + names, key=lambda e: e.key), target_bytes=80)
    assert len(shards) > 40
    flat = [w for _, s in shards for w in s["words"]]
    assert sorted(flat) == sorted(words) and flat == sorted(words, key=spelling_key)
    read: list[str] = []
    vocabulary = Vocabulary(NOTHING, reader_of(shards, "vocabulary/spell",
                                                checked_spelling_shard, read))
    got = vocabulary.correctable("cdxxxx", 1)
    assert sorted(e.key for e in got) == sorted(
        w for w in words if abs(len(w) - 6) <= 1 and w.startswith(("c", "dc")))
    assert all(e.count == entries[sorted(words).index(e.key)].count for e in got)
    assert len(set(read)) < len(shards) // 4
    # a word of the smallest length: no range below it
    assert {e.key for e in vocabulary.correctable("abx", 1)} == {
        w for w in words if len(w) <= 4 and w.startswith(("a", "ba"))}


@pytest.mark.parametrize("shard", [
    {"words": ["b", "a"], "counts": [1, 1]}, {"words": ["abcd", "abd"], "counts": [1, 1]},
    {"words": ["a_b"], "counts": [1]}, {"words": ["a"], "counts": [0]}, {"words": ["a"]},
    [],
])
def test_a_malformed_spelling_shard_is_refused(shard):
    assert checked_spelling_shard({"words": ["abd", "abcd"], "counts": [1, 2]}).keys == [
        "a03bd", "a04bcd"]  # spelling order, not alphabetical
    with pytest.raises(ValueError, match="spelling shard"):
        checked_spelling_shard(shard)


@pytest.mark.parametrize("shard", [
    {"words": ["a", "b"], "counts": [1, 1], "forms": [], "flags": [1, 0]},
    {"words": ["a"], "counts": [1], "forms": [], "flags": [1]},
    {"words": ["a"], "counts": [1], "forms": []},
    [], {"words": ["a"], "forms": []}, {"words": ["a", "b"], "counts": [1], "forms": []},
    {"words": ["b", "a"], "counts": [1, 1], "forms": []},
    {"words": ["a"], "counts": [0], "forms": []}, {"words": [1], "counts": [1], "forms": []},
    {"words": ["a"], "counts": [True], "forms": []}, {"words": ["a"], "counts": [1]},
    {"words": ["a"], "counts": [1], "forms": [[1, "A"]]},
    {"words": ["a"], "counts": [1], "forms": [[0, 5]]},
])
def test_a_malformed_shard_is_refused(shard):
    with pytest.raises(ValueError, match="vocabulary shard"):
        checked_shard(shard)
