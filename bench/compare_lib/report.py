"""compare.json -> compare.md: the tables, the notes and the analysis, all from one run."""

from __future__ import annotations

SYSTEMS = ("material", "pagefind", "plugin")
X = "\u00d7"  # the multiplication sign of ratios
LABEL = {"material": "Material (lunr)", "pagefind": "Pagefind", "plugin": "this plugin",
         "pagefind-network": "Pagefind on a reader's network",
         "plugin-network": "this plugin on a reader's network"}
QUALITY_ROWS = (
    ("material-browser", "Material's search (lunr), its search box in Chromium"),
    ("pagefind-browser", "Pagefind, its browser API in Chromium"),
    ("plugin-lexical", "this plugin, lexical (Python reference searcher)"),
    ("plugin-vector", "this plugin, vector (Python reference searcher, shipped query encoder)"),
    ("plugin-hybrid", "this plugin, hybrid (Python reference searcher, shipped query encoder)"),
    ("plugin-browser", "this plugin's browser client in Chromium, as shipped"),
    ("plugin-vector-transformer", "this plugin, vector, queries embedded by the transformer "
     "(Python; not what a static site ships)"),
    ("plugin-hybrid-transformer", "this plugin, hybrid, queries embedded by the transformer "
     "(Python; not what a static site ships)"),
)
# What the plugin's browser client fetched, by kind: the kind of file a URL under the
# bundle folder is (its payload folder, and in vectors/ the file's role; the client; the
# manifest and catalog). Order: the order of the report's tables.
PARTS = {"catalog": "manifest and catalog", "pages": "page table", "tokenizer": "tokenizer",
         "pieces": "tokenizer vocabulary, by need", "words": "query table rows by word",
         "table": "query table", "lexical": "lexical index", "fragments": "fragments",
         "index": "index directories", "vector_index": "vector index",
         "vector_bits": "vector bits", "vector_rows": "vector rows",
         "vectors": "vectors (exact layout)", "facets": "facets", "client": "client code",
         "wasm": "WebAssembly runtime", "model": "model", "centroids": "centroids",
         "text": "text", "other": "other files"}
VECTOR_FILES = {"ivf": "vector_index", "bin": "vector_bits", "row": "vector_rows",
                "vec": "vectors", "cent": "centroids"}
# Issue 10's "Done when" targets.
TARGET_FIRST_BYTES = 1_500_000
TARGET_WARM_P95_MS = 25.0
TARGET_WARM_SCALE = "16"
TARGET_MRR_GAP = 0.01
TARGET_RECALL = 0.98


COST_COLUMNS = ("system", "build time added to plain `mkdocs build`", "bytes added to site/",
                "bytes sent at page load", "first result, cold: bytes sent; time",
                "warm p50 / p95")
SCALE_COLUMNS = ("scale", "pages", "chunks", "plain build", "system", "build time added",
                 "bytes added to site/", "search bytes sent for the first query",
                 "first result, cold", f"warm p50 / p95 (p50 {X} Material)",
                 "files per warm query: mean (max)")
DONE_COLUMNS = ("scale", "chunks", "vector layout as shipped",
                "first semantic result: bytes sent", "warm p50 / p95",
                "files per warm query: p50 / mean / max",
                "ms a warm query had a fetch in flight: p50 / p95",
                "hybrid page MRR@10: as shipped / exact (gap)",
                "vector recall@10, tie-aware (min)", "load average, plugin's browser run")
WARM_COLUMNS = ("scale", "queries that fetched", "their p50 / p95", "the others' p50 / p95",
                "the same queries again: p50 / p95 (files fetched)",
                "ms in flight, fetching queries: p50 / p95",
                "fetch rounds, fetching queries: p50 / max", "bytes sent per query: mean",
                "warm pass, bytes sent")
LAYOUT_COLUMNS = ("scale", "layout as shipped", "MRR@10 paraphrase: shipped / exact",
                  "exact-phrase queries", "all", "vector recall@10", "overlap@10",
                  "distinct scores in the exact top 10: median (min)", "probe (median)",
                  "queries embedded differently / chunks scored differently")


def header(columns: tuple[str, ...]) -> str:
    return "| " + " | ".join(columns) + " |\n|" + "---|" * len(columns)


def mb(n: float | None) -> str:
    if n is None:
        return "-"
    if abs(n) < 1e6:
        return f"{n / 1e3:,.0f} kB"
    return f"{n / 1e6:,.1f} MB"


def sec(x: float | None) -> str:
    return "-" if x is None else f"{x:,.1f} s"


def ms(x: float | None) -> str:
    if x is None:
        return "-"
    return f"{x:,.0f} ms" if x >= 10 else f"{x:,.1f} ms"


def times(x: float | None, base: float | None) -> str:
    if x is None or not base or base <= 0:
        return "-"
    r = x / base
    if r < 0.095:
        return f"{X}{r:.2f}"
    return f"{X}{r:,.1f}" if r < 100 else f"{X}{r:,.0f}"


def seconds(record: dict, name: str) -> float | None:
    build = record["builds"].get(name)
    return build["seconds"] if build and build["ok"] else None


def first_search_bytes(b: dict) -> int | None:
    """Bytes sent (gzip as GitHub Pages) for a first search: the search files of page load,
    then the query's."""
    if "cold_sent_bytes" not in b:
        return None
    return b["load_search_sent_bytes"] + b["cold_sent_bytes"]


def costs(record: dict) -> dict:
    """Per system: build seconds added to the plain build, bytes added to site/, browser."""
    plain = seconds(record, "plain")
    nosearch = seconds(record, "nosearch")
    sizes = record["sizes"]
    out = {}
    out["material"] = {
        "build_added": (plain - nosearch) if plain and nosearch else None,
        "bytes_added": sizes["plain"] - sizes["nosearch"],
    }
    out["pagefind"] = {"build_added": seconds(record, "pagefind"),
                       "bytes_added": sizes["pagefind_dir"]}
    semantic = seconds(record, "semantic")
    out["plugin"] = {
        "build_added": semantic - plain if semantic and plain else None,
        "bytes_added": sizes["semantic"] - sizes["plain"] if "semantic" in sizes else None,
    }
    first = seconds(record, "semantic_first")
    if first and plain:
        out["plugin"]["first_build_added"] = first - plain
    for name in SYSTEMS:
        out[name]["browser"] = record["browser"].get(name, {})
    return out


def embed_rate(scale1: dict) -> float | None:
    """Seconds per embedded chunk at 1x: (first build - rebuild with cached vectors) / embedded."""
    first, again = seconds(scale1, "semantic_first"), seconds(scale1, "semantic")
    embedded = scale1["builds"].get("semantic_first", {}).get("facts", {}).get("embedded")
    if not (first and again and embedded):
        return None
    return (first - again) / embedded


def first_build(one: dict) -> str:
    """'first build' or, when the cache was not empty, what that first build really was."""
    facts = one["builds"].get("semantic_first", {}).get("facts", {})
    if facts.get("embedded", 1) == 0:
        return (f"first build with a seeded embedding cache (0 of {facts.get('chunks', '?')} "
                "chunks embedded: not a cold build)")
    return "first build"


def cold_start(out: dict) -> str:
    """How the run's embedding cache started (run.py records it)."""
    start = out.get("embedding_cache_at_start")
    if not start:
        return "starts from an empty embedding cache"
    return (f"starts from an embedding cache seeded before the run ({mb(start['bytes'])} of "
            "vectors from an earlier build of the same corpus), so it embeds only what that "
            "cache lacks")


def fit(record: dict, build: str) -> str:
    """Whether a plugin build fitted its query table (run.py's semantic_build fact)."""
    fitted = record["builds"].get(build, {}).get("facts", {}).get("query_table_fitted")
    return {True: ", query table fitted", False: ", query table from cache"}.get(fitted, "")


def build_lever(one: dict) -> str:
    """The next lever for build time: embedding, or the query table fit when nothing
    was embedded and only the first build fitted the table."""
    facts = {k: one["builds"].get(k, {}).get("facts", {}) for k in ("semantic_first", "semantic")}
    first, again = seconds(one, "semantic_first"), seconds(one, "semantic")
    if (facts["semantic_first"].get("embedded") == 0 and first and again
            and facts["semantic_first"].get("query_table_fitted")
            and facts["semantic"].get("query_table_fitted") is False):
        return (f"with no chunk to embed, the first build's extra {sec(first - again)} over the "
                "cached rebuild is mostly the query table fit, which runs again whenever any "
                "chunk changes (its cache key covers every chunk), so a one-page edit pays it "
                "too: refit only when enough text changed, or fit faster; a cold first build "
                "also embeds every chunk, heading line and sentence (not measured in this run)")
    return ("embedding is the cost: keep `cache_dir` between CI runs (the cached rebuild is "
            "the second figure), and embed on more threads or with a smaller model")


