"""The figures README.md and the user docs (docs/*.md, not docs/decisions/) quote from
bench/results/, each read from its results file in one place.

    python scripts/doc_figures.py           each quoted figure beside the recorded one;
                                            exits 1 if any differs
    python scripts/doc_figures.py --write   puts the recorded figure in place of each
                                            stale quote, in the digits the quote shows

Run it after a bench rewrites its results; tests/test_docs_figures.py fails while a quote
differs from its record. A new figure in the docs: add a `Figure` to `figures()`.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from dataclasses import dataclass
from functools import cache
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
RESULTS = REPO / "bench" / "results"
USER_DOCS = ["README.md", *sorted(f"docs/{p.name}" for p in (REPO / "docs").glob("*.md"))]
"""The pages for users: README.md and docs/*.md. The decision records under
docs/decisions/ are history, quoted as they were measured."""

N = r"(\d[\d,]*(?:\.\d+)?)"
"""A quoted number, in a pattern: one group."""


@cache
def results(name: str) -> dict:
    return json.loads((RESULTS / name).read_text(encoding="utf-8"))


@dataclass(frozen=True)
class Figure:
    """A figure `doc` quotes: `pattern` (one group per number, `N`; spaces match any
    white space, so a quote may break lines) and the recorded `values`, one per group."""

    doc: str
    pattern: str
    values: tuple[float, ...]
    source: str
    """The results file and the entry the values come from."""

    def regex(self) -> re.Pattern[str]:
        return re.compile(self.pattern.replace(" ", r"\s+"))


def shown(value: float, like: str) -> str:
    """`value` in the digits and thousands separators of the quote `like`."""
    digits = len(like.split(".")[1]) if "." in like else 0
    text = f"{value:,.{digits}f}" if "," in like else f"{value:.{digits}f}"
    return text


def same(quote: str, value: float) -> bool:
    """`quote` is `value` rounded to the digits the quote shows."""
    return quote.replace(",", "") == shown(value, quote.replace(",", ""))


def figures() -> list[Figure]:
    """Every figure the user docs quote from bench/results, with its recorded value."""
    builds = results("build_times.json")["runs"]
    first, no_change, plain = builds["first_static"], builds["no_change"], builds["plain"]
    edit = builds["one_page_edit"]
    rounds = results("query_rounds.json")["layouts"]["partitioned, told the page's pieces hash"]
    first_kb, warm_kb = rounds["first"]["sent"] / 1000, rounds["warm_sent_p50"] / 1000
    first_rounds, warm_rounds = rounds["first"]["rounds"], rounds["warm_rounds_p50"]
    kinds = {k: v / 1000 for k, v in rounds["first"]["kindSent"].items()}
    deploy = results("deploy.json")
    bundle, pagefind = deploy["bundle"], deploy["pagefind"]
    upload = deploy["edit_upload"]
    client = results("client_size.json")
    cache_tar = results("ci_cache.json")["cache"]["tar_gz_bytes"] / 1e6
    scifact = results("scifact.json")
    encoder = results("static_encoder.json")["sets"]
    fastapi = encoder["fastapi"]
    vec = [s["static"]["vector"]["all"] / s["transformer"]["vector"]["all"]
           for s in encoder.values()]
    hyb = [s["static"]["hybrid"]["all"] / s["transformer"]["hybrid"]["all"]
           for s in encoder.values()]
    hyb_ordinary = [s["static"]["hybrid"]["all"] / s["transformer"]["hybrid"]["all"]
                    for name, s in encoder.items() if name != "manshort"]
    para = [s["static"]["vector"]["paraphrase"] / s["transformer"]["vector"]["paraphrase"]
            for s in encoder.values() if "paraphrase" in s["static"]["vector"]]
    agreement = [int(re.search(r"(\d+)% of top-10", s["build_log"])[1])
                 for s in encoder.values()]
    typing = [e["hybrid"] for s in results("readers_typing.json")["sets"].values()
              for e in s["encoders"].values()]
    slipped = [h["slipped"] / h["clean"] for h in typing]
    half = [h["half"] / h["complete"] for h in typing]
    layouts = results("query_rounds.json")["layouts"]
    encoders = {"static": layouts["partitioned, told the page's pieces hash"],
                "progressive": layouts["progressive, told the page's pieces hash"],
                "transformer": layouts["transformer"]}
    idle = encoders["progressive"]["idle"]
    fusion = results("fusion.json")["sets"]
    quality = results("compare.json")["scales"]["1"]["quality"]
    browser = {scale: results("compare.json")["scales"][scale]["browser"]
               for scale in ("1", "64")}

    def rounds_and_kb(doc: str, lead: str) -> list[Figure]:
        return [
            Figure(doc, rf"{lead} {N} rounds and about {N} kB",
                   (first_rounds, first_kb), "query_rounds.json: first query"),
            Figure(doc, rf"{N} rounds and about {N} kB at the median",
                   (warm_rounds, warm_kb), "query_rounds.json: warm p50"),
        ]

    return [
        # the first query, one figure everywhere
        *rounds_and_kb("README.md", "a first query takes"),
        Figure("README.md", rf"a first query in the browser on FastAPI's docs; a later one at "
               rf"the median \| {N} rounds, about {N} kB; {N} rounds, about {N} kB",
               (first_rounds, first_kb, warm_rounds, warm_kb), "query_rounds.json"),
        Figure("docs/index.md", rf"a first query takes {N} rounds and about {N} kB",
               (first_rounds, first_kb), "query_rounds.json: first query"),
        *rounds_and_kb("docs/getting-started.md", "a first query takes"),
        *rounds_and_kb("docs/limits.md", "a first query takes"),
        *rounds_and_kb("docs/how-it-works.md", "first query takes"),
        Figure("docs/browser.md", rf"takes \*\*{N} rounds and about {N} kB\*\*",
               (first_rounds, first_kb), "query_rounds.json: first query"),
        Figure("docs/browser.md", rf"a later query {N} rounds and about {N} kB at the median",
               (warm_rounds, warm_kb), "query_rounds.json: warm p50"),
        *[Figure("docs/browser.md", rf"\| `{name}` \|[^|]*\| {N} kB \|",
                 (kinds[kind],), f"query_rounds.json: first query, {kind}")
          for kind, name in (("manifest", "manifest.json"), ("catalog", r"catalog.<hash>.json"),
                             ("pages", r"pages/pages.<hash>.bin"))],
        *[Figure("docs/browser.md", rf"\| {label}[^|]*\|[^|]*\| {N} kB in {N} (?:files|requests)",
                 (kinds[kind], rounds["first"]["kinds"][kind]),
                 f"query_rounds.json: first query, {kind}")
          for kind, label in (("pieces", r"`pieces/s<char>"), ("table", r"`table/rows"),
                              ("lexical", r"`lexical/lex"), ("vectors", r"`vectors/ivf"),
                              ("fragments", r"`fragments/frags"))],
        # the three query encoders side by side
        *[Figure("docs/browser.md",
                 rf"\| `{name}` \| {N} rounds, {N} kB[^|]*\| {N} rounds?, {N} kB",
                 (e["first"]["rounds"], e["first"]["sent"] / 1000, e["warm_rounds_p50"],
                  e["warm_sent_p50"] / 1000), f"query_rounds.json: {name}")
          for name, e in encoders.items()],
        Figure("docs/browser.md", rf"\| {N} MB in idle time after the first answer",
               (idle["idleSent"] / 1e6,), "query_rounds.json: progressive, idle"),
        Figure("docs/browser.md", rf"The model's download is {N} MB where the host gzips",
               (idle["idleGzip"] / 1e6,), "query_rounds.json: progressive, idle"),
        Figure("docs/browser.md", rf"a query's forward pass took {N} ms at the median",
               (encoders["progressive"]["embed_ms_p50"],),
               "query_rounds.json: progressive, forward pass"),
        Figure("docs/browser.md", rf"\(\"Downloading the search model: {N} of {N} MB\"\)",
               (3.1, encoders["transformer"]["first"]["sent"] / 1e6),
               "query_rounds.json: transformer, first query"),
        Figure("CHANGELOG.md", rf"The model's download is {N} MB instead of 37.2 MB \({N} MB",
               (idle["idleSent"] / 1e6, idle["idleGzip"] / 1e6),
               "query_rounds.json: progressive, idle"),
        *[Figure("docs/browser.md", rf"\| {name} \| {N} \| {N} \|",
                 tuple(s["encoders"][e]["hybrid after"]["mrr@10"]["all"]
                       for e in ("static", "transformer")), f"fusion.json: {name}")
          for name, s in fusion.items()],
        Figure("docs/browser.md", rf"\| the search worker \|[^|]*\| {N} kB, once",
               (client["first_query"]["gzip"] / 1000,), "client_size.json: first_query"),
        Figure("docs/browser.md", rf"which Material starts, about {N} kB",
               (client["material_page"]["gzip"] / 1000,), "client_size.json: material_page"),
        Figure("docs/browser.md", rf"`semantic.css`, about {N} kB",
               (client["page"]["gzip"] / 1000,), "client_size.json: page"),
        # relevance
        Figure("README.md", rf"relevance on FastAPI's docs \(50 queries\)[^|]*\| {N} / {N}; {N} \|",
               (fastapi["static"]["hybrid"]["all"], fastapi["transformer"]["hybrid"]["all"],
                fastapi["floor"]["rrf"]["all"]), "static_encoder.json: fastapi"),
        Figure("README.md", rf"the static encoder against the model on thirteen sets[^|]*\| "
               rf"{N}x to {N}x; {N}x to {N}x",
               (min(vec), max(vec), min(hyb), max(hyb)), "static_encoder.json: ratios"),
        Figure("README.md", rf"its vector gets {N}x to {N}x of the model's there",
               (min(para), max(para)), "static_encoder.json: paraphrase ratios"),
        Figure("docs/search.md", rf"keeps {N}x to {N}x of the model's hybrid on ordinary docs",
               (min(hyb_ordinary), max(hyb_ordinary)), "static_encoder.json: hybrid ratios"),
        Figure("docs/search.md", rf"the static vector gets {N}x to {N}x of the model's on them",
               (min(para), max(para)), "static_encoder.json: paraphrase ratios"),
        Figure("docs/search.md", rf"Sites of short one-command pages suit it least \({N}x\)",
               (encoder["manshort"]["static"]["vector"]["all"]
                / encoder["manshort"]["transformer"]["vector"]["all"],),
               "static_encoder.json: manshort"),
        Figure("docs/search.md", rf"it spans only {N}-{N} %, while the static vector goes from "
               rf"{N}x to {N}x",
               (min(agreement), max(agreement), min(vec), max(vec)),
               "static_encoder.json: build_log, ratios"),
        Figure("README.md", rf"the last word cut in half against complete \| {N}x to {N}x; "
               rf"{N}x to {N}x",
               (min(slipped), max(slipped), min(half), max(half)), "readers_typing.json"),
        Figure("README.md", rf"\| paraphrases, page MRR@10 \| {N} \| {N} \| {N} \|",
               tuple(quality[k]["paraphrase"]["mrr@10"]
                     for k in ("material-browser", "pagefind-browser", "plugin-browser")),
               "compare.json: scales.1.quality"),
        Figure("README.md",
               rf"\| identifiers and exact phrases, page MRR@10 \| {N} \| {N} \| {N} \|",
               tuple(quality[k]["exact"]["mrr@10"]
                     for k in ("material-browser", "pagefind-browser", "plugin-browser")),
               "compare.json: scales.1.quality"),
        Figure("README.md", rf"search bytes every page load sends, 1x / 64x \| {N} kB / {N} MB:"
               rf"[^|]*\|[^|]*\| {N} kB / {N} kB",
               (browser["1"]["material"]["load_search_sent_bytes"] / 1000,
                browser["64"]["material"]["load_search_sent_bytes"] / 1e6,
                browser["1"]["plugin"]["load_search_sent_bytes"] / 1000,
                browser["64"]["plugin"]["load_search_sent_bytes"] / 1000),
               "compare.json: browser load_search_sent_bytes"),
        # the deploy
        Figure("README.md", rf"what a deploy carries beside Pagefind[^|]*\| {N} against {N}; "
               rf"{N} MB against {N} MB; {N} \({N} MB\) against {N} \({N} MB\)",
               (bundle["files"], pagefind["files"], bundle["bytes"] / 1e6,
                pagefind["bytes"] / 1e6, upload["bundle"]["files"],
                upload["bundle"]["bytes"] / 1e6, upload["pagefind"]["files"],
                upload["pagefind"]["bytes"] / 1e6), "deploy.json"),
        *[Figure("docs/deploy.md", rf"{lead}[^|]*\| \| this plugin's bundle \| Pagefind's "
                 rf"index \|\s*\| --- \| --- \| --- \|\s*\| files \| {N} \| {N} \|\s*\| bytes \| "
                 rf"{N} MB \| {N} MB \|\s*\| files to upload after a one-sentence edit of one "
                 rf"page \| {N} \({N} MB\) \| {N} \({N} MB\) \|",
                 (run["bundle"]["files"], run["pagefind"]["files"], run["bundle"]["bytes"] / 1e6,
                  run["pagefind"]["bytes"] / 1e6, run["edit_upload"]["bundle"]["files"],
                  run["edit_upload"]["bundle"]["bytes"] / 1e6,
                  run["edit_upload"]["pagefind"]["files"],
                  run["edit_upload"]["pagefind"]["bytes"] / 1e6), source)
          for lead, run, source in (
              (r"FastAPI's docs \(129 pages", deploy, "deploy.json"),
              (r"Debian's manual pages \(2,113 pages", results("deploy_manpages.json"),
               "deploy_manpages.json"))],
        # builds
        Figure("README.md", rf"first build of FastAPI's docs, empty cache;[^|]*\| {N} s; {N}x",
               (first["seconds"], no_change["ratio_to_plain"]), "build_times.json"),
        Figure("docs/how-it-works.md", rf"\(2,355 chunks\) took {N} s",
               (first["seconds"],), "build_times.json: first_static"),
        Figure("docs/how-it-works.md", rf"{N} s of it fitting the static query encoder's table, "
               rf"with a peak memory of {N} MB",
               (first["table_seconds"], first["peak_rss_mb"]), "build_times.json: first_static"),
        Figure("docs/how-it-works.md", rf"the longest silence in that FastAPI build was {N} s",
               (first["longest_silence_s"],), "build_times.json: first_static"),
        Figure("docs/getting-started.md", rf"empty cache took {N} s in all, and the next build "
               rf"with nothing changed {N} s",
               (first["seconds"], no_change["seconds"]), "build_times.json"),
        Figure("docs/github-pages.md", rf"\| plain `mkdocs build`, no plugin \| {N} s \|",
               (plain["seconds"],), "build_times.json: plain"),
        Figure("docs/github-pages.md",
               rf"\| first, empty cache \| {N} s \| {N} \| fitted: {N} texts and tokens "
               rf"embedded, {N} s",
               (first["seconds"], first["chunks"], first["table_embedded"],
                first["table_seconds"]), "build_times.json: first_static"),
        Figure("docs/github-pages.md", rf"\| next, nothing changed \| \*\*{N} s\*\*",
               (no_change["seconds"],), "build_times.json: no_change"),
        Figure("docs/github-pages.md", rf"\| next, one page edited \| {N} s \|[^|]*\| fitted: {N} "
               "texts", (edit["seconds"], edit["table_embedded"]),
               "build_times.json: one_page_edit"),
        Figure("docs/github-pages.md", rf"the browser client about {N} kB",
               (client["static_build"]["bytes"] / 1000,), "client_size.json: static_build"),
        Figure("docs/github-pages.md", rf"\*\*{N} MB\*\* as a gzip tar",
               (cache_tar,), "ci_cache.json: cache"),
        Figure("README.md", rf"as a gzip tar \| {N} MB", (cache_tar,), "ci_cache.json: cache"),
        Figure("README.md", rf"the int8 bundle \| {N} / {N} \|",
               (scifact["ndcg10_f32_exact"], scifact["ndcg10_i8_bundle"]), "scifact.json"),
        Figure("README.md", rf"its last run took {N} minutes",
               (results("compare.json")["seconds"] / 60,), "compare.json: seconds"),
    ]


def text(name: str) -> str:
    return (REPO / name).read_text(encoding="utf-8")


def check(figure: Figure) -> list[str]:
    """What is wrong with `figure`'s quotes: none found, or one that differs."""
    found = list(figure.regex().finditer(text(figure.doc)))
    if not found:
        return [f"{figure.doc} no longer quotes {figure.pattern!r}: quote it from "
                f"bench/results/{figure.source} again, or change the pattern in "
                "scripts/doc_figures.py"]
    problems = []
    for match in found:
        for quote, value in zip(match.groups(), figure.values, strict=True):
            if not same(quote, value):
                problems.append(f"{figure.doc} quotes {quote} where bench/results/"
                                f"{figure.source} has {shown(value, quote.replace(',', ''))} "
                                f"({value})")
    return problems


def write(figure: Figure) -> int:
    """Put the recorded values in place of `figure`'s stale quotes; how many changed."""
    path = REPO / figure.doc
    source = path.read_text(encoding="utf-8")
    changed = 0
    out, at = [], 0
    for match in figure.regex().finditer(source):
        for group, value in enumerate(figure.values, start=1):
            quote = match.group(group)
            if same(quote, value):
                continue
            out.append(source[at:match.start(group)])
            out.append(shown(value, quote))
            at = match.end(group)
            changed += 1
    if changed:
        path.write_text("".join(out) + source[at:], encoding="utf-8")
    return changed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--write", action="store_true",
                        help="put the recorded figure in place of each stale quote")
    args = parser.parse_args(argv)
    stale = 0
    for figure in figures():
        if args.write:
            if changed := write(figure):
                print(f"{figure.doc}: {changed} quote(s) from {figure.source} rewritten")
            continue
        problems = check(figure)
        stale += bool(problems)
        values = ", ".join(f"{v:g}" for v in figure.values)
        print(f"{'STALE' if problems else 'ok':5}  {figure.doc}: {values}  ({figure.source})")
        for problem in problems:
            print(f"       {problem}")
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
