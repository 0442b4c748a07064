"""Load test of `mkdocs-semantic serve` on the fastapi-docs bundle, over loopback only.

Builds ../shared/corpora/fastapi-docs with `plugins: [search, semantic]` into a
temporary folder (or takes --site, an already built site), starts
`mkdocs-semantic serve` on 127.0.0.1 with a free port, then runs N concurrent
clients (stdlib threads, one keep-alive connection each) for a fixed time over a
fixed list of questions. Records throughput, latency percentiles and errors in
bench/results/load_service.{json,md}. Bounded: it stops by itself after
--seconds, and every client also stops after --max-requests.

    python bench/load_service.py [--clients 16] [--seconds 30] [--workers 2] [--threads 1]
                                 [--query-encoder static|transformer]

The server embeds queries with the model unless `--query-encoder static`.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import platform
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
from pathlib import Path

from results_file import write_results  # bench/results_file.py
from server_process import HOST, serve_process

HERE = Path(__file__).resolve().parent
TARGET_P95_MS = 100.0
QUERIES = [
    "run code when the application starts",
    "how do I read a cookie",
    "upload a large file",
    "return a custom status code",
    "validate the request body",
    "add a header to every response",
    "dependency that needs a database session",
    "protect an endpoint with a password",
    "oauth2 with bearer tokens",
    "serve static files",
    "run background work after the response is sent",
    "test my API",
    "deploy with docker",
    "behind a proxy with a path prefix",
    "enable CORS for my frontend",
    "stream a large response",
    "websocket chat",
    "query parameters with a default value",
    "optional path parameter",
    "how to use pydantic models for responses",
    "hide fields from the response",
    "handle errors and return JSON",
    "override a dependency in tests",
    "set cookies on the response",
    "accept form data from an HTML form",
    "generate the OpenAPI schema",
    "add examples to the docs",
    "async or sync path operation functions",
    "run with multiple worker processes",
    "use HTTPS in production",
    "settings from environment variables",
    "split the app into multiple files",
    "middleware that measures request time",
    "return HTML instead of JSON",
    "GraphQL",
    "sub applications mounted at a path",
    "Cache-Control headers",
    "list of items in the request body",
    "limit the number of results with pagination",
    "what is an ASGI server",
]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind((HOST, 0))
        return sock.getsockname()[1]


def build_site(corpus: Path, into: Path) -> Path:
    project = into / "fastapi-docs"
    shutil.copytree(corpus, project)
    config = project / "mkdocs.yml"
    text = config.read_text(encoding="utf-8")
    if "\n  - search\n" not in text:
        raise SystemExit(f"expected '  - search' under plugins: in {config}")
    config.write_text(text.replace("\n  - search\n", "\n  - search\n  - semantic\n"),
                      encoding="utf-8")
    print("building fastapi-docs with the semantic plugin (about 75 s)", file=sys.stderr)
    subprocess.run([sys.executable, "-m", "mkdocs", "build", "-q", "-f", str(config),
                    "-d", str(project / "site")], check=True)
    return project / "site"


def server(site: Path, *, port: int, workers: int, threads: int, encoder: str | None):
    return serve_process(
        [sys.executable, "-m", "mkdocs_semantic", "serve", str(site), "--host", HOST,
         "--port", str(port), "--workers", str(workers), "--threads", str(threads),
         *(["--query-encoder", encoder] if encoder else [])],
        port=port)


def health(port: int) -> dict:
    conn = http.client.HTTPConnection(HOST, port, timeout=30)
    try:
        conn.request("GET", "/health")
        return json.loads(conn.getresponse().read())
    finally:
        conn.close()


def client(port: int, *, offset: int, until: float, max_requests: int, k: int,
           latencies: list[float], errors: list[str], took: list[float]) -> None:
    """One simulated user: a keep-alive connection, questions in turn, no think time."""
    conn = http.client.HTTPConnection(HOST, port, timeout=30)
    for i in range(max_requests):
        if time.monotonic() >= until:
            break
        query = QUERIES[(offset + i) % len(QUERIES)]
        path = "/search?" + urllib.parse.urlencode({"q": query, "k": k})
        started = time.perf_counter()
        try:
            conn.request("GET", path)
            response = conn.getresponse()
            body = response.read()
            elapsed = time.perf_counter() - started
            answer = json.loads(body) if response.status == 200 else {}
            if not answer.get("results"):
                errors.append(f"HTTP {response.status} for {query!r}")
            else:
                latencies.append(elapsed)
                took.append(answer["took_ms"] / 1000)
        except (OSError, http.client.HTTPException, ValueError) as exc:
            errors.append(f"{type(exc).__name__}: {exc}")
            conn.close()
            conn = http.client.HTTPConnection(HOST, port, timeout=30)
    conn.close()


def percentile(sorted_values: list[float], q: float) -> float:
    if not sorted_values:
        return float("nan")
    index = min(len(sorted_values) - 1, max(0, round(q / 100 * len(sorted_values)) - 1))
    return sorted_values[index]


def load(port: int, *, clients: int, seconds: float, max_requests: int, k: int) -> dict:
    for query in QUERIES[:8]:  # warm-up, not measured
        client(port, offset=QUERIES.index(query), until=time.monotonic() + 5, max_requests=1,
               k=k, latencies=[], errors=[], took=[])
    latencies: list[float] = []
    errors: list[str] = []
    took: list[float] = []
    started = time.monotonic()
    until = started + seconds
    threads = [threading.Thread(target=client, args=(port,), kwargs={
        "offset": i * 7, "until": until, "max_requests": max_requests, "k": k,
        "latencies": latencies, "errors": errors, "took": took}) for i in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    wall = time.monotonic() - started
    ordered = sorted(latencies)
    searching = sorted(took)
    return {
        "requests": len(latencies) + len(errors),
        "errors": len(errors),
        "error_examples": errors[:5],
        "seconds": round(wall, 2),
        "throughput_rps": round(len(latencies) / wall, 1),
        "latency_ms": {name: round(percentile(ordered, q) * 1000, 1)
                       for name, q in (("p50", 50), ("p95", 95), ("p99", 99), ("max", 100))},
        "search_ms": {name: round(percentile(searching, q) * 1000, 1)
                      for name, q in (("p50", 50), ("p95", 95))},
    }


def render(run: dict) -> str:
    lat = run["latency_ms"]
    verdict = "met" if lat["p95"] < TARGET_P95_MS else "not met"
    return f"""# Load test of `mkdocs-semantic serve` (fastapi-docs bundle)

