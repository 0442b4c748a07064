"""Search quality against judged queries: MRR@10, nDCG@10 and Recall@k, at page level.

Two query formats:

- a TSV file, one query a line: `query<TAB>expected URLs, space-separated`
  (blank lines and lines starting with `#` are skipped);
- a BEIR directory: `queries.jsonl`, `qrels/test.tsv` (or the only file in
  `qrels/`), graded relevance; a corpus doc id names a page by its URL with
  leading and trailing slashes removed (`tutorial/cookie-params/` is
  `tutorial/cookie-params`; the home page `""` is `index`).

Results are ranked sections; a page counts at the rank of its best section.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..files import MiB, UnsafeFileError, read_regular

CUTOFF = 10
QUERY_FILE_MAX_BYTES = 64 * MiB
DEPTH_PER_PAGE = 5  # sections fetched per page wanted, so that enough distinct pages come back


class QueryFileError(ValueError):
    """A query file cannot be read; the message names the file and line."""


@dataclass
class JudgedQuery:
    id: str
    text: str
    relevant: dict[str, int]
    """Page key -> graded relevance (1 for TSV files)."""


@dataclass
class QueryOutcome:
    query: JudgedQuery
    ranked: list[str]
    rr: float
    ndcg: float
    recall: float


@dataclass
class ModeReport:
    mode: str
    k: int
    queries: int
    mrr: float
    ndcg: float
    recall: float
    outcomes: list[QueryOutcome] = field(default_factory=list)

    @property
    def misses(self) -> list[QueryOutcome]:
        """Queries with no relevant page in the top k."""
        return [o for o in self.outcomes if o.recall == 0.0]

    def figures(self) -> dict:
        return {"mode": self.mode, "queries": self.queries, "mrr@10": round(self.mrr, 4),
                "ndcg@10": round(self.ndcg, 4), f"recall@{self.k}": round(self.recall, 4)}


def page_key(url: str) -> str:
    """The page a URL or doc id names: no anchor or query, no slashes at the ends."""
    url = url.split("#", 1)[0].split("?", 1)[0].strip()
    if url.startswith("./"):
        url = url[2:]
    if url.endswith("index.html"):
        url = url[: -len("index.html")]
    return url.strip("/") or "index"


def read_text(path: Path) -> str:
    """The file's text, or a QueryFileError naming the file and the first bad byte."""
    try:
        data = read_regular(path, max_bytes=QUERY_FILE_MAX_BYTES, follow_links=True)
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise QueryFileError(
            f"{path}:{line}: not UTF-8 text (byte 0x{exc.object[exc.start]:02x} at offset "
            f"{exc.start}); query files must be UTF-8: re-save it as UTF-8") from None
    except UnsafeFileError as exc:
        raise QueryFileError(f"{exc}: give a judged query file (a TSV file or a BEIR "
                             "folder)") from None
    except OSError as exc:
        raise QueryFileError(f"cannot read {path} ({exc.strerror or exc})") from None


