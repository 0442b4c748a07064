"""Readers' slips and half-typed queries: seeded copies of every relevance set.

For each `<set>-<group>.tsv` here (groups `paraphrase` and `exact`) writes
`<set>-<group>-slipped.tsv`, the same queries with about half of their longer words
mistyped (a swap, a dropped, doubled or neighbouring key), and `<set>-<group>-half.tsv`,
the queries whose last word is long enough cut to its first half, as a reader who has
not finished typing. Same URLs. The files are generated: do not edit them by hand.

    python bench/relevance/slips.py           # write them, one line per file
    python bench/relevance/slips.py --check   # exit 1 when a committed file differs

Every query draws from its own `random.Random(f"{SEED}|{query}")`. A str seed (version 2,
the default) is turned into an int from all of its bits (CPython: through SHA-512, not
`hash()`, so PYTHONHASHSEED plays no part), and Python's docs promise that `random()`
gives the same sequence for the same seed in later versions (only that method: `choice`,
`sample` and `randrange` may change). So every choice here is drawn from `random()` alone,
and re-running the script, on any machine or Python version, writes the same bytes.
"""

from __future__ import annotations

import argparse
import math
import random
import re
import sys
from pathlib import Path
from typing import NamedTuple

HERE = Path(__file__).resolve().parent
SEED = "slips-1"
GROUPS = ("paraphrase", "exact")
SOURCE = re.compile(rf"([a-z0-9]+)-({'|'.join(GROUPS)})\.tsv")
GENERATED = re.compile(rf"[a-z0-9]+-(?:{'|'.join(GROUPS)})-(?:slipped|half)\.tsv")
KINDS = ("swap", "drop", "double", "neighbour")
MIN_SLIP = 5
"""Words with fewer letters than this are not slipped."""
MIN_HALF = 6
"""A last word shorter than this is not cut."""

NEIGHBOURS = {
    "q": "aw", "w": "aeqs", "e": "drsw", "r": "deft", "t": "fgry", "y": "ghtu", "u": "hijy",
    "i": "jkou", "o": "iklp", "p": "lo",
    "a": "qswz", "s": "adewxz", "d": "cefrsx", "f": "cdgrtv", "g": "bfhtvy", "h": "bgjnuy",
    "j": "hikmnu", "k": "ijlmo", "l": "kop",
    "z": "asx", "x": "cdsz", "c": "dfvx", "v": "bcfg", "b": "ghnv", "n": "bhjm", "m": "jkn",
}
"""Letter -> the keys around it on a US QWERTY keyboard: either side on its row and the
touching keys of the rows above and below."""

_CODE_CHARS = set("_.(/=@<>$")
_CODE_STARTS = ("-", ":", "!")


def _pick(rng: random.Random, n: int) -> int:
    """An index below n, from `random()` alone (see the module's docstring)."""
    return min(int(rng.random() * n), n - 1)


def _is_letter(char: str) -> bool:
    return "a" <= char.lower() <= "z"


def letters(word: str) -> int:
    """How many letters a-z (either case) the word has."""
    return sum(_is_letter(c) for c in word)


def looks_like_code(word: str) -> bool:
    """A token a reader copies rather than types: `lru_cache`, `json.dumps`, `--workers`,
    `HTTPException` (an inner capital), `name=setting`, `/usr/local`, `varchar(n)`,
    `<alias>@npm:<name>`, `:semver`, `python3` (letters and digits)."""
    if word.startswith(_CODE_STARTS) or _CODE_CHARS & set(word):
        return True
    if any(c.isdigit() for c in word) and letters(word):
        return True
    inner = [c for c in word if _is_letter(c)][1:]
    return any(c.isupper() for c in inner)


def slippable(word: str) -> bool:
    """Whether `slip_query` may slip this word: five letters or more, not code."""
    return letters(word) >= MIN_SLIP and not looks_like_code(word)


def _slips(word: str) -> dict[str, list[tuple[int, str]]]:
    """Every slip the word allows, by kind: (position, new word) pairs."""
    spots = [i for i, c in enumerate(word) if _is_letter(c)][1:]  # never the first letter
    if not spots:
        raise ValueError(f"{word!r} has no letter to slip but its first")
    case = {i: (str.upper if word[i].isupper() else str.lower) for i in spots}
    return {
        "swap": [(i, word[:i] + word[i + 1] + word[i] + word[i + 2:]) for i in spots
                 if i + 1 in case and word[i].lower() != word[i + 1].lower()],
        "drop": [(i, word[:i] + word[i + 1:]) for i in spots],
        "double": [(i, word[:i + 1] + word[i:]) for i in spots],
        "neighbour": [(i, word[:i] + case[i](key) + word[i + 1:])
                      for i in spots for key in NEIGHBOURS[word[i].lower()]],
    }


