"""bench/relevance/slips.py: readers' slips and half-typed queries, and the committed
slipped copies of the relevance sets being the ones it writes."""

from __future__ import annotations

import importlib.util
import random
import re
from collections import Counter
from pathlib import Path

import pytest

from .conftest import REPO

SCRIPT = REPO / "bench" / "relevance" / "slips.py"
if not SCRIPT.is_file():  # the sdist carries tests/ but not bench/
    pytest.skip(f"{SCRIPT.relative_to(REPO)} is not here", allow_module_level=True)

_spec = importlib.util.spec_from_file_location("bench_relevance_slips", SCRIPT)
assert _spec and _spec.loader
slips = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(slips)

WORDS = ["background", "Postgres", "connection", "argument", "readers", "ABCDEFG", "can't",
         "wrong,", "third-party", "shared"]


def kind_of(word: str, slipped: str) -> str:
    """Which slip turned word into slipped, judged by the shapes alone."""
    if len(slipped) == len(word) - 1:
        assert any(word[:i] + word[i + 1:] == slipped for i in range(len(word)))
        return "drop"
    if len(slipped) == len(word) + 1:
        assert any(word[:i + 1] + word[i:] == slipped for i in range(len(word)))
        return "double"
    assert len(slipped) == len(word)
    spots = [i for i, (a, b) in enumerate(zip(word, slipped)) if a != b]
    if len(spots) == 2:
        i, j = spots
        assert j == i + 1 and (slipped[i], slipped[j]) == (word[j], word[i])
        assert sorted(slipped) == sorted(word)
        return "swap"
    (i,) = spots
    assert slipped[i].lower() in slips.NEIGHBOURS[word[i].lower()]
    return "neighbour"


def test_the_keyboard_table_is_symmetric_and_covers_a_to_z():
    assert sorted(slips.NEIGHBOURS) == [chr(c) for c in range(ord("a"), ord("z") + 1)]
    for key, around in slips.NEIGHBOURS.items():
        assert key not in around
        assert all(key in slips.NEIGHBOURS[other] for other in around), key
    assert slips.NEIGHBOURS["a"] == "qswz" and slips.NEIGHBOURS["m"] == "jkn"


def test_every_kind_of_slip_happens_with_its_shape():
    kinds = Counter()
    for word in WORDS:
        for seed in range(60):
            slipped = slips.slip_word(word, random.Random(seed))
            assert slipped != word and slipped.lower() != word.lower()
            kinds[kind_of(word, slipped)] += 1
    assert set(kinds) == set(slips.KINDS)
    assert min(kinds.values()) > len(WORDS) * 60 / 8  # each near a quarter of the slips


def test_a_slip_keeps_the_first_letter_the_case_and_everything_but_letters():
    for word in WORDS:
        for seed in range(60):
            slipped = slips.slip_word(word, random.Random(seed))
            assert slipped[0] == word[0]
            assert re.sub("[A-Za-z]", "", slipped) == re.sub("[A-Za-z]", "", word)
            if word.islower():
                assert slipped.islower()
            if word.isupper():
                assert slipped.isupper()
            if word.istitle():
                assert slipped.istitle()
    assert slips.slip_word("'quoted", random.Random(1))[:2] == "'q"
    with pytest.raises(ValueError):
        slips.slip_word("a", random.Random(1))


@pytest.mark.parametrize("word", ["lru_cache", "json.dumps", "--workers", "-X", "HTTPException",
                                  "varchar(n)", "/usr/local", "name=setting", "python3",
                                  "<alias>@npm:<name>", ":semver", "$PREFIX/etc/npmrc", "GitHub",
                                  "RETURNING", "four", "tiny", "a", "8080", "192.168.0.0/16"])
def test_code_and_short_words_are_never_touched(word):
    query = f"{word} {word}"
    assert not slips.slippable(word)
    for seed in range(20):
        assert slips.slip_query(query, random.Random(seed)) == query


def test_the_spacing_and_the_untouched_words_stay():
    query = "  keep   HTTPException with\tlru_cache and  background "
    for seed in range(30):
        slipped = slips.slip_query(query, random.Random(seed))
        assert re.findall(r"\s+", slipped) == re.findall(r"\s+", query)
        words, new = query.split(), slipped.split()
        assert [w for w, n in zip(words, new) if w != n] == ["background"]


