"""A first query's word pieces: shards by key range against files named from the key.

The browser splits a query into tokens with the model's WordPiece vocabulary, fetched by
need (bundle/wordpieces.py). Format 7 read only shards of about 8 kB, each a range of
keys (a word's first two characters; `##` and each later character). Format 8 adds a
small file for every key of letters and digits, named from the key alone, and reads
those, the shards only for other keys (and in idle time, all of them).

On every set, in one run, from the same bundle: for each of the set's queries, the
gzip bytes and files of the pieces it reads with nothing cached, both ways (computed
from the bundle's files: format 7's reading is the shards of its keys), and, as a check
that the browser engine reads what is computed, the format-8 engine's own first query
(bench/query_rounds.mjs, a new engine for each query, no prefetch): its steps, its
pieces' bytes and all it sent; and its steps when it is told the pieces' hash, as a
built page tells it, and asks for its words' files before the catalog has come.

    python bench/keyed_pieces.py [--sets fastapi,mkdocs,manpages,npm,postgres,python]

Writes bench/results/keyed_pieces.{json,md}.
"""

from __future__ import annotations

import bisect
import gzip
import statistics
import sys
import tempfile
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import static_encoder as se  # noqa: E402
from catalog_lists import list_entries, read_catalog  # noqa: E402  (bench/catalog_lists.py)
from query_rounds import measure  # noqa: E402

from mkdocs_semantic.bundle.wordpieces import key_stem, keyed_name, word_keys  # noqa: E402
from mkdocs_semantic.model.onnx import OnnxEmbedder  # noqa: E402


def sent(path: Path) -> int:
    return len(gzip.compress(path.read_bytes(), compresslevel=6, mtime=0))


def run_set(corpus: se.Corpus, name: str, embedder: OnnxEmbedder) -> dict:
    from tokenizers import Tokenizer

    root = corpus.bundle.root
    static = read_catalog(root)["encoders"]["static"]
    pieces = static["pieces"]
    prefix = pieces["config"]["model"].get("continuing_subword_prefix") or ""
    entries = list_entries(root, pieces["shards"])
    firsts = [e[0] for e in entries]
    tokenizer = Tokenizer.from_file(str(root / static["tokenizer"][0]))
    queries = [q.text for q in corpus.queries]

    def reading(keys: set[str], keyed: bool) -> list[str]:
        names = set()
        for key in keys:
            stem = key_stem(key, prefix) if keyed else None
            if stem is not None:
                names.add(keyed_name(stem, pieces["keyed"]["hash"]))
            elif (at := bisect.bisect_right(firsts, key) - 1) >= 0:
                names.add(entries[at][1])
        return sorted(names)

    computed: dict[str, list] = {"format 7": [], "format 8": []}
    for text in queries:
        words = [w for w, _ in tokenizer.pre_tokenizer.pre_tokenize_str(
            tokenizer.normalizer.normalize_str(text))]
        old_keys = {w[:n] for w in words for n in (1, 2)} | \
            {prefix + c for w in words for c in w[1:]}
        new_keys = set().union(set(), *(word_keys(w, prefix) for w in words))
        for label, names in (("format 7", reading(old_keys, False)),
                             ("format 8", reading(new_keys, True))):
            computed[label].append((sum(sent(root / n) for n in names), len(names)))
    with tempfile.TemporaryDirectory() as tmp:
        query_file = Path(tmp) / "queries.txt"
        query_file.write_text("\n".join(q.replace("\n", " ") for q in queries) + "\n",
                              encoding="utf-8")
        run = measure(root, query_file, "off", ["--cold-each"])["queries"]
        told = measure(root, query_file, "off", ["--cold-each", "--page-pieces"])["queries"]
    out: dict = {"queries": len(queries), "chunks": len(corpus.bundle.chunks), "computed": {}}
    for label, rows in computed.items():
        out["computed"][label] = {"pieces_sent": statistics.median(r[0] for r in rows),
                                  "pieces_files": statistics.median(r[1] for r in rows)}
    out["engine"] = {
        "steps": statistics.median(q["rounds"] for q in run),
        "pieces_sent": statistics.median(q["kindSent"].get("pieces", 0) for q in run),
        "pieces_files": statistics.median(q["kinds"].get("pieces", 0) for q in run),
        "sent": statistics.median(q["sent"] for q in run),
        "agrees": sum(abs(q["kindSent"].get("pieces", 0) - new[0]) <= 0.01 * new[0]
                      for q, new in zip(run, computed["format 8"], strict=True)),
    }
    out["told"] = {"steps": statistics.median(q["rounds"] for q in told),
                   "steps_by_count": dict(sorted(Counter(q["rounds"] for q in told).items())),
                   "steps_as_built": dict(sorted(Counter(q["rounds"] for q in run).items())),
                   "sent": statistics.median(q["sent"] for q in told)}
    return out


def render(results: dict) -> str:
    lines = ["# A first query's word pieces: shards by key range, or files named from the key",
             "", f"Reproduce: `python bench/keyed_pieces.py`. Measured {results['run']}. "
             "Medians over each set's queries, each read with nothing cached; bytes as gzip "
             "sends them. Computed from the same bundle both ways; the engine's figures are "
             "its own first queries (a new engine each, no prefetch), of format 8.", "",
             "| set | chunks | queries | pieces, format 7: kB (files) | pieces, format 8: "
             "kB (files) | engine: pieces kB (files) | engine: steps | engine: all sent kB | "
             "queries where the engine read what is computed (within 1 %) |",
             "|---|---|---|---|---|---|---|---|---|"]
    told = ["", "The engine told the pieces' hash, as a built page tells it (a first query "
            "then asks for its words' files before the catalog has come): steps of each "
            "first query, median (queries by steps), against the engine that waits for the "
            "catalog to name them; all it sent, median.", "",
            "| set | waits for the catalog | told the hash | sent, told the hash |",
            "|---|---|---|---|"]
    for name, s in results["sets"].items():
        old, new, eng = s["computed"]["format 7"], s["computed"]["format 8"], s["engine"]
        lines.append(
            f"| {name} | {s['chunks']:,} | {s['queries']} | {old['pieces_sent'] / 1000:.1f} "
            f"({old['pieces_files']:g}) | {new['pieces_sent'] / 1000:.1f} "
            f"({new['pieces_files']:g}) | {eng['pieces_sent'] / 1000:.1f} "
            f"({eng['pieces_files']:g}) | {eng['steps']:g} | {eng['sent'] / 1000:.0f} | "
            f"{eng['agrees']} of {s['queries']} |")
        t = s["told"]
        by = lambda counts: ", ".join(f"{k}: {n}" for k, n in counts.items())  # noqa: E731
        told.append(f"| {name} | {eng['steps']:g} ({by(t['steps_as_built'])}) | "
                    f"{t['steps']:g} ({by(t['steps_by_count'])}) | {t['sent'] / 1000:.0f} kB |")
    return "\n".join(lines + told) + "\n"


def main() -> int:
    return se.run_trial(__doc__, "keyed_pieces",
                        "fastapi,mkdocs,manpages,npm,postgres,python", run_set, render)


if __name__ == "__main__":
    raise SystemExit(main())
