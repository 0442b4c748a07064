"""compare.json -> compare.md: the tables, the notes and the analysis, all from one run."""

from __future__ import annotations

SYSTEMS = ("material", "pagefind", "plugin")
X = "\u00d7"  # the multiplication sign of ratios
LABEL = {"material": "Material (lunr)", "pagefind": "Pagefind", "plugin": "this plugin"}
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
# What the plugin's browser client fetched, by part: the part a URL under the bundle
# folder belongs to (its payload folder, the client, the manifest and catalog).
PARTS = {"client": "client code", "wasm": "WebAssembly runtime", "catalog": "manifest and catalog",
         "tokenizer": "tokenizer", "model": "model", "table": "query table",
         "vectors": "vectors", "lexical": "lexical index", "fragments": "fragments",
         "text": "text", "other": "other files"}


COST_COLUMNS = ("system", "build time added to plain `mkdocs build`", "bytes added to site/",
                "bytes at page load", "first result, cold: bytes; time", "warm p50 / p95")
SCALE_COLUMNS = ("scale", "pages", "chunks", "plain build", "system", "build time added",
                 "bytes added to site/", "search bytes for the first query",
                 "first result, cold", f"warm p50 / p95 (p50 {X} Material)")


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
    """Bytes of search files a first search costs: its share of page load, then the query."""
    if "cold_bytes" not in b:
        return None
    return b["load_search_bytes"] + b["cold_bytes"]


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
    """The copies' identical vector parts are one content-hashed file: say what a site
    without repeated pages would fetch instead."""
    lines = []
    for key, record in scales.items():
        p = record["sizes"].get("semantic_parts", {})
        b = record["browser"].get("plugin", {})
        if key == "1" or "listed" not in p or "cold_files" not in b:
            continue
        fetched = fetched_parts(b["cold_files"]).get("vectors", [0, 0])[0]
        listed = p["listed"].get("vectors", 0)
        if listed > 1.5 * fetched:
            lines.append(f"at {key}x the first query fetched {mb(fetched)} of vectors "
                         f"({p['folder_files'].get('vectors')} files) where a site of "
                         f"{record.get('chunks', 0):,} distinct chunks would fetch all "
                         f"{mb(listed)} ({p['listed_files'].get('vectors')} parts; the exact "
                         "scan reads every part)")
    if not lines:
        return ""
    return ("\n\nOne more effect of the copies on the plugin: its payloads are named by "
            "their content, and a copy's vector parts and text shards are byte-identical to "
            "the original's, so each is stored once and fetched once: "
            + "; ".join(lines) + ". Its first-query bytes at 4x and 16x are therefore "
            "lower than a real site of that size would need.")


def render(out: dict) -> str:
    m = out["machine"]
    scales = out["scales"]
    one = scales["1"]
    c1 = costs(one)
    client = out["client"]
    client_line = (f"browser client built (hash `{client['hash']}`)" if client["present"] else
                   f"**browser client not built**: {client['reason']}")
    parts = [f"""# Compared with Material's search (lunr) and Pagefind

Reproduce: `bench/compare` (one command: it installs what it needs, builds, measures
and rewrites this file, compare.json and compare.png). This run: {out['generated']},
{out['seconds'] / 60:.1f} minutes on {m['cores']} cores; {m['chromium']}, Node {m['node']},
Python {m['python']}; mkdocs {m['mkdocs']}, mkdocs-material {m['mkdocs-material']},
Pagefind {m['pagefind']} (npm), playwright-core {m['playwright-core']},
mkdocs-semantic-search {m['mkdocs-semantic-search']}, {client_line}.

Every figure below was measured in this run; none is copied. Times depend on the
machine, so each is also given as a ratio to a baseline of the same run: build
times to the plain `mkdocs build` (the corpus as it is, `plugins: [search]`) of the
same site, browser times to Material's figure for the same site.
"""]
    parts.append(quality_section(out, one))
    parts.append(cost_section(out, one, c1))
    parts.append(scale_section(out))
    parts.append(analysis(out, one, c1))
    parts.append(method_section(out, one))
    return "\n".join(parts)


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
            load = f"{mb(b['load_bytes'])} ({mb(b['load_search_bytes'])} search)"
            cold = (f"{mb(b['cold_bytes'])}; {ms(b['cold_ms'])} "
                    f"({times(b['cold_ms'], mat.get('cold_ms'))})")
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
                 f"{mb(pb.get('warm_bytes'))} more: "
                 f"{fetched_line(pb.get('warm_files', []), parts)}.\n")
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
Bytes are as served, uncompressed. A host that gzips responses would send, at page
load / for the first query: {gz(mat, "Material")},
{gz(c1['pagefind']['browser'], "Pagefind")} (its index files are gzipped already),
{gz(pb, "this plugin")}.
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
    """Which part of the plugin a fetched URL path is (see PARTS)."""
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
    return folder if folder in PARTS else "other"