Reproduce: `python bench/load_service.py` (builds the site, ~75 s, then loads it
for {run['config']['seconds']} s). Server and clients share this machine
({run['machine']['cores']} cores), over loopback; read the figures as a floor.

| setting | value |
|---|---|
| bundle | {run['bundle']['pages']} pages, {run['bundle']['chunks']} chunks |
| server | {run['config']['workers']} uvicorn workers, {run['config']['threads']} onnxruntime \
thread(s) each |
| query encoder | {run['query_encoder']} |
| clients | {run['config']['clients']} concurrent, keep-alive, no think time |
| queries | {len(QUERIES)} questions in turn, default (hybrid) mode, k={run['config']['k']} |

| figure | value |
|---|---|
| requests | {run['requests']} in {run['seconds']} s |
| throughput | {run['throughput_rps']} requests/s |
| latency p50 | {lat['p50']} ms |
| latency p95 | {lat['p95']} ms (target < {TARGET_P95_MS:.0f} ms: {verdict}) |
| latency p99 | {lat['p99']} ms |
| latency max | {lat['max']} ms |
| errors | {run['errors']} |
| time inside search (server's took_ms) | p50 {run['search_ms']['p50']} ms, \
p95 {run['search_ms']['p95']} ms |
| load average before the run | {run['machine']['loadavg_before']} |

With closed-loop clients and no think time, latency is clients / throughput
(Little's law): {run['config']['clients']} clients at {run['throughput_rps']} requests/s \
wait {1000 * run['config']['clients'] / max(run['throughput_rps'], 0.1):.0f} ms on average. \
Below {TARGET_P95_MS:.0f} ms at the 95th percentile needs well over \
{1000 * run['config']['clients'] / TARGET_P95_MS:.0f} requests/s: more cores or more \
replicas (the service is stateless), not a faster single request alone.
"""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path,
                        default=HERE.parent.parent / "shared/corpora/fastapi-docs")
    parser.add_argument("--site", type=Path, help="an already built site with a bundle")
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--max-requests", type=int, default=20_000,
                        help="per client, a second bound besides --seconds")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("-k", type=int, default=10)
    parser.add_argument("--query-encoder", choices=("static", "transformer"),
                        help="what the server embeds queries with (default: its own default)")
    parser.add_argument("--out", type=Path, default=HERE / "results")
    args = parser.parse_args()
    if not 1 <= args.clients <= 64 or not 1 <= args.seconds <= 600:
        parser.error("keep --clients within 1-64 and --seconds within 1-600")

    with tempfile.TemporaryDirectory() as tmp:
        site = args.site or build_site(args.corpus, Path(tmp))
        load_before = os.getloadavg()
        manifest = json.loads(next(site.glob("*/manifest.json")).read_text(encoding="utf-8"))
        port = free_port()
        with server(site, port=port, workers=args.workers, threads=args.threads,
                    encoder=args.query_encoder):
            encoder = health(port)["query_encoder"]
            run = load(port, clients=args.clients, seconds=args.seconds,
                       max_requests=args.max_requests, k=args.k)
    run = {
        "config": {"clients": args.clients, "seconds": args.seconds, "workers": args.workers,
                   "threads": args.threads, "k": args.k, "max_requests": args.max_requests},
        "machine": {"cores": os.cpu_count(), "python": platform.python_version(),
                    "loadavg_before": [round(x, 2) for x in load_before]},
        "bundle": manifest["counts"],
        "query_encoder": encoder,
        "target_p95_ms": TARGET_P95_MS,
        **run,
    }
    write_results(args.out, "load_service", run, render(run))
    return 0 if run["errors"] == 0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
