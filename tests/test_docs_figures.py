"""What the README and the docs tell a new user holds: a figure they quote from
`bench/results/` is the one recorded there, the install lines work for a package that
has no release yet, and the demo's port is the one `scripts/demo` reads."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from mkdocs_semantic.indexing.indexer import human_bytes
from mkdocs_semantic.plugin import theme

REPO = Path(__file__).resolve().parent.parent
RESULTS = REPO / "bench" / "results"
DOCS = ["README.md", *sorted(f"docs/{p.name}" for p in (REPO / "docs").glob("*.md"))]

RELEASED = False
"""Whether a release of mkdocs-semantic-search is on a package index. Until then the
docs install it from a clone or from the repository's URL; at the first release, set
this and give the plain `pip install mkdocs-semantic-search` again."""
PACKAGE = "mkdocs-semantic-search"


def results(name: str) -> dict:
    return json.loads((RESULTS / name).read_text(encoding="utf-8"))


BUILDS = results("build_times.json")["runs"]
CI_CACHE = results("ci_cache.json")
CLIENT = results("client_size.json")
COMPARE = results("compare.json")["scales"]


def text(name: str) -> str:
    return (REPO / name).read_text(encoding="utf-8")


def quotes(name: str, pattern: str) -> list[str]:
    found = re.findall(pattern, " ".join(text(name).split()))  # wherever lines break
    assert found, (f"{name} no longer quotes the figure this test looks for ({pattern!r}): "
                   "quote it from bench/results/ again, or change the pattern here")
    return found


def same(quote: str, value: float) -> bool:
    """`quote` is `value` rounded to the digits the quote shows."""
    quote = quote.replace(",", "")
    digits = len(quote.split(".")[1]) if "." in quote else 0
    return float(quote) == round(value, digits)


def added(builds: dict, build: str) -> float:
    """How many times a plain build's time the build `build` added to it."""
    plain = builds["plain"]["seconds"]
    return (builds[build]["seconds"] - plain) / plain


NUMBER = r"(\d[\d,]*(?:\.\d+)?)"
# (file, what precedes and follows the figure, the recorded value, where it is recorded)
FIGURES = [
    ("README.md", rf"first build of fastapi-docs[^|]*\| {NUMBER} s against",
     BUILDS["first_static"]["seconds"], "build_times.json: first_static"),
    ("docs/how-it-works.md", rf"\(2,355 chunks\) took {NUMBER} s",
     BUILDS["first_static"]["seconds"], "build_times.json: first_static"),
    ("docs/getting-started.md", rf"empty cache \({NUMBER} s in all\)",
     BUILDS["first_static"]["seconds"], "build_times.json: first_static"),
    ("docs/getting-started.md", rf"nothing changed \({NUMBER} s in all",
     BUILDS["no_change"]["seconds"], "build_times.json: no_change"),
    ("README.md", rf"rebuild with nothing changed, ratio to plain `mkdocs build` \| {NUMBER}x",
     BUILDS["no_change"]["ratio_to_plain"], "build_times.json: no_change"),
    ("docs/github-pages.md", rf"\| plain `mkdocs build`, no plugin \| {NUMBER} s \|",
     BUILDS["plain"]["seconds"], "build_times.json: plain"),
    ("docs/github-pages.md", rf"\| first, empty cache \| {NUMBER} s \|",
     BUILDS["first_static"]["seconds"], "build_times.json: first_static"),
    ("docs/github-pages.md", rf"first, empty cache \|[^|]*\|[^|]*\| fitted: [\d,]+ texts and "
     rf"tokens embedded, {NUMBER} s",
     BUILDS["first_static"]["table_seconds"], "build_times.json: first_static"),
    ("docs/github-pages.md", rf"\| next, nothing changed \| \*\*{NUMBER} s\*\*",
     BUILDS["no_change"]["seconds"], "build_times.json: no_change"),
    ("docs/github-pages.md", rf"\| next, one page edited \| {NUMBER} s \|",
     BUILDS["one_page_edit"]["seconds"], "build_times.json: one_page_edit"),
    ("docs/github-pages.md", rf"\| next, one page edited \|[^|]*\|[^|]*\| fitted: {NUMBER} "
     "texts", BUILDS["one_page_edit"]["table_embedded"], "build_times.json: one_page_edit"),
    ("docs/github-pages.md", rf"the browser client about {NUMBER} kB",
     CLIENT["static_build"]["bytes"] / 1000, "client_size.json: static_build"),
    ("docs/github-pages.md", rf"\*\*{NUMBER} MB\*\* as a gzip tar",
     CI_CACHE["cache"]["tar_gz_bytes"] / 1e6, "ci_cache.json: cache"),
    ("README.md", rf"the cache {NUMBER} MB as a gzip tar",
     CI_CACHE["cache"]["tar_gz_bytes"] / 1e6, "ci_cache.json: cache"),
    ("README.md", rf"table is fitted again added {NUMBER} times a plain build's time at 64x",
     added(COMPARE["64"]["builds"], "semantic"), "compare.json: scales.64"),
    ("README.md", rf"embeds every chunk as well, added {NUMBER} times a plain build's time at 1x",
     added(BUILDS, "first_static"), "build_times.json: first_static"),
]