def slip_word(word: str, rng: random.Random) -> str:
    """One slip in the word, its kind and place drawn from rng: two neighbouring letters
    swapped, a letter dropped, a letter doubled, or a letter replaced by a neighbouring
    key. Never the first letter; only letters change, each keeping its case; the result
    differs from the word (also ignoring case). ValueError when the word has no letter
    but its first."""
    options = {kind: found for kind, found in _slips(word).items() if found}
    kinds = [kind for kind in KINDS if kind in options]
    kind = kinds[_pick(rng, len(kinds))]
    # A place first, then (for a neighbouring key) one of its keys, so a letter with
    # many neighbours is not likelier to slip.
    places = sorted({i for i, _ in options[kind]})
    place = places[_pick(rng, len(places))]
    found = [new for i, new in options[kind] if i == place]
    return found[_pick(rng, len(found))]


def slip_query(query: str, rng: random.Random, share: float = 0.5) -> str:
    """About `share` of the query's slippable words (five letters or more, not code)
    get one slip each, at least one when there is any; the spacing is kept. The count is
    `share * n` rounded up or down at random (so `share` on average), the words and
    slips drawn from rng."""
    if not 0 < share <= 1:
        raise ValueError(f"share must be in (0, 1], not {share}")
    tokens = re.split(r"(\s+)", query)
    eligible = [i for i in range(0, len(tokens), 2) if slippable(tokens[i])]
    if not eligible:
        return query
    count = min(len(eligible), max(1, int(share * len(eligible) + rng.random())))
    for n in range(count):  # the first `count` of a Fisher-Yates shuffle
        j = n + _pick(rng, len(eligible) - n)
        eligible[n], eligible[j] = eligible[j], eligible[n]
    for i in sorted(eligible[:count]):
        tokens[i] = slip_word(tokens[i], rng)
    return "".join(tokens)


def half_typed(query: str) -> str | None:
    """The query with its last word cut to its first half (`ceil(len / 2)` characters,
    at least 3), as typed so far; None when that word has fewer than 6 characters."""
    *head, word = re.split(r"(\s+)", query.rstrip())
    if len(word) < MIN_HALF:
        return None
    return "".join(head) + word[:max(3, math.ceil(len(word) / 2))]


def rng_for(query: str) -> random.Random:
    """The query's own generator: the same slips for it on every run."""
    return random.Random(f"{SEED}|{query}")


class Output(NamedTuple):
    """One generated file: its name, text, source queries and how many changed."""

    name: str
    text: str
    queries: int
    changed: int

    def summary(self) -> str:
        kept = self.queries - self.changed
        if self.name.endswith("-half.tsv"):
            return (f"{self.name}: {self.queries} queries, {self.changed} half-typed "
                    f"({kept} left out: last word under {MIN_HALF} characters)")
        return (f"{self.name}: {self.queries} queries, {self.changed} changed "
                f"({kept} kept as they are: no word to slip)")


def read_rows(path: Path) -> list[tuple[str, str]]:
    """(query, urls) of a relevance file; the urls as written."""
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            query, _, urls = line.partition("\t")
            rows.append((query, urls))
    return rows


def outputs(folder: Path = HERE) -> list[Output]:
    """What the script writes for the relevance files in folder, in name order."""
    found = []
    for path in sorted(folder.glob("*.tsv")):
        match = SOURCE.fullmatch(path.name)
        if not match:
            continue
        stem = path.name.removesuffix(".tsv")
        rows = read_rows(path)
        slipped = [(slip_query(query, rng_for(query)), urls) for query, urls in rows]
        found.append(Output(f"{stem}-slipped.tsv",
                            "".join(f"{q}\t{urls}\n" for q, urls in slipped), len(rows),
                            sum(new != old for (new, _), (old, _) in zip(slipped, rows))))
        half = [(cut, urls) for query, urls in rows if (cut := half_typed(query)) is not None]
        found.append(Output(f"{stem}-half.tsv", "".join(f"{q}\t{urls}\n" for q, urls in half),
                            len(rows), len(half)))
    return found


def stale(folder: Path = HERE) -> list[str]:
    """Generated files that differ from what the script would write, are missing, or
    have no source file any more."""
    expected = {out.name: out.text for out in outputs(folder)}
    wrong = [name for name, text in expected.items()
             if not (folder / name).is_file()
             or (folder / name).read_text(encoding="utf-8") != text]
    orphans = [p.name for p in sorted(folder.glob("*.tsv"))
               if GENERATED.fullmatch(p.name) and p.name not in expected]
    return wrong + orphans


def main(argv: list[str] | None = None) -> int:
    """Write the slipped and half-typed copies, or with --check compare them."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true",
                        help="write nothing; exit 1 when a committed file differs")
    parser.add_argument("--folder", type=Path, default=HERE, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.check:
        wrong = stale(args.folder)
        for name in wrong:
            print(f"{name}: differs from what slips.py writes (run it again)")
        if not wrong:
            print("every slipped and half-typed file is up to date")
        return 1 if wrong else 0
    for out in outputs(args.folder):
        (args.folder / out.name).write_text(out.text, encoding="utf-8", newline="\n")
        print(out.summary())
    return 0


if __name__ == "__main__":
    sys.exit(main())