def shared_note(scales: dict) -> str:
    """What the copies do to the plugin's vector bytes: the partitioned layout puts
    identical copies of a vector in the same partition, so a query's candidates are fewer
    distinct vectors in fewer rows files than on a site without repeated pages."""
    lines = []
    for key, record in scales.items():
        probe = record.get("layouts", {}).get("vector", {}).get("probe", {})
        if key == "1" or not probe:
            continue
        lines.append(f"at {key}x a query's {probe['candidates']['p50']:.0f} candidates were "
                     f"{probe['distinct_candidate_vectors']['p50']:.0f} distinct vectors "
                     f"(median) in {probe['row_files']['p50']:.0f} rows files (median; max "
                     f"{probe['row_files']['max']:.0f})")
    if not lines:
        return ""
    return ("\n\nOne more effect of the copies on the plugin's vector bytes: identical "
            "vectors land in the same partition, which stores each distinct vector once, "
            "so a query's bits and rows files hold fewer rows than on "
            "a site of distinct chunks, and its candidates (distinct rows) spread over "
            "more partitions: " + "; ".join(lines) + ". The index depends on chunk counts "
            "only and is what a site of that many distinct chunks would read; the sign "
            "bits and rows are not: on distinct vectors each bits file holds about 64 rows "
            "of sign bits and each rows file a block of about 2 rows of 384 bytes. The "
            "vector-bits "
            "and vector-rows figures at 4x and above are therefore lower than a site "
            "without repeated pages would fetch (bench/vector_layout.py measures distinct "
            "vectors).")


def render(out: dict) -> str:
    m = out["machine"]
    scales = out["scales"]
    one = scales["1"]
    c1 = costs(one)
    client = out["client"]
    client_line = (f"browser client built (hash `{client['hash']}`)" if client["present"] else
                   f"**browser client not built**: {client['reason']}")
    start, end = out.get("load_average_at_start"), out.get("load_average_at_end")
    loads = (f" Load averages (1, 5, 15 minutes) {_loads(start)} when it began and "
             f"{_loads(end)} when it ended: the machine is shared, and every ms figure "
             "grows with its load (each browser run's load is in compare.json)."
             if start and end else "")
    options = " ".join(
        ([f"--scales {','.join(scales)}"] if list(scales) != ["1", "4", "16", "64"] else [])
        + ([f"--pause-ms {out['warm_pause_ms']}"] if out.get("warm_pause_ms") else []))
    command = f"bench/compare {options}" if options else "bench/compare"
    parts = [f"""# Compared with Material's search (lunr) and Pagefind

Reproduce: `{command}` (one command: it installs what it needs, builds, measures
and rewrites this file, compare.json and compare.png). This run: {out['generated']},
{out['seconds'] / 60:.1f} minutes on {m['cores']} cores; {m['chromium']}, Node {m['node']},
Python {m['python']}; mkdocs {m['mkdocs']}, mkdocs-material {m['mkdocs-material']},
Pagefind {m['pagefind']} (npm), playwright-core {m['playwright-core']},
mkdocs-semantic-search {m['mkdocs-semantic-search']}, {client_line}.{loads}

Every figure below is this run's figure; none is copied. Times depend on the
machine, so each is also given as a ratio to a baseline of the same run: build
times to the plain `mkdocs build` (the corpus as it is, `plugins: [search]`) of the
same site, browser times to Material's figure for the same site. {protocol_line(out)}
"""]
    parts.append(done_section(out))
    parts.append(quality_section(out, one))
    parts.append(cost_section(out, one, c1))
    parts.append(scale_section(out))
    parts.append(network_section(out))
    parts.append(analysis(out, one, c1))
    parts.append(method_section(out, one))
    return "\n".join(parts)


def _loads(values: list[float] | None) -> str:
    return "-" if not values else " / ".join(f"{v:.2f}" for v in values)


def warm_count(scales: dict) -> int:
    for record in scales.values():
        for b in record["browser"].values():
            if "warm_queries" in b:
                return b["warm_queries"]
    return 0


def served_versions(out: dict) -> dict[str, int]:
    """Responses by HTTP version over every browser run of the run."""
    total: dict[str, int] = {}
    for record in out["scales"].values():
        for b in record["browser"].values():
            for version, n in b.get("http_versions", {}).items():
                total[version] = total.get(version, 0) + n
    return total


def protocol_line(out: dict) -> str:
    """What the bench's server spoke to Chromium, for every system alike."""
    served = {r.get("protocol", {}).get("served") for r in out["scales"].values()}
    versions = served_versions(out)
    count = sum(versions.values())
    tally = ", ".join(f"{n:,} HTTP/{v}" for v, n in sorted(versions.items()))
    if served == {"h2"}:
        return (f"Every system is served alike over HTTP/2 (as GitHub Pages serves), over TLS "
                "with a certificate the bench makes at run time, which Chromium trusts by "
                f"its key hash for that run only; responses: {tally} of {count:,}.")
    why = "; ".join(sorted({r.get("protocol", {}).get("why", "asked for")
                            for r in out["scales"].values()}))
    return (f"Every system is served alike over HTTP/1.1 ({why}): Chromium opens at most six "
            f"connections to the host, where GitHub Pages serves HTTP/2; responses: {tally}.")


def _met(ok: bool | None) -> str:
    return "-" if ok is None else ("yes" if ok else "**no**")