def fetched_parts(files: list) -> dict[str, list[int]]:
    """part -> [bytes, files] of fetched [path, bytes] pairs, in PARTS order."""
    out: dict[str, list[int]] = {}
    for path, size in files:
        entry = out.setdefault(part_of(path), [0, 0])
        entry[0] += size
        entry[1] += 1
    return {k: out[k] for k in PARTS if k in out}


def fetched_line(files: list, parts: dict | None) -> str:
    """'vectors 904 kB (8 of 8 files), ...': what a query fetched, against what there is."""
    listed = (parts or {}).get("folder_files", {})
    cells = []
    for part, (size, count) in fetched_parts(files).items():
        folder = {"tokenizer": None, "model": None}.get(part, part)
        of = f" of {listed[folder]}" if folder in listed else ""
        noun = "file" if count == 1 and not of else "files"
        cells.append(f"{PARTS[part]} {mb(size)} ({count}{of} {noun})")
    return ", ".join(cells) or "nothing"


def plugin_cost(added: float | None, plain: float | None) -> str:
    """Material's search plugin: plain build less the `plugins: []` build (may be noise)."""
    if added is None:
        return "-"
    if added < 0.05 * (plain or 0):
        return f"{sec(added)} over `plugins: []`, within this run's noise"
    return f"{sec(added)} over `plugins: []`, {times(added, plain)}"