@pytest.mark.parametrize("name, pattern, value, source", FIGURES,
                         ids=[f"{f[0]}: {f[3]}" for f in FIGURES])
def test_a_quoted_figure_is_the_one_its_bench_recorded(name, pattern, value, source):
    for quote in quotes(name, pattern):
        if "about" in pattern:  # a rounded figure: "about 210 kB" for 211.5 kB
            assert abs(float(quote) - value) <= 0.05 * value, (
                f"{name} says about {quote} where bench/results/{source} has {value}")
        else:
            assert same(quote, value), (
                f"{name} quotes {quote} where bench/results/{source} has {value}: "
                "quote the recorded figure")


def test_the_rebuild_with_nothing_changed_is_given_one_way():
    """However a doc words it, a build with nothing to embed takes the ratio that
    build_times measured, not the figure of an older run or another kind of build."""
    ratio = BUILDS["no_change"]["ratio_to_plain"]
    pattern = r"nothing (?:changed|to embed)(?:[^.|]|\.\d)*?(\d+(?:\.\d+)?)(?:x\b|\s+times)"
    found = {name: re.findall(pattern, text(name)) for name in DOCS}
    assert any(found.values())
    for name, ratios in found.items():
        for quote in ratios:
            assert same(quote, ratio), (
                f"{name} gives a rebuild with nothing changed as {quote} times a plain build; "
                f"bench/results/build_times.json has {ratio}")


def test_the_sample_build_log_lines_are_ones_a_bench_recorded():
    recorded = {run["log"] for run in BUILDS.values() if "log" in run}
    recorded |= {run["log"] for run in results("deploy.json")["builds"].values()
                 if run.get("log")}
    for name in DOCS:
        for line in re.findall(r"^INFO +-  (semantic: 129 pages, .*; bundle .*)$", text(name),
                               re.M):
            assert line in recorded, (
                f"{name} shows the build log line {line!r}, which no run of "
                "bench/results/build_times.json or deploy.json logged: copy one of their "
                "`log` lines")


def test_the_quoted_client_size_is_the_client_a_static_build_copies():
    try:
        client = theme.ClientAssets.load()
    except theme.ClientError as exc:
        pytest.fail(f"build the client first: {exc}")
    size = sum((client.root / name).stat().st_size for name in client.files
               if not name.startswith(theme.RUNTIME_PREFIX))
    (quote,) = set(quotes("docs/github-pages.md", r"the browser client about (\d+) kB"))
    assert abs(int(quote) * 1000 - size) <= 0.1 * size, (
        f"docs/github-pages.md says the client is about {quote} kB; it is "
        f"{human_bytes(size)} now: measure it again with bench/client_size.py")


def install_lines(name: str) -> list[str]:
    return [line.strip() for line in text(name).splitlines()
            if re.search(rf"pip install.*{PACKAGE}|^\s*{PACKAGE}\s*(?:[=<>~!]=|@|\[|$)", line)]


@pytest.mark.skipif(RELEASED, reason="the package is on an index")
def test_no_doc_installs_the_package_from_an_index_before_its_first_release():
    """`pip install mkdocs-semantic-search` fails until a release is published. An extra
    (`mkdocs-semantic-search[serve]`) is fine: pip adds it to the installed package."""
    for name in DOCS:
        for line in install_lines(name):
            for match in re.finditer(rf"{PACKAGE}(?P<after>\S*)(?P<at>\s*@)?", line):
                after, at = match["after"], match["at"]
                if match.start() and line[match.start() - 1] in "/.-":
                    continue  # a path or URL that ends with the name
                assert at or after.startswith("["), (
                    f"{name}: {line!r} installs {PACKAGE} from a package index, where it is "
                    "not published: install it from a clone or the repository's URL")


@pytest.mark.skipif(RELEASED, reason="the package is on an index")
@pytest.mark.parametrize("name", ["README.md", "docs/index.md", "docs/getting-started.md",
                                  "docs/github-pages.md"])
def test_the_install_from_the_repository_says_what_it_needs(name):
    doc = text(name)
    assert re.search(rf"{PACKAGE} @ git\+", doc), f"{name}: no install from the repository"
    assert "Node.js 20" in doc, f"{name}: the client's build needs Node.js 20+, say so"