def done_section(out: dict) -> str:
    """Issue 10's "Done when", each figure from this run, scale by scale."""
    scales = out["scales"]
    rows, kinds_rows, warm_rows, layout_rows, cold_cells = [], [], [], [], []
    same: list[str] = []
    checks: dict[str, list] = {"bytes": [], "warm": [], "mrr": [], "recall": []}
    kinds: dict[str, dict[str, list[int]]] = {}
    for key, record in scales.items():
        b = record["browser"].get("plugin", {})
        lay = record.get("layouts", {})
        parts = record["sizes"].get("semantic_parts", {})
        vec = parts.get("vectors", {})
        layout = vec.get("layout", "-")
        if layout == "partitioned":
            layout += f", {vec['partitions']:,} partitions"
        first = first_search_bytes(b)
        if first is not None:
            checks["bytes"].append((key, first <= TARGET_FIRST_BYTES))
            cold_cells.append(f"{key}x {ms(b['cold_ms'])} ({b['cold_requests']} files, "
                              f"{ms(b.get('cold_fetch_ms'))} with a file in flight, "
                              f"{b.get('cold_fetch_rounds', '?')} rounds)")
            kinds[key] = fetched_parts(b.get("load_search_files", []) + b.get("cold_files", []))
        warm = (f"{ms(b['warm_p50_ms'])} / {ms(b['warm_p95_ms'])}" if "warm_p95_ms" in b
                else "not measured")
        if key == TARGET_WARM_SCALE and "warm_p95_ms" in b:
            checks["warm"].append((key, b["warm_p95_ms"] <= TARGET_WARM_P95_MS))
        wf = b.get("warm_fetches", {})
        files = (f"{wf['files']['p50']:.0f} / {wf['files']['mean']:.1f} / {wf['files']['max']:.0f}"
                 if wf.get("files") else "-")
        flight = (f"{ms(wf['fetch_ms']['p50'])} / {ms(wf['fetch_ms']['p95'])}"
                  if wf.get("fetch_ms") else "-")
        mrr = recall = "not measured"
        if "auto" in lay:
            a, e = lay["auto"]["all"]["mrr@10"], lay["exact"]["all"]["mrr@10"]
            checks["mrr"].append((key, abs(a - e) <= TARGET_MRR_GAP + 1e-9))
            mrr = f"{a:.3f} / {e:.3f} ({a - e:+.3f})"
            r = lay["vector"]["recall@10"]
            if r is not None:
                checks["recall"].append((key, r >= TARGET_RECALL))
                recall = f"{r:.3f} (min {lay['vector']['min']:.1f})"
        load = _loads((b.get("load_average") or [None])[:1]) if b.get("load_average") else "-"
        rows.append(f"| {key}x | {record.get('chunks', 0):,} | {layout} | {mb2(first)} | "
                    f"{warm} | {files} | {flight} | {mrr} | {recall} | {load} |")
        if wf.get("ms_fetching"):
            nf = wf.get("ms_not_fetching") or {}
            warm_rows.append(
                f"| {key}x | {wf['queries_fetching']} of {b['warm_queries']} | "
                f"{ms(wf['ms_fetching']['p50'])} / {ms(wf['ms_fetching']['p95'])} | "
                f"{ms(nf.get('p50'))} / {ms(nf.get('p95'))} | {repeat_cell(b)} | "
                f"{ms(wf['fetch_ms_of_fetching']['p50'])} / "
                f"{ms(wf['fetch_ms_of_fetching']['p95'])} | "
                f"{wf['rounds_of_fetching']['p50']:.0f} / {wf['rounds_of_fetching']['max']:.0f} | "
                f"{mb(wf['sent_bytes']['mean'])} | {mb(b.get('warm_sent_bytes'))} |")
        if "auto" in lay and lay["layout"]["auto"] == "exact":
            same.append(f"{key}x")
        if "auto" in lay:
            v = lay["vector"]
            probe = v.get("probe") or {}
            probe_cell = (f"{probe['partitions_probed']['p50']:.0f} partitions "
                          f"({probe['rows_probed']['p50']:,.0f} rows); "
                          f"{probe['row_files']['p50']:.0f} rows files (max "
                          f"{probe['row_files']['max']:.0f}); "
                          f"{probe['distinct_candidate_vectors']['p50']:.0f} distinct"
                          if probe else "exact: every row")
            cells = " | ".join(f"{lay['auto'][n]['mrr@10']:.3f} / {lay['exact'][n]['mrr@10']:.3f}"
                               for n in ("paraphrase", "exact", "all"))
            layout_rows.append(
                f"| {key}x | {lay['layout']['auto']} | {cells} | "
                f"{v['recall@10']:.3f} ({v['below_1']} below 1) | {v['overlap@10']:.3f} | "
                f"{distinct_cell(v)} | {probe_cell} | "
                f"{v['query_codes_differ']} / {v['chunk_scores_differ']} |")
    for kind in PARTS:
        if any(kind in k for k in kinds.values()):
            cells = []
            for key in scales:
                got = kinds.get(key, {}).get(kind)
                cells.append(f"{mb(got[0])} ({got[1]:,})" if got else "-")
            kinds_rows.append(f"| {PARTS[kind]} | " + " | ".join(cells) + " |")
    totals = " | ".join(mb(sum(v[0] for v in kinds.get(k, {}).values())) for k in scales)

    def verdict(name: str, what: str) -> str:
        got = checks[name]
        if not got:
            return f"- {what}: not measured."
        bad = [f"{k}x" for k, ok in got if not ok]
        return (f"- {what}: {_met(not bad)}" + (f" (missed at {', '.join(bad)})" if bad else "")
                + f", measured at {', '.join(f'{k}x' for k, _ in got)}.")

    has_64 = "64" in scales
    keys = list(scales)
    kinds_header = "| kind | " + " | ".join(f"{k}x" for k in keys) + " |\n|" + \
        "---|" * (len(keys) + 1)
    return f"""## Issue 10's "Done when" (this run's figures)

{verdict("bytes", f"bytes sent for the first semantic result ≤ {mb(TARGET_FIRST_BYTES)} at "
                  "every scale")}
{verdict("warm", f"warm p95 ≤ {TARGET_WARM_P95_MS:.0f} ms at {TARGET_WARM_SCALE}x")}
{verdict("mrr", f"hybrid page MRR@10 of the plugin as shipped within {TARGET_MRR_GAP} of the "
                "exact layout's at every scale")}
{verdict("recall", f"vector recall@10 of the partitioned layout against the exact one ≥ "
                   f"{TARGET_RECALL} at every scale")}
- a 64x point: {_met(has_64)}.

{header(DONE_COLUMNS)}
{chr(10).join(rows)}

First semantic result: the home page loaded, then the first query through the client's
API (`init()`, `search()`) in a fresh profile; the bytes are the plugin's files of page
load and every file fetched until the results came, as sent (gzip for json, js, css,
html and svg; .bin and .i8 payloads as they are). Time to it (loopback, so no network
latency): {'; '.join(cold_cells) or 'not measured'}. By kind, bytes sent (files):

{kinds_header}
{chr(10).join(kinds_rows)}
| total | {totals} |

Warm queries (the plugin): each of the {warm_count(scales)} queries may fetch the shards
it needs that no query before it needed (query-table rows for new tokens, keyword
shards for new terms, sign bits and rows of partitions not yet read, fragments of
pages not yet shown). Latency of the queries that fetched against those that did not,
of the same queries run again after that pass (every file each needs already fetched: the
engine's own time), how long a fetching query had at least one file in flight, and in how
many rounds
(stretches with a file in flight, separated by stretches with none: the client asks
for the next files after the last ones came; on a real network each round costs at
least one round trip, which the loopback server here does not):

{header(WARM_COLUMNS)}
{chr(10).join(warm_rows)}

{fetch_floor(out)}

The two layouts, side by side, scored by the Python reference searcher
(`mkdocs_semantic.search.Searcher`, hybrid, queries embedded by the shipped static
encoder) on the {sum(out['queries'].values())} queries of bench/relevance/fastapi-*.tsv. At 4x
and above a copy of a relevant page (`vN/<path>`) counts as relevant too, else the copies of the
top page would crowd the list. Recall@10: each query's 10 best chunks by the
partitioned layout's scores (`Searcher.scores`, NaN: not scored; ties by chunk
number) against the exact layout's 10 best; a partitioned result counts as a hit
when its exact score is at least the exact 10th score, because identical copies tie
and either copy is as right ("overlap" is the plain share of the same chunk numbers).
With N identical copies of every vector the exact top 10 holds about 10 / N distinct
vectors (the "distinct scores" column), so at 16x and 64x recall@10 asks whether the
query's best one or two distinct vectors are found: a weaker test than on a site of
distinct chunks. The 4,096 chunks a query probes are 4,096 / N distinct vectors;
its 100 candidates are distinct stored rows (a partition stores each distinct vector
once), up to 100 distinct vectors.
Probe: per query (median), the partitions whose sign bits it read, the rows files (row
blocks) it read for its candidates, and how many distinct vectors those candidates were.

{header(LAYOUT_COLUMNS)}
{chr(10).join(layout_rows)}
{same_note(same)}"""


def repeat_cell(b: dict) -> str:
    """The warm queries run again, every file each needs already fetched."""
    if "repeat_p95_ms" not in b:
        return "not measured"
    return f"{ms(b['repeat_p50_ms'])} / {ms(b['repeat_p95_ms'])} ({b['repeat_files']})"