def gz(b: dict, label: str) -> str:
    return f"{label} {mb(b.get('load_gzip_bytes'))} / {mb(b.get('cold_gzip_bytes'))}"


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
            else:
                first = cold = warm = "not measured"
            rows.append(f"| {key}x | {record.get('pages'):,} | {record.get('chunks', 0):,} | "
                        f"{sec(plain)} | {LABEL[name]} | {build} | {mb(c[name]['bytes_added'])} | "
                        f"{first} | {cold} | {warm} |")
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
    return f"""## Scale: 1x, 4x and 16x the fastapi-docs chunk count

![growth of each system's costs with site size](compare.png)

{header(SCALE_COLUMNS)}
{chr(10).join(rows)}

"Search bytes for the first query" adds the search files fetched at page load (for
Material its index; for the plugin {plugin_load(scales)}) to the bytes fetched after typing.

How the bigger sites were made: the 129 real pages plus 3 (4x) or 15 (16x) copies
of all of them under `docs/v2/` ... `docs/v16/`, each version reachable from one
nav entry. The copies keep their text and titles unchanged, so every copied chunk's
embedded text (title, heading path, body) is byte-identical to the original's and
the embedding cache (one `cache_dir` for every build of the run) serves it: the
4x and 16x plugin builds chunk, index, fit the query table, quantize and write
everything but embed nothing new, which is what a rebuild with a warm cache costs, not
a first build.{estimate}
Duplicated text also means every system sees the same vocabulary 16 times: sizes
that grow with pages (Material's JSON, the plugin's fragments and postings,
Pagefind's fragments) grow as they would on a real site, while Pagefind's and the
lexical index's word lists and the plugin's query table do not grow, so a real 16x
site would cost them more.{shared_note(scales)}
"""


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
        load_line = (f"page load: {mb(pb['load_search_bytes'])} of search files on every page "
                     f"against Material's {mb(mat_b['load_search_bytes'])} and Pagefind's "
                     f"{mb(pf_b['load_search_bytes'])}")
        fetched_index = any("search_index.json" in f[0] for f in pb.get("load_search_files", []))
        own_lexical = any("/lexical." in f[0] for f in pb.get("cold_files", []))
        if fetched_index:
            load_line += (", most of it Material's search/search_index.json, which Material's "
                          "page still fetches on every page load")
            if own_lexical:
                load_line += " although the plugin's client fetches its own lexical index"
        lever = ("keep Material's page from fetching search/search_index.json when the plugin's "
                 "worker takes over")
        better = pb["load_search_bytes"] <= min(mat_b["load_search_bytes"],
                                                pf_b["load_search_bytes"])
        (wins if better else losses).append((load_line, lever))
        line = (f"warm query latency p50 / p95: {ms(pb['warm_p50_ms'])} / {ms(pb['warm_p95_ms'])} "
                f"against Material {ms(mat_b['warm_p50_ms'])} / {ms(mat_b['warm_p95_ms'])} and "
                f"Pagefind {ms(pf_b['warm_p50_ms'])} / {ms(pf_b['warm_p95_ms'])}")
        embeds = ("query embedding in WebAssembly" if "model" in fetched_parts(
            pb.get("cold_files", [])) else "tokenizing and summing the query table's rows")
        lever = (f"profile the worker's round trip ({embeds} against the exact scan of int8 "
                 "vectors, which grows with the chunk count, see the scale table)")
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
                   "chunk count: a layout that reads only the parts near the query (the "
                   "catalog's `layout` field leaves room for one)",
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
    if not all("warm_bytes" in b.get(n, {}) for n in SYSTEMS):
        return ""
    return ("\n- Warm is not fetch-free: over the 1x warm pass Material fetched "
            f"{mb(b['material']['warm_bytes'])}, Pagefind {mb(b['pagefind']['warm_bytes'])} "
            "(index chunks for new words, a fragment per result) and the plugin "
            f"{mb(b['plugin']['warm_bytes'])} (query-table, lexical and fragment shards for "
            "new tokens, terms and pages), each from the loopback server inside the timed "
            "round trips.")


def big_chunks(record: dict) -> str:
    return f"{record['chunks']:,}" if record.get("chunks") else "?"


def method_section(out: dict, one: dict) -> str:
    b = one["browser"]
    blocked = max((x.get("blocked_external_requests", 0) for x in b.values()), default=0)
    disagree = b.get("material", {}).get("rendered_list_disagrees_with_worker")
    return f"""## Method and caveats

- One run of each build and browser session: single measurements on a shared
  2-core machine, so read the ratios rather than the seconds.
- Builds: `plugins: []` (Pagefind indexes that site), the corpus as it is
  (`plugins: [search]`, Material's search, the baseline) and `plugins: [search,
  semantic]`, each a whole `mkdocs build` process. The plugin's first 1x build
  {cold_start(out)}; every later one reuses its vectors (never its chunk cache, so
  every build parses and chunks all pages).
- Pagefind runs with `--exclude-selectors "{out['pagefind_exclude_selectors']}"`, so it
  indexes page content rather than the theme's navigation (what `data-pagefind-body`
  does in a template).
- Served from 127.0.0.1 under `/fastapi/` by a Node server that stops with its run,
  `Cache-Control: max-age=600` (as GitHub Pages), no compression. Chromium resolves
  no other host: the theme's web fonts ({blocked} requests a page) fail fast for every system alike.
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
- Quality needs the relevance set's URLs, so it is measured at 1x only.{lazy_note(one)}
"""