def test_the_same_seed_gives_the_same_slips():
    query = "run several slow calls at once in background threads and gather their values"
    runs = {slips.slip_query(query, slips.rng_for(query)) for _ in range(3)}
    assert len(runs) == 1
    others = {slips.slip_query(query, random.Random(seed)) for seed in range(20)}
    assert len(others) > 10


def test_about_half_of_the_eligible_words_change():
    words = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india",
             "juliet", "kilo", "lima", "oscar", "papa", "quebec", "romeo", "sierra", "tango",
             "uniform", "victor", "whiskey", "xray", "zulu"]
    eligible = [w for w in words if slips.slippable(w)]
    assert len(eligible) == 16
    query = " ".join(words)
    changed = []
    for seed in range(200):
        new = slips.slip_query(query, random.Random(seed)).split()
        assert all(w == n for w, n in zip(words, new) if not slips.slippable(w))
        changed.append(sum(w != n for w, n in zip(words, new)))
    assert set(changed) == {8}  # share 0.5 of 16, no rounding to do
    odd = " ".join(eligible[:5])
    counts = Counter(sum(a != b for a, b in zip(odd.split(),
                                                 slips.slip_query(odd, random.Random(s)).split()))
                     for s in range(400))
    assert set(counts) == {2, 3} and 150 < counts[2] < 250  # 2.5 on average
    assert sum(slips.slip_query("one lonely word", random.Random(s)) != "one lonely word"
               for s in range(20)) == 20  # at least one word slips
    for seed in range(50):
        new = slips.slip_query(query, random.Random(seed), share=1.0).split()
        assert sum(w != n for w, n in zip(words, new)) == 16


def test_half_typed_cuts_the_last_word():
    assert slips.half_typed("walk an org chart") is None  # "chart": 5 characters
    assert slips.half_typed("prevent overlapping room bookings") == "prevent overlapping room book"
    assert slips.half_typed("window") == "win"  # ceil(6 / 2)
    assert slips.half_typed("show me windows") == "show me wind"  # ceil(7 / 2)
    assert slips.half_typed("HTTPException") == "HTTPExc"
    assert slips.half_typed(" two  spaces  together  ") == " two  spaces  toge"
    assert slips.half_typed("abc") is None and slips.half_typed("") is None


def test_the_committed_files_are_the_ones_the_script_writes(capsys):
    folder = SCRIPT.parent
    written = slips.outputs(folder)
    sources = sorted(p.name for p in folder.glob("*.tsv") if slips.SOURCE.fullmatch(p.name))
    assert len(sources) == 22 and len(written) == 2 * len(sources)
    for out in written:
        assert (folder / out.name).read_text(encoding="utf-8") == out.text, (
            f"{out.name} is stale: run python bench/relevance/slips.py")
    assert slips.main(["--check"]) == 0
    assert "up to date" in capsys.readouterr().out


def test_check_fails_on_an_edited_copy_and_writes_none(tmp_path: Path, capsys):
    (tmp_path / "demo-paraphrase.tsv").write_text(
        "remember what an expensive call returned\ta/ b/\nturn it off\tc/\n", encoding="utf-8")
    assert slips.main(["--check", "--folder", str(tmp_path)]) == 1
    assert slips.main(["--folder", str(tmp_path)]) == 0
    assert "demo-paraphrase-slipped.tsv: 2 queries, 1 changed" in capsys.readouterr().out
    lines = (tmp_path / "demo-paraphrase-slipped.tsv").read_text(encoding="utf-8").splitlines()
    assert lines[0].endswith("\ta/ b/") and lines[0] != "remember what an expensive call returned"
    assert lines[1] == "turn it off\tc/"
    assert (tmp_path / "demo-paraphrase-half.tsv").read_text(encoding="utf-8") == (
        "remember what an expensive call retu\ta/ b/\n")
    assert slips.main(["--check", "--folder", str(tmp_path)]) == 0
    slipped = tmp_path / "demo-paraphrase-slipped.tsv"
    slipped.write_text(slipped.read_text(encoding="utf-8") + "extra\tx/\n", encoding="utf-8")
    assert slips.main(["--check", "--folder", str(tmp_path)]) == 1
    (tmp_path / "gone-exact-half.tsv").write_text("", encoding="utf-8")
    slipped.write_text("".join(lines[i] + "\n" for i in (0, 1)), encoding="utf-8")
    assert slips.main(["--check", "--folder", str(tmp_path)]) == 1  # no source for it
    assert "gone-exact-half.tsv" in capsys.readouterr().out