def files_within(cost: dict, target_ms: float, rounds: int) -> int:
    """How many never-fetched files a query may ask for in `rounds` rounds and still
    answer within `target_ms`, at what a request costs (fetch_cost.mjs's figures)."""
    per_file, trip = cost["perFile"], cost["sequentialMedian"]
    return max(0, int((target_ms - rounds * trip) // per_file)) if per_file > 0 else 0


def fetch_floor(out: dict) -> str:
    """What a request costs this run's Chromium, and what that leaves a warm query."""
    cost = out.get("fetch_cost") or {}
    if "perFile" not in cost:
        why = cost.get("failed", "not measured in this run")
        return f"What a request costs this Chromium: {why}."
    per_file, trip = cost["perFile"], cost["sequentialMedian"]
    fits = []
    for key, record in out["scales"].items():
        model = record["browser"].get("plugin", {}).get("warm_fetches", {}).get("model")
        if model:
            fits.append(f"{key}x {model['fixed_ms']:.1f} ms + {model['per_file_ms']:.2f} ms a "
                        f"file (rms error {model['residual_ms']:.1f} ms)")
    budget = files_within(cost, TARGET_WARM_P95_MS, 2)
    target = out["scales"].get(TARGET_WARM_SCALE, {}).get("browser", {}).get("plugin", {})
    files = target.get("warm_fetches", {}).get("files", {})
    seen = (f" At {TARGET_WARM_SCALE}x the warm queries fetched {files['p50']:.0f} files at the "
            f"median and {files['p95']:.0f} at the 95th percentile." if files else "")
    return f"""What a request costs here, apart from any search engine
(bench/compare_lib/fetch_cost.mjs, in this run: a bare Web Worker in a fresh profile
fetching {cost['fileBytes']:,}-byte files it never fetched, {cost['profiles']} times, from the
same server): each file added
{per_file:.1f} ms to a batch ({', '.join(f"{b['n']} at once {ms(b['median'])}"
                                       for b in cost['batches'])}), and a request made
after the one before it answered took {trip:.1f} ms. The plugin's warm queries, fitted
the same way over this run's queries (least squares, ms = fixed + per file x files):
{'; '.join(fits) or 'not measured'}. So a query that must fetch cannot
answer within {TARGET_WARM_P95_MS:.0f} ms here unless it fetches about {budget} files or
fewer in 2 rounds, whatever the engine does with them.{seen}"""


def distinct_cell(v: dict) -> str:
    d = v.get("distinct_in_exact_top10")
    return f"{d['p50']:.0f} ({d['min']:.0f})" if d and "min" in d else "-"


def same_note(scales: list[str]) -> str:
    """Where `vector_layout: auto` chose the exact layout, the two builds are one layout."""
    if not scales:
        return ""
    return (f"\nAt {', '.join(scales)} the site has fewer chunks than the partitioned layout "
            "starts at (4,096), so the plugin as shipped is the exact layout too and the two "
            "columns agree by construction.\n")


def mb2(n: float | None) -> str:
    """Megabytes with two decimals (the 1.5 MB target needs them)."""
    return "-" if n is None else f"{n / 1e6:.2f} MB"


def quality_section(out: dict, one: dict) -> str:
    q = one.get("quality", {})
    rows = []
    for key, label in QUALITY_ROWS:
        r = q.get(key)
        if r is None:
            why = "not measured: the browser client is not built" if key == "plugin-browser" \
                else "not measured"
            rows.append(f"| {label} | {why} | | | | | |")
            continue
        cells = []
        for name in ("paraphrase", "exact", "all"):
            cells += [f"{r[name]['mrr@10']:.3f}", f"{r[name]['recall@5']:.3f}"]
        rows.append(f"| {label} | " + " | ".join(cells) + " |")
    zero = {n: one["browser"].get(n, {}).get("warm_zero_result_queries") for n in SYSTEMS}
    agree = q.get("client_agreement_top10")
    agree_line = ""
    if agree:
        agree_line = (
            f"\nThe browser client's top 10 pages equal the Python searcher's on "
            f"{agree['hybrid']}/{agree['queries']} queries in hybrid mode, {agree['vector']} in "
            f"vector mode, {agree['lexical']} in lexical mode and {agree['nearest']} for plain "
            "nearest sections (`Searcher.search_vector`, no page-aware fusion), so the client "
            f"ranks as {client_ranking(q)}.")
    total = sum(out["queries"].values())
    return f"""## Quality on fastapi-docs

{total} queries from bench/relevance/ ({out['queries']['paraphrase']} paraphrases that avoid
the target page's words, {out['queries']['exact']} identifiers and exact phrases), every
system on the same queries,
scored by bench/relevance.py (page level: a page counts at its first section).
Material: each query typed into its real search box, result links read in order.
Pagefind: `pagefind.search()`, then `data()` of the top 10 for their URLs.

| system | paraphrase MRR@10 | paraphrase R@5 | exact MRR@10 | exact R@5 | all MRR@10 | all R@5 |
|---|---|---|---|---|---|---|
{chr(10).join(rows)}

Queries with no result at all: Material {_n(zero['material'])}, Pagefind {_n(zero['pagefind'])},
the plugin's client {_n(zero['plugin'])} of {sum(out['queries'].values())}.{agree_line}
"""


RANKING_NAMES = {"hybrid": "the hybrid mode", "vector": "the vector mode",
                 "lexical": "the lexical mode", "nearest": "plain nearest sections"}


def client_ranking(q: dict) -> str:
    """Which Python ranking the browser client reproduced in this run."""
    agree = q.get("client_agreement_top10")
    if not agree:
        return "unknown (not measured)"
    best = max(RANKING_NAMES, key=lambda k: agree[k])
    if agree[best] == agree["queries"]:
        return RANKING_NAMES[best] + " does, on every query"
    return f"{RANKING_NAMES[best]} does on {agree[best]} of {agree['queries']} queries only"


def client_is_hybrid(q: dict) -> bool:
    agree = q.get("client_agreement_top10")
    return bool(agree) and agree["hybrid"] == agree["queries"]


def _n(x) -> str:
    return "-" if x is None else str(x)


def cost_section(out: dict, one: dict, c1: dict) -> str:
    plain = seconds(one, "plain")
    mat = c1["material"]["browser"]
    rows = []
    for name in SYSTEMS:
        c = c1[name]
        b = c["browser"]
        if name == "material":
            build = f"baseline (its search plugin: {plugin_cost(c['build_added'], plain)})"
        elif name == "pagefind":
            build = f"{sec(c['build_added'])} ({times(c['build_added'], plain)}): the CLI"
        else:
            first = c.get("first_build_added")
            build = (f"{first_build(one)}{fit(one, 'semantic_first')} {sec(first)} "
                     f"({times(first, plain)}); vectors cached{fit(one, 'semantic')} "
                     f"{sec(c['build_added'])} ({times(c['build_added'], plain)})")
        added = mb(c["bytes_added"])
        if name == "plugin" and "semantic_parts" in one["sizes"]:
            added += f" ({site_parts(one['sizes']['semantic_parts'])})"
        elif name == "material":
            added += f" (search/ {mb(one['sizes']['material_search_dir'])})"
        elif name == "pagefind":
            added += " (pagefind/, UI files included)"
        if "cold_ms" in b:
            load = (f"{mb(b['load_sent_bytes'])} ({mb(b['load_search_sent_bytes'])} search); "
                    f"files {mb(b['load_bytes'])}")
            cold = (f"{mb(b['cold_sent_bytes'])} (files {mb(b['cold_bytes'])}); "
                    f"{ms(b['cold_ms'])} ({times(b['cold_ms'], mat.get('cold_ms'))})")
            warm = (f"{ms(b['warm_p50_ms'])} / {ms(b['warm_p95_ms'])} "
                    f"({times(b['warm_p50_ms'], mat.get('warm_p50_ms'))} / "
                    f"{times(b['warm_p95_ms'], mat.get('warm_p95_ms'))})")
        else:
            why = b.get("absent") or b.get("failed") or "not measured"
            load = cold = warm = f"not measured: {why}"
        rows.append(f"| {LABEL[name]} | {build} | {added} | {load} | {cold} | {warm} |")
    pb = c1["plugin"]["browser"]
    note = ""
    if "cold_ms" in pb:
        note = ("\nThe plugin's three modes share one browser client, so they share its browser "
                "figures; the client's ranking is the browser row of the quality table.")
        parts = one["sizes"].get("semantic_parts")
        note += (f"\nThe plugin's first query fetched (cold): "
                 f"{fetched_line(pb.get('cold_files', []), parts)}")
        fetched = fetched_parts(pb.get("cold_files", []))
        note += " (n of m: n files fetched of the bundle's m of that kind)"
        if parts and "query_encoder" in parts:
            note += f"; the site's query encoder is `{parts['query_encoder']}`"
            if "model" not in fetched and "wasm" not in fetched:
                note += ", so no model and no WebAssembly runtime was fetched"
        note += (f". The warm pass after it (one untimed query, then the "
                 f"{pb.get('warm_queries', 0)}) fetched "
                 f"{mb(pb.get('warm_sent_bytes'))} more: "
                 f"{parts_line(warm_parts(pb), parts)}.\n")
    return f"""## Cost on fastapi-docs ({one.get('pages')} pages, {one.get('chunks', 0):,} chunks)

Plain `mkdocs build` of this site: {sec(plain)}. Browser: a fresh Chromium profile per
system, the home page loaded until the network is idle, then the first query
("{out['first_query'][:60]}...") with an empty HTTP cache, then
{pb.get('warm_queries', 50)} queries warm
(the search engine's round trip in the page: Material's worker QUERY to RESULT,
Pagefind's `search()` plus `data()` of the top 10, the plugin's `search()`).

{header(COST_COLUMNS)}
{chr(10).join(rows)}
{note}
Bytes in the browser columns are bytes sent, as a gzip-enabled static host (GitHub
Pages) sends them: text types gzipped, binary payloads as they are (Pagefind's index
files are gzipped already); "files" is the same files' own size.
"""


def site_parts(p: dict) -> str:
    """The plugin's bytes in site/, by part (bench/compare_lib/sites.py semantic_parts)."""
    if "folders" not in p:  # a bundle format 1 record
        return (f"bundle {mb(p['bundle_bytes'])}, model and tokenizer {mb(p['model_bytes'])}, "
                f"client {mb(p['client_bytes'])}")
    folders = p["folders"]
    inner = ", ".join(f"{PARTS[k]} {mb(folders[k])}" for k in ("vectors", "lexical", "fragments",
                                                               "table") if folders.get(k))
    if folders.get("text"):
        inner += f", text for Python readers {mb(folders['text'])}"
    inner += f", tokenizer {mb(p['tokenizer_bytes'])}"
    out = f"bundle {mb(p['bundle_bytes'])}: {inner}"
    if p["model_bytes"]:
        out += f"; model {mb(p['model_bytes'])}"
    out += f"; client {mb(p['client_bytes'])}"
    if p.get("client_wasm_bytes"):
        out += f", of which WebAssembly runtime {mb(p['client_wasm_bytes'])}"
    return out


def part_of(path: str) -> str:
    """Which kind of the plugin's files a fetched URL path is (see PARTS)."""
    _, found, rest = path.partition("/semantic/")
    if not found:
        return "other"
    if rest.startswith("client/") or rest == "semantic.js":
        return "wasm" if rest.endswith(".wasm") else "client"
    if rest == "manifest.json" or rest.startswith("catalog."):
        return "catalog"
    folder, _, name = rest.partition("/")
    if folder == "model":
        return "tokenizer" if name.startswith("tokenizer.") else "model"
    if folder == "vectors":
        return VECTOR_FILES.get(name.split(".", 1)[0].rstrip("0123456789"), "other")
    return folder if folder in PARTS else "other"


def fetched_parts(files: list) -> dict[str, list[int]]:
    """kind -> [bytes sent, files, file bytes] of fetched [path, bytes, sent, ...] entries,
    in PARTS order."""
    out: dict[str, list[int]] = {}
    for path, size, sent, *_ in files:
        entry = out.setdefault(part_of(path), [0, 0, 0])
        entry[0] += sent
        entry[1] += 1
        entry[2] += size
    return {k: out[k] for k in PARTS if k in out}


def warm_parts(b: dict) -> dict[str, list[int]]:
    """A browser run's warm pass by kind (`fetched_parts`): as recorded, or from its file
    list (the whole figures in bench/.cache/results, or a file written before the list
    left the committed ones)."""
    return b.get("warm_parts") or fetched_parts(b.get("warm_files", []))


def fetched_line(files: list, parts: dict | None) -> str:
    """'vector bits 204 kB (64 of 2,355 files), ...': what a query fetched (bytes sent),
    against what the bundle holds of that kind."""
    return parts_line(fetched_parts(files), parts)


def parts_line(fetched: dict[str, list[int]], parts: dict | None) -> str:
    """`fetched_line` of what `fetched_parts` made of the fetched files."""
    listed = {k: v[1] for k, v in (parts or {}).get("kinds", {}).items()}
    cells = []
    for part, (size, count, _) in fetched.items():
        of = f" of {listed[part]:,}" if part in listed else ""
        noun = "file" if count == 1 and not of else "files"
        cells.append(f"{PARTS[part]} {mb(size)} ({count:,}{of} {noun})")
    return ", ".join(cells) or "nothing"


def plugin_cost(added: float | None, plain: float | None) -> str:
    """Material's search plugin: plain build less the `plugins: []` build (may be noise)."""
    if added is None:
        return "-"
    if added < 0.05 * (plain or 0):
        return f"{sec(added)} over `plugins: []`, within this run's noise"
    return f"{sec(added)} over `plugins: []`, {times(added, plain)}"


def scale_section(out: dict) -> str:
    scales = out["scales"]
    rate = embed_rate(scales["1"])
    rows = []
    for key, record in scales.items():
        c = costs(record)
        plain = seconds(record, "plain")
        mat = c["material"]["browser"]
        for name in SYSTEMS:
            b = c[name]["browser"]
            added = c[name]["build_added"]
            build = f"{sec(added)} ({times(added, plain)})"
            if name == "material":
                build = plugin_cost(added, plain)
            elif name == "plugin":
                build += fit(record, "semantic")
            if "cold_ms" in b:
                first = mb(first_search_bytes(b))
                cold = f"{ms(b['cold_ms'])} ({times(b['cold_ms'], mat.get('cold_ms'))})"
                warm = (f"{ms(b['warm_p50_ms'])} / {ms(b['warm_p95_ms'])} "
                        f"({times(b['warm_p50_ms'], mat.get('warm_p50_ms'))})")
                files = b["warm_fetches"]["files"]
                fetched = f"{files['mean']:.1f} ({files['max']:.0f})"
            else:
                first = cold = warm = fetched = "not measured"
            rows.append(f"| {key}x | {record.get('pages'):,} | {record.get('chunks', 0):,} | "
                        f"{sec(plain)} | {LABEL[name]} | {build} | {mb(c[name]['bytes_added'])} | "
                        f"{first} | {cold} | {warm} | {fetched} |")
    estimate = ""
    if rate:
        big = scales[list(scales)[-1]]
        chunks = big.get("chunks")
        added = costs(big)["plugin"]["build_added"]
        if chunks and added is not None:
            est = added + chunks * rate
            estimate = (f" Embedding cost {rate * 1000:.0f} ms per chunk in the 1x first build, so "
                        f"a {list(scales)[-1]}x site with all-new text would need about "
                        f"{est / 60:.0f} minutes on its first build (an estimate from those two "
                        "measurements, not a measurement).")
    keys = list(scales)
    big = [k for k in keys if k != "1"]
    copies = ", ".join(f"{int(k) - 1} ({k}x)" for k in big) or "none"
    last = keys[-1]
    return f"""## Scale: {', '.join(f"{k}x" for k in keys)} the fastapi-docs chunk count

![growth of each system's costs with site size](compare.png)

{header(SCALE_COLUMNS)}
{chr(10).join(rows)}

How long each step took in this run (what a {last}x run costs):
{step_times(scales)}

"Search bytes sent for the first query" adds the search files fetched at page load (for
Material its index; for the plugin {plugin_load(scales)}) to the bytes fetched after
typing, as sent (gzip for text types). "Files per warm query" counts the files whose
request came while the query ran, over the {warm_count(scales)} warm queries.

How the bigger sites were made: the 129 real pages plus {copies} copies
of all of them under `docs/v2/` ... `docs/v{last}/`, each version reachable from one
nav entry. The copies keep their text and titles unchanged, so every copied chunk's
embedded text (title, heading path, body) is byte-identical to the original's and
the embedding cache (one `cache_dir` for every build of the run) serves it: the
bigger plugin builds chunk, index, fit the query table, quantize, partition and write
everything but embed nothing new, which is what a rebuild with a warm cache costs, not
a first build.{estimate}
Duplicated text also means every system sees the same vocabulary {last} times: sizes
that grow with pages (Material's JSON, the plugin's fragments and postings,
Pagefind's fragments) grow as they would on a real site, while Pagefind's and the
lexical index's word lists and the plugin's query table do not grow, so a real
{last}x site would cost them more.{shared_note(scales)}
"""


NETWORK_RUNS = (("pagefind-network", "Pagefind"), ("plugin-network", "this plugin"))
ROUND_TRIP_MS = 40
BYTES_PER_MS = 20e6 / 8 / 1000  # 20 Mbit/s


def _percentile(values: list[float], q: float) -> float:
    """The q-th percentile, interpolated between the nearest ranks."""
    ordered = sorted(values)
    at = (len(ordered) - 1) * q / 100
    low = int(at)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (at - low)


def modeled_ms(rounds: float, sent: float) -> float:
    """Issue 28's model of a reader's wait: rounds x 40 ms plus the bytes at 20 Mbit/s."""
    return rounds * ROUND_TRIP_MS + sent / BYTES_PER_MS


def first_query_rounds(b: dict) -> float:
    """A throttled first query's rounds: the median of the run's own and of its repeats,
    each in a fresh profile (browser.mjs coldRepeats), where it has them."""
    each = [b["cold_fetch_rounds"], *repeat_rounds(b)]
    ordered = sorted(each)
    middle = len(ordered) // 2
    return ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2


def repeat_rounds(b: dict) -> list[int]:
    """The rounds of the first query's repeats that were counted on the browser's clock
    (a repeat that failed, or fell back to the server's clock, counts for nothing)."""
    return [r["rounds"] for r in b.get("cold_repeats", [])
            if "rounds" in r and not r.get("onServerClock")]


def first_query_modeled(b: dict) -> float:
    """`modeled_ms` of a throttled first query: its median rounds and the run's bytes."""
    return modeled_ms(first_query_rounds(b), b["cold_sent_bytes"])


def rounds_text(b: dict, *, server: bool = True) -> str:
    """'5 rounds (median of 5, 6, 5, each in a fresh profile; 17 on the server's clock)':
    the first query's rounds, each run's where it was repeated, and (`server`) the
    run's own count on the server's clock where it recorded one."""
    repeats = repeat_rounds(b)
    each = [b["cold_fetch_rounds"], *repeats]
    notes = [f"median of {', '.join(str(n) for n in each)}, each in a fresh profile"] \
        if repeats else []
    if len(repeats) < len(b.get("cold_repeats", [])):
        notes.append(f"{len(b['cold_repeats']) - len(repeats)} more not counted (failed, or "
                     "not on the browser's clock)")
    if server and b.get("cold_server_rounds") is not None:
        notes.append(f"{b['cold_server_rounds']} on the server's clock")
    return f"{first_query_rounds(b):g} rounds" + (f" ({'; '.join(notes)})" if notes else "")


def first_rounds(files: list) -> list[tuple[float, float, dict[str, int]]]:
    """The rounds of a first query on the browser's clock, as browser.mjs counts them
    ([path, ms to the request, ms to the response's end] entries): each round's start,
    end, and how many requests of each kind (PARTS) began in it."""
    spans = sorted((start, end, path) for path, start, end in files
                   if end is not None and end > start)
    rounds: list[tuple[float, float, dict[str, int]]] = []
    for start, end, path in spans:
        if not rounds or start > rounds[-1][1]:
            rounds.append((start, end, {}))
        elif end > rounds[-1][1]:
            rounds[-1] = (rounds[-1][0], end, rounds[-1][2])
        kinds = rounds[-1][2]
        kinds[part_of(path)] = kinds.get(part_of(path), 0) + 1
    return rounds


def rounds_line(label: str, files: list) -> str:
    """'- 1x: 1 (0-45 ms) client code 1; 2 (48-194 ms) ...': what each round asked for."""
    cells = []
    for number, (start, end, kinds) in enumerate(first_rounds(files), 1):
        asked = ", ".join(f"{PARTS[k]} {n}" for k, n in
                          sorted(kinds.items(), key=lambda item: list(PARTS).index(item[0])))
        cells.append(f"{number} ({start:,.0f}-{end:,.0f} ms) {asked}")
    return f"- {label}: " + "; ".join(cells) + "."


NETWORK_COLUMNS = ("| site | system | first query: sent, rounds, files | modeled | measured |"
                   " warm rounds: p50 / max | warm sent: p50 | warm modeled: p50 / p95 |"
                   " warm measured: p50 / p95 |\n|---|---|---|---|---|---|---|---|---|")


def warm_modeled(b: dict) -> list[float]:
    """`modeled_ms` of each of a run's warm queries."""
    per = b["warm_fetches"]["per_query"]
    return [modeled_ms(r, n) for r, n in zip(per["rounds"], per["sent"])]


def network_row(site: str, label: str, b: dict) -> str:
    """One system's first and warm queries on a reader's network, as a NETWORK_COLUMNS row."""
    per = b["warm_fetches"]["per_query"]
    rounds, sent = per["rounds"], per["sent"]
    model = warm_modeled(b)
    return (f"| {site} | {label} | {b['cold_sent_bytes'] / 1000:,.0f} kB, "
            f"{rounds_text(b)}, "
            f"{len(b['cold_files'])} files | "
            f"{first_query_modeled(b):,.0f} ms | "
            f"{ms(b['cold_ms'])} | {_percentile(rounds, 50):.0f} / {max(rounds)} | "
            f"{_percentile(sent, 50) / 1000:,.1f} kB | "
            f"{_percentile(model, 50):,.0f} / {_percentile(model, 95):,.0f} ms | "
            f"{ms(b['warm_p50_ms'])} / {ms(b['warm_p95_ms'])} |")


def network_section(out: dict) -> str:
    """Pagefind and the plugin on a reader's network: first and warm queries."""
    rows = [network_row(f"{scale}x", label, b)
            for scale, record in out["scales"].items()
            for name, label in NETWORK_RUNS
            if (b := record["browser"].get(name)) and "cold_ms" in b]
    if not rows:
        return ""
    keyword = [f"{scale}x: {k['rounds']} rounds, {k['sent_bytes'] / 1000:,.0f} kB "
               f"(modeled {modeled_ms(k['rounds'], k['sent_bytes']):,.0f} ms)"
               for scale, record in out["scales"].items()
               if (k := record["browser"].get("plugin-network", {}).get("cold_keyword"))]
    keyword_line = ([f"The plugin's keyword results of the first query (shown while its "
                     f"final ranking loads), on the browser's clock (the rounds of the files "
                     f"that had come when they came; the bytes of every file asked for before): "
                     f"{'; '.join(keyword)}.",
                     ""] if keyword else [])
    by_round = [rounds_line(f"{scale}x", files) for scale, record in out["scales"].items()
                if (files := record["browser"].get("plugin-network", {}).get("cold_browser_files"))]
    rounds_lines = (["The plugin's first query round by round on the browser's clock (ms from "
                     "the query; requests of each kind that began in the round, a file read "
                     "again from the browser's cache counted again):", "", *by_round, ""]
                    if by_round else [])
    return "\n".join([
        "## On a reader's network",
        "",
        "Pagefind and the plugin again, in Chromium's network emulation (20 Mbit/s, 40 ms a",
        "request): there a round (a stretch with a request in flight, on the browser's clock:",
        "each request from its start to its response's end in the page's or worker's Resource",
        "Timing, the emulated latency included) is",
        "a step of the client that waited for the step before it. The server's clock, which",
        "earlier runs counted on, serves each throttled request at once, so a CPU gap between",
        "two requests of one step split them there. Modeled: rounds x 40 ms plus the bytes sent at",
        "20 Mbit/s (issue 28's model). The first query's figures are its own files, from",
        "the query to its results, after page load. Warm queries: "
        + (f"each after a reader's pause of {out['warm_pause_ms']:,} ms (the client's idle "
           "time, in which it prefetches; those files are no query's)."
           if out.get("warm_pause_ms") else "one after the other, with no pause between."),
        "",
        NETWORK_COLUMNS.replace("| site |", "| scale |", 1),
        *rows, "", *keyword_line, *rounds_lines])


def analysis(out: dict, one: dict, c1: dict) -> str:
    q = one.get("quality", {})
    wins, losses = [], []
    hyb = q.get("plugin-hybrid")
    client_q = q.get("plugin-browser")
    best = {}
    for part in ("paraphrase", "exact"):
        scored = [(q[k][part]["mrr@10"], LABEL[k.split("-")[0]]) for k in
                  ("material-browser", "pagefind-browser") if k in q]
        best[part] = max(scored) if scored else None
    if hyb and best["paraphrase"] and best["exact"]:
        scored = [(q[k]["all"]["mrr@10"], q[k]["all"]["recall@5"], LABEL[k.split("-")[0]])
                  for k in ("material-browser", "pagefind-browser") if k in q]
        top = max(scored)
        line = (f"all {q['plugin-hybrid']['all']['queries']} queries: hybrid MRR@10 "
                f"{hyb['all']['mrr@10']:.2f} and Recall@5 {hyb['all']['recall@5']:.2f} against "
                f"{top[0]:.2f} and {top[1]:.2f} for the better keyword search ({top[2]})")
        if client_q:
            line += (f"; the browser client as shipped {client_q['all']['mrr@10']:.2f} and "
                     f"{client_q['all']['recall@5']:.2f}")
        (wins if hyb["all"]["mrr@10"] > top[0] else losses).append(
            (line, "see the two lines below"))
    if hyb and best["paraphrase"]:
        mrr, who = best["paraphrase"]
        line = (f"paraphrased questions: hybrid MRR@10 {hyb['paraphrase']['mrr@10']:.2f} against "
                f"{mrr:.2f} for the better keyword search ({who})")
        if client_q:
            line += f"; the browser client as shipped {client_q['paraphrase']['mrr@10']:.2f}"
        (wins if hyb["paraphrase"]["mrr@10"] > mrr else losses).append(
            (line, "better paraphrase handling: a larger or fine-tuned model"))
    if hyb and best["exact"]:
        mrr, who = best["exact"]
        line = (f"identifiers and exact phrases: hybrid MRR@10 {hyb['exact']['mrr@10']:.2f}, "
                f"{who} {mrr:.2f}")
        lever = ("rank identifier-like queries (one token with `_`, `.` or CamelCase that the "
                 "lexical index knows) by the lexical list first instead of an even fusion; "
                 f"lexical mode alone scores {q['plugin-lexical']['exact']['mrr@10']:.2f} here")
        if client_q:
            line += f"; the browser client {client_q['exact']['mrr@10']:.2f}"
            if not client_is_hybrid(q):
                line += f" (it ranks as {client_ranking(q)}, not as the hybrid mode)"
                lever += "; and hybrid fusion in the browser client"
        (wins if hyb["exact"]["mrr@10"] >= mrr else losses).append((line, lever))
    mat_b, pf_b, pb = (c1[n]["browser"] for n in SYSTEMS)
    if all("cold_ms" in b for b in (mat_b, pf_b, pb)):
        others = {LABEL["material"]: mat_b, LABEL["pagefind"]: pf_b}
        ours = first_search_bytes(pb)
        theirs = {k: first_search_bytes(v) for k, v in others.items()}
        line = (f"bytes for the first search (page load's search files included): {mb(ours)} "
                "against " + ", ".join(f"{k} {mb(v)}" for k, v in theirs.items()) +
                f"; time to the first result {ms(pb['cold_ms'])} against Material "
                f"{ms(mat_b['cold_ms'])} and Pagefind {ms(pf_b['cold_ms'])}")
        lever = first_query_lever(fetched_parts(pb.get("cold_files", [])))
        better = ours <= min(theirs.values()) and pb["cold_ms"] <= min(
            mat_b["cold_ms"], pf_b["cold_ms"])
        (wins if better else losses).append((line, lever))
        load_line = (f"page load: {mb(pb['load_search_sent_bytes'])} of search files sent on "
                     f"every page against Material's {mb(mat_b['load_search_sent_bytes'])} and "
                     f"Pagefind's {mb(pf_b['load_search_sent_bytes'])}")
        fetched_index = any("search_index.json" in f[0] for f in pb.get("load_search_files", []))
        own_lexical = any("/lexical." in f[0] for f in pb.get("cold_files", []))
        if fetched_index:
            load_line += (", most of it Material's search/search_index.json, which Material's "
                          "page still fetches on every page load")
            if own_lexical:
                load_line += " although the plugin's client fetches its own lexical index"
        lever = ("keep Material's page from fetching search/search_index.json when the plugin's "
                 "worker takes over")
        better = pb["load_search_sent_bytes"] <= min(mat_b["load_search_sent_bytes"],
                                                     pf_b["load_search_sent_bytes"])
        (wins if better else losses).append((load_line, lever))
        line = (f"warm query latency p50 / p95: {ms(pb['warm_p50_ms'])} / {ms(pb['warm_p95_ms'])} "
                f"against Material {ms(mat_b['warm_p50_ms'])} / {ms(mat_b['warm_p95_ms'])} and "
                f"Pagefind {ms(pf_b['warm_p50_ms'])} / {ms(pf_b['warm_p95_ms'])}")
        embeds = ("query embedding in WebAssembly" if "model" in fetched_parts(
            pb.get("cold_files", [])) else "tokenizing and summing the query table's rows")
        lever = warm_lever(pb, embeds)
        better = all(pb[k] <= min(mat_b[k], pf_b[k]) for k in ("warm_p50_ms", "warm_p95_ms"))
        (wins if better else losses).append((line, lever))
    elif "absent" in pb:
        losses.append(("browser costs: not measured, the browser client is not built",
                       "build it (`scripts/setup`)"))
    plain = seconds(one, "plain")
    first = c1["plugin"].get("first_build_added")
    if first is not None and c1["pagefind"]["build_added"] is not None:
        line = (f"build time: the {first_build(one)} adds {sec(first)} ({times(first, plain)} "
                f"the plain "
                f"build) and a build with cached vectors {sec(c1['plugin']['build_added'])}, "
                f"against Pagefind's {sec(c1['pagefind']['build_added'])}")
        lever = build_lever(one)
        losses.append((line, lever)) if first > c1["pagefind"]["build_added"] else wins.append(
            (line, lever))
    if c1["plugin"]["bytes_added"] is not None:
        line = (f"bytes added to site/: {mb(c1['plugin']['bytes_added'])} against Pagefind's "
                f"{mb(c1['pagefind']['bytes_added'])} and Material's "
                f"{mb(c1['material']['bytes_added'])}")
        lever = site_bytes_lever(one["sizes"].get("semantic_parts", {}))
        (losses if c1["plugin"]["bytes_added"] > c1["pagefind"]["bytes_added"] else
         wins).append((line, lever))
    scales = out["scales"]
    last = list(scales)[-1]
    if last != "1":
        growth = []
        for name in SYSTEMS:
            b1 = costs(scales["1"])[name]["browser"]
            bn = costs(scales[last])[name]["browser"]
            if "warm_p50_ms" in b1 and "warm_p50_ms" in bn:
                warm = bn["warm_p50_ms"] / b1["warm_p50_ms"]
                first = first_search_bytes(bn) / max(first_search_bytes(b1), 1)
                growth.append(f"{LABEL[name]} warm p50 {X}{warm:.1f}, "
                              f"first-search bytes {X}{first:.1f}")
        big = costs(scales[last])
        ours_b = big["plugin"]["browser"]
        theirs_b = [big[n]["browser"] for n in ("material", "pagefind")]
        if "cold_ms" in ours_b and all("cold_ms" in b for b in theirs_b):
            for key, what in (("cold_ms", "time to the first result"),
                              ("warm_p95_ms", "warm p95")):
                line = (f"at {last}x ({big_chunks(scales[last])} chunks), {what}: "
                        f"{ms(ours_b[key])} against Material {ms(theirs_b[0][key])} and "
                        f"Pagefind {ms(theirs_b[1][key])}")
                if ours_b[key] < min(b[key] for b in theirs_b):
                    wins.append((line, ""))
                else:
                    ahead = [LABEL[n] for n, b in zip(("material", "pagefind"), theirs_b)
                             if ours_b[key] < b[key]]
                    if ahead:
                        line += f" (ahead of {' and '.join(ahead)} only)"
                    losses.append((line, "as at 1x, above"))
    else:
        growth = []
    win_lines = "\n".join(f"- {w}." for w, _ in wins) or "- none in this run."
    loss_lines = "\n".join(f"- {what}. Next lever: {lever}." for what, lever in losses) or \
        "- none in this run."
    return f"""## Analysis (from this run's figures)

Where we win:
{win_lines}

Where we lose, and the next lever for each:
{loss_lines}

How each grows from 1x to the largest site (same run):
{chr(10).join(f"- {g}." for g in growth) or "- only 1x was measured."}
"""


def warm_lever(b: dict, embeds: str) -> str:
    """The next lever for warm latency: the fetches, when the queries that fetch are the
    slow ones; the worker's computing otherwise."""
    wf = b.get("warm_fetches", {})
    fetching, still = wf.get("ms_fetching") or {}, wf.get("ms_not_fetching") or {}
    if fetching and still and fetching["p50"] > 2 * still["p50"]:
        return (f"the shards a query fetches by need: {wf['queries_fetching']} of "
                f"{b['warm_queries']} warm queries fetched (a mean of "
                f"{wf['files']['mean']:.1f} files), at p50 {ms(fetching['p50'])} against "
                f"{ms(still['p50'])} for the queries that fetched nothing, so fewer files a "
                "query (larger shards, or the shards most queries need fetched after the "
                "first result) before faster computing")
    return (f"profile the worker's round trip ({embeds}, the keyword and vector scoring and "
            "the fusion): the queries that fetch nothing are as slow as the others")


def first_query_lever(parts: dict[str, list[int]]) -> str:
    """The next lever for the first query's bytes: by the largest part it fetched."""
    size = {k: v[0] for k, v in parts.items() if k != "other"}
    if "model" in size or "wasm" in size:
        return (f"the first query waits for the {mb(size.get('model', 0))} model and the "
                f"{mb(size.get('wasm', 0))} WebAssembly runtime: the static query encoder "
                "(`query_encoder: static`) needs neither")
    if not size:
        return "none found: the first query fetched no file of the plugin"
    biggest = max(size, key=size.get)
    levers = {
        "vectors": "the exact scan reads every vector part, so these bytes grow with the "
                   "chunk count: the partitioned layout (`vector_layout: auto` uses it from "
                   "4,096 chunks)",
        "vector_bits": "the sign bits of every partition probed: probe fewer rows, or fewer "
                       "bytes a row (fewer bits, or bits of a projection)",
        "vector_rows": "the int8 rows of every row block holding a candidate: fewer "
                       "candidates, or smaller blocks so that a rows file holds fewer "
                       "rows the query does not score",
        "vector_index": "the partition index grows with the partition count: larger "
                        "partitions, or a two-level index",
        "pages": "the page table grows with the page count: shard it",
        "index": "shard-list directories: fewer, larger entries",
        "tokenizer": "the tokenizer file is the model's whole vocabulary as JSON: a compact "
                     "vocabulary file that splits words the same way",
        "client": "split the client so that the first query loads only the code it runs",
        "table": "fewer query-table rows per shard, so a query fetches less it does not use",
        "lexical": "smaller lexical shards, so a query fetches fewer terms it does not use",
        "fragments": "smaller fragment shards, so a query fetches fewer pages it does not show",
    }
    return (f"the largest part is the {PARTS[biggest]} ({mb(size[biggest])} of "
            f"{mb(sum(size.values()))}): "
            + levers.get(biggest, "look at what it is"))


def site_bytes_lever(p: dict) -> str:
    """The next lever for the bytes the plugin adds to site/: by its largest part."""
    if not p:
        return "not measured"
    parts = {"model": p.get("model_bytes", 0), "wasm": p.get("client_wasm_bytes", 0),
             "bundle": p.get("bundle_bytes", 0)}
    biggest = max(parts, key=parts.get)
    if biggest == "wasm" and p.get("query_encoder") == "static":
        return (f"the largest part is the client's WebAssembly runtime "
                f"({mb(parts['wasm'])}), which a site with the static query encoder never "
                "downloads: copy it only for `query_encoder: transformer`")
    if biggest in ("model", "wasm"):
        return ("most of it is the model and the WebAssembly runtime, a fixed cost per site "
                "rather than per page: the static query encoder, which needs neither")
    text = p.get("folders", {}).get("text", 0)
    return (f"the largest part is the bundle ({mb(parts['bundle'])}), which grows with the "
            f"site; its text for Python readers ({mb(text)}) is never fetched by browsers")


def pagefind_split(one: dict) -> str:
    b = one["browser"].get("pagefind", {})
    if "warm_search_only_p50_ms" not in b:
        return "not measured"
    return (f"p50 {ms(b['warm_search_only_p50_ms'])}, p95 {ms(b['warm_search_only_p95_ms'])} "
            f"at 1x, against {ms(b['warm_p50_ms'])} and {ms(b['warm_p95_ms'])} with `data()`")


def plugin_load(scales: dict) -> str:
    """What the plugin's pages fetch at load that counts as search files, in words."""
    b = costs(scales["1"])["plugin"]["browser"]
    files = b.get("load_search_files", [])
    if not files:
        return "nothing"
    index = any("search_index.json" in f[0] for f in files)
    own = any(part_of(f[0]) != "other" for f in files)
    words = ["its page script"] if own else []
    if index:
        words.append("Material's search/search_index.json, which the page still fetches")
    return " plus ".join(words) or "Material's worker files"


def lazy_note(one: dict) -> str:
    """The plugin loads shards by need: its warm queries may still fetch files."""
    b = one["browser"]
    if not all("warm_sent_bytes" in b.get(n, {}) for n in SYSTEMS):
        return ""
    return ("\n- Warm is not fetch-free: over the 1x warm pass Material fetched "
            f"{mb(b['material']['warm_sent_bytes'])}, Pagefind "
            f"{mb(b['pagefind']['warm_sent_bytes'])} "
            "(index chunks for new words, a fragment per result) and the plugin "
            f"{mb(b['plugin']['warm_sent_bytes'])} (query-table, lexical and fragment shards "
            "for new tokens, terms and pages, and vector files where partitioned), each from "
            "the loopback server inside the timed round trips (bytes sent).")


def big_chunks(record: dict) -> str:
    return f"{record['chunks']:,}" if record.get("chunks") else "?"


def step_times(scales: dict) -> str:
    """Per scale: the builds, each system's browser run and the layout scoring, in seconds."""
    lines = []
    names = {"nosearch": "plugins: []", "plain": "plain", "semantic_first": "plugin first",
             "semantic": "plugin", "semantic_exact": "plugin exact", "pagefind": "Pagefind"}
    for key, record in scales.items():
        builds = ", ".join(f"{names.get(n, n)} {sec(b['seconds'])}"
                           for n, b in record["builds"].items() if b.get("ok"))
        browse = ", ".join(f"{LABEL[n]} {sec(b['browser_seconds'])}"
                           for n, b in record["browser"].items() if "browser_seconds" in b)
        scoring = record.get("layouts", {}).get("seconds")
        lines.append(f"- {key}x: builds {builds}; browser runs {browse}"
                     + (f"; scoring the two layouts {sec(scoring)}" if scoring else "") + ".")
    return "\n".join(lines)


def build_loads(out: dict) -> str:
    """The plugin's builds at each scale: seconds, and the load average as each began."""
    cells = []
    for key, record in out["scales"].items():
        for name in ("semantic", "semantic_exact"):
            build = record["builds"].get(name)
            if build and build.get("ok"):
                load = (build.get("load_average") or [None])[0]
                cells.append(f"{key}x {'exact' if name.endswith('exact') else 'as shipped'} "
                             f"{sec(build['seconds'])}"
                             + (f" (load {load:.1f})" if load is not None else ""))
    return "; ".join(cells) or "none"


def front_protocol(out: dict) -> str:
    served = {r.get("protocol", {}).get("served") for r in out["scales"].values()}
    if served == {"h2"}:
        return ("HTTP/2 over TLS (a self-signed certificate made by `openssl req -x509` at "
                "run time; Chromium runs with `--ignore-certificate-errors-spki-list` set "
                "to its key's hash, which trusts that key alone and leaves the HTTP cache on)")
    return "HTTP/1.1 (at most six connections per host in Chromium)"


def refetch_note(out: dict) -> str:
    """Files served twice with a 200 within one browser run (the HTTP cache missed)."""
    again = {f"{LABEL[n]} at {k}x": b["refetched"] for k, r in out["scales"].items()
             for n, b in r["browser"].items() if b.get("refetched")}
    if not again:
        return "No file was served twice within a browser run."
    return ("Files served twice within one browser run: "
            + ", ".join(f"{k} {v}" for k, v in again.items()) + ".")


def method_section(out: dict, one: dict) -> str:
    b = one["browser"]
    blocked = max((x.get("blocked_external_requests", 0) for x in b.values()), default=0)
    disagree = b.get("material", {}).get("rendered_list_disagrees_with_worker")
    return f"""## Method and caveats

- One run of each build and browser session: single measurements on a shared
  2-core machine, so read the ratios rather than the seconds.
- Builds: `plugins: []` (Pagefind indexes that site), the corpus as it is
  (`plugins: [search]`, Material's search, the baseline), `plugins: [search,
  semantic]` as shipped and the same with `vector_layout: exact` (scored against
  it, not browsed), each a whole `mkdocs build` process. The plugin's first 1x build
  {cold_start(out)}; every later one reuses its vectors (never its chunk cache, so
  every build parses and chunks all pages). Build times and load averages: {build_loads(out)}.
- Pagefind runs with `--exclude-selectors "{out['pagefind_exclude_selectors']}"`, so it
  indexes page content rather than the theme's navigation (what `data-pagefind-body`
  does in a template).
- Served from 127.0.0.1 under `/fastapi/` by js/tools/server.mjs, which compresses as
  GitHub Pages does (gzip for html, css, js, json, svg, txt and xml when the browser
  accepts it; .bin, .i8, .wasm, .onnx, images and fonts as they are), behind a front
  in browser.mjs that speaks {front_protocol(out)} to Chromium, sets
  `Cache-Control: max-age=600` (as GitHub Pages) and logs each response's body bytes
  (headers not counted) and when its request came and its last byte left; both stop
  with their run. Loopback: no network latency, so fetch times are the server's and
  the browser's work only. Chromium resolves no other host: the theme's web fonts
  ({blocked} requests a page) fail fast for every system alike. {refetch_note(out)}
- Material: each query goes into its search box whole (Playwright's `fill`), then a
  key press, since Material searches on keyup; typing letter by letter would only
  add queries for the prefixes.
- Material's warm latency is its worker's round trip seen from the page (QUERY posted
  to RESULT received, through a wrapper around `window.Worker`); the list read for
  quality is the rendered one ({_n(disagree)} of the queries' rendered lists differed from the
  worker's answer).
- Pagefind's latency includes `data()` of the top 10 results (a UI needs their URLs
  and excerpts); it fetches a fragment file per result. `search()` alone:
  {pagefind_split(one)}.
- Quality against Material and Pagefind is measured at 1x only; the plugin's two
  layouts are scored at every scale (the Done-when section), where a copy of a
  relevant page counts as relevant.{lazy_note(one)}
"""