def test_the_readme_gives_the_port_scripts_demo_reads():
    (default,) = re.findall(r"\$\{PORT:-(\d+)\}", text("scripts/demo"))
    quick_start = text("README.md").split("## Quick start", 1)[1].split("\n## ", 1)[0]
    assert "PORT=" in quick_start and f"127.0.0.1:{default}" in quick_start


ENCODER_SETS = results("static_encoder.json")["sets"]
SET_LABELS = {"FastAPI": "fastapi", "MkDocs docs": "mkdocs", "SciFact (nDCG@10)": "scifact",
              "Debian manual pages": "manpages", "short command pages": "manshort",
              "npm CLI manual": "npm", "PostgreSQL manual": "postgres",
              "Python docs": "python", "Apache HTTP Server manual": "apache",
              "SQLite docs": "sqlite", "Django docs": "django", "Sphinx docs": "sphinx",
              "SQLAlchemy docs": "sqlalchemy"}


def test_the_static_against_model_table_is_the_recorded_run():
    """docs/search.md's table of the static encoder against the model, set by set, quotes
    bench/results/static_encoder.json: vector, paraphrases' vector and hybrid, each
    static / model, and the floor."""
    section = text("docs/search.md").split("## How close the static encoder comes")[1]
    section = section.split("\n## ")[0]
    rows = dict(re.findall(r"^\| ([^|]+?) \| \d+ \| (.*) \|$", section, re.M))
    assert set(rows) == set(SET_LABELS), sorted(rows)
    for label, cells in rows.items():
        s = ENCODER_SETS[SET_LABELS[label]]
        static, model = s["static"], s["transformer"]
        wanted = [(static["vector"]["all"], model["vector"]["all"])]
        if "paraphrase" in s["groups"]:
            wanted.append((static["vector"]["paraphrase"], model["vector"]["paraphrase"]))
        wanted.append((static["hybrid"]["all"], model["hybrid"]["all"]))
        quoted = re.findall(r"(\d\.\d{3}) / (\d\.\d{3})", cells)
        assert len(quoted) == len(wanted), (label, cells)
        for (a, b), (x, y) in zip(quoted, wanted):
            assert same(a, x) and same(b, y), f"{label}: {a} / {b} where the run has {x} / {y}"
        floor = cells.split("|")[-2].strip()
        assert same(floor, s["floor"]["rrf"]["all"]), (label, floor)


def test_the_slips_table_in_search_md_is_the_recorded_typing_run():
    recorded = results("readers_typing.json")["sets"]
    text = (REPO / "docs" / "search.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| (\w+) \| (static|transformer) \| ([\d.]+) → ([\d.]+) "
                      r"\| ([\d.]+) → ([\d.]+) \|$", text, flags=re.MULTILINE)
    assert len(rows) == 2 * len(recorded)
    for name, encoder, *shown in rows:
        h = recorded[name]["encoders"][encoder]["hybrid"]
        ratios = [h["slipped_as_typed"] / h["clean_as_typed"], h["slipped"] / h["clean"],
                  h["half_as_typed"] / h["complete_as_typed"], h["half"] / h["complete"]]
        assert [f"{r:.2f}" for r in ratios] == shown, (name, encoder)


def portal_rows(recorded: dict) -> list[str]:
    """docs/portal.md's relevance rows, from bench/results/portal.json."""
    rows = []
    for name, s in recorded["sets"].items():
        index, db = (recorded["backends"][k]["sets"][name] for k in ("index", "db"))
        rows.append(f"| {name} | {s['metric']} | {s['chunks']:,} | {s['bundle_reader']:.3f} | "
                    f"{index['served']:.3f} | {index['recall_at_10']:.3f} | {db['served']:.3f} | "
                    f"{db['recall_at_10']:.3f} |")
    return rows


def test_the_portal_figures_are_the_recorded_run():
    recorded = results("portal.json")
    page = text("docs/portal.md")
    for row in portal_rows(recorded):
        assert row in page, f"docs/portal.md lacks the recorded row {row!r}"
    backends = recorded["backends"]
    for kind, label in (("index", "`--index`"), ("db", "`--db`")):
        b = backends[kind]
        line = (f"| {label} | {b['load']['seconds']:.0f} s | {b['bytes'] / 1e6:.0f} MB | "
                f"{b['latency_site']['p50_ms']:.0f} / {b['latency_site']['p95_ms']:.0f} ms | "
                f"{b['latency_every_site']['p50_ms']:.0f} / "
                f"{b['latency_every_site']['p95_ms']:.0f} ms | {b['rss_mb']:.0f} MB |")
        assert line in page, f"docs/portal.md lacks the recorded line {line!r}"