def read_tsv(path: Path) -> list[JudgedQuery]:
    queries = []
    for number, line in enumerate(read_text(path).splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        text, sep, expected = line.partition("\t")
        urls = expected.split()
        if not sep or not text.strip() or not urls:
            raise QueryFileError(f"{path}:{number}: expected 'query<TAB>url url ...'")
        queries.append(JudgedQuery(id=str(number), text=text.strip(),
                                   relevant={page_key(u): 1 for u in urls}))
    return queries


def read_beir(folder: Path, split: str = "test") -> list[JudgedQuery]:
    qrels_dir = folder / "qrels"
    qrels_file = qrels_dir / f"{split}.tsv"
    if not qrels_file.is_file():
        found = sorted(qrels_dir.glob("*.tsv")) if qrels_dir.is_dir() else []
        if len(found) != 1:
            raise QueryFileError(f"{folder} is not a BEIR folder: no qrels/{split}.tsv")
        qrels_file = found[0]
    qrels: dict[str, dict[str, int]] = {}
    for number, line in enumerate(read_text(qrels_file).splitlines(), 1):
        cells = line.split("\t")
        if not line.strip() or (number == 1 and not cells[-1].strip().lstrip("-").isdigit()):
            continue  # blank, or the header row
        score = cells[-1].strip()
        if len(cells) < 3 or not score.lstrip("-").isdigit():
            raise QueryFileError(f"{qrels_file}:{number}: expected query-id<TAB>corpus-id"
                                 "<TAB>score, with a whole-number score")
        qid, did = cells[0], cells[-2]
        if int(score) > 0:
            qrels.setdefault(qid, {})[page_key(did)] = int(score)
    texts: dict[str, str] = {}
    queries_file = folder / "queries.jsonl"
    for number, line in enumerate(read_text(queries_file).splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            texts[str(row["_id"])] = str(row["text"])
        except (ValueError, KeyError, TypeError) as exc:
            raise QueryFileError(f"{queries_file}:{number}: expected a JSON object with "
                                 f"\"_id\" and \"text\" ({exc})") from None
    return [JudgedQuery(id=qid, text=texts[qid], relevant=rel)
            for qid, rel in qrels.items() if qid in texts]


def read_queries(path: Path) -> list[JudgedQuery]:
    """A BEIR folder or a TSV file."""
    try:
        queries = read_beir(path) if path.is_dir() else read_tsv(path)
    except OSError as exc:
        raise QueryFileError(f"cannot read {path} ({exc})") from exc
    if not queries:
        raise QueryFileError(f"{path} holds no judged queries")
    return queries


def ranked_pages(urls: Sequence[str]) -> list[str]:
    """Page keys in result order, each page once (at its best section)."""
    return list(dict.fromkeys(page_key(u) for u in urls))


def reciprocal_rank(ranked: list[str], relevant: dict[str, int], k: int = CUTOFF) -> float:
    return next((1.0 / (i + 1) for i, key in enumerate(ranked[:k]) if key in relevant), 0.0)


def ndcg(ranked: list[str], relevant: dict[str, int], k: int = CUTOFF) -> float:
    dcg = sum(relevant.get(key, 0) / math.log2(i + 2) for i, key in enumerate(ranked[:k]))
    ideal = sorted(relevant.values(), reverse=True)[:k]
    best = sum(r / math.log2(i + 2) for i, r in enumerate(ideal))
    return dcg / best if best else 0.0


def recall(ranked: list[str], relevant: dict[str, int], k: int) -> float:
    return len(set(ranked[:k]) & set(relevant)) / len(relevant) if relevant else 0.0


def evaluate(queries: list[JudgedQuery], search: Callable[[str, int], list[str]], *,
             mode: str, k: int = CUTOFF) -> ModeReport:
    """Run every query through `search(text, top_k) -> result urls` and score it."""
    depth = max(k, CUTOFF) * DEPTH_PER_PAGE
    outcomes = []
    for query in queries:
        ranked = ranked_pages(search(query.text, depth))
        outcomes.append(QueryOutcome(query=query, ranked=ranked,
                                     rr=reciprocal_rank(ranked, query.relevant),
                                     ndcg=ndcg(ranked, query.relevant),
                                     recall=recall(ranked, query.relevant, k)))
    n = len(outcomes) or 1
    return ModeReport(mode=mode, k=k, queries=len(outcomes),
                      mrr=sum(o.rr for o in outcomes) / n,
                      ndcg=sum(o.ndcg for o in outcomes) / n,
                      recall=sum(o.recall for o in outcomes) / n, outcomes=outcomes)


def unknown_pages(queries: list[JudgedQuery], urls: Sequence[str]) -> list[str]:
    """Expected pages that the bundle does not have (typos, or ids that are not URLs)."""
    known = {page_key(u) for u in urls}
    return sorted({key for q in queries for key in q.relevant if key not in known})
