"""Does `mkdocs-semantic serve` still answer while thousands of clients hold idle sockets?

Starts `mkdocs-semantic serve` on 127.0.0.1 (over the example site, built into a
temporary folder, or --site), then, for each scenario: opens IDLE connections that
send nothing and SLOW connections that send half a request head, and while they
are open times /search from new connections, as new readers would arrive. Records
whether every search answered 200 with results, their latencies (the target: each
within 1 s), how many idle sockets the server closed, and how much it logged, in
bench/results/slow_clients.{json,md}. Bounded: a fixed number of sockets and
requests, every socket closed at the end, every request with a 30 s timeout.

    python bench/slow_clients.py [--site SITE] [--searches 20]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import resource
import select
import socket
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request
from pathlib import Path

from results_file import write_results  # bench/results_file.py
from server_process import HOST, serve_process

HERE = Path(__file__).resolve().parent
TARGET_S = 1.0
QUERIES = ["make browsers fetch the new version after a deploy", "what does Vary do",
           "cache pages behind a login", "revalidate with an etag", "service worker cache"]
SCENARIOS = [  # (name, server open-file limit or None for this process's, idle, slow)
    ("15,000 idle + 1,000 slow sockets, server's limit as inherited", None, 15_000, 1_000),
    ("5,000 idle + 500 slow sockets, server limited to 1,024 files", 1024, 5_000, 500),
]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind((HOST, 0))
        return sock.getsockname()[1]


def build_example_site(into: Path) -> Path:
    project = into / "example-site"
    import shutil

    shutil.copytree(HERE.parent / "example-site", project)
    print("building the example site", file=sys.stderr)
    subprocess.run([sys.executable, "-m", "mkdocs", "build", "-q", "-f",
                    str(project / "mkdocs.yml"), "-d", str(project / "site")], check=True)
    return project / "site"


def server(site: Path, *, port: int, open_files: int | None, log: Path):
    command = [sys.executable, "-m", "mkdocs_semantic", "serve", str(site), "--host", HOST,
               "--port", str(port)]
    if open_files:
        launcher = ("import os, resource, sys; "
                    f"resource.setrlimit(resource.RLIMIT_NOFILE, ({open_files}, {open_files}));"
                    " os.execv(sys.executable, [sys.executable, *sys.argv[1:]])")
        command = [sys.executable, "-c", launcher, *command[1:]]
    return serve_process(command, port=port, log=log)


def search(port: int, query: str) -> tuple[float, str]:
    """Seconds to the full answer on a new connection, and what went wrong if anything."""
    url = f"http://{HOST}:{port}/search?" + urllib.parse.urlencode({"q": query, "k": 5})
    started = time.perf_counter()
    try:
        with urllib.request.urlopen(url, timeout=30) as response:
            body = json.loads(response.read())
            error = "" if response.status == 200 and body["results"] else "no results"
    except (OSError, ValueError) as exc:
        error = f"{type(exc).__name__}: {exc}"
    return time.perf_counter() - started, error


def open_sockets(port: int, count: int, *, send: bytes = b"") -> list[socket.socket]:
    socks = []
    for _ in range(count):
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setblocking(False)
        socks.append(sock)
        sock.connect_ex((HOST, port))
    if send:
        time.sleep(0.5)  # let the connects complete before writing to them
        for sock in socks:
            with contextlib.suppress(OSError):  # not connected yet: it stays idle
                sock.send(send)
    return socks


def closed_by_server(socks: list[socket.socket]) -> int:
    poller = select.poll()
    by_fd = {}
    for sock in socks:
        poller.register(sock, select.POLLIN)
        by_fd[sock.fileno()] = sock
    closed = 0
    for fd, _ in poller.poll(0):
        try:
            closed += by_fd[fd].recv(1, socket.MSG_PEEK) == b""
        except OSError:
            closed += 1
    return closed


def scenario(site: Path, *, name: str, open_files: int | None, idle: int, slow: int,
             searches: int, tmp: Path) -> dict:
    port = free_port()
    log = tmp / f"serve-{port}.log"
    with server(site, port=port, open_files=open_files, log=log):
        baseline = [search(port, QUERIES[i % len(QUERIES)]) for i in range(5)]
        started = time.monotonic()
        socks = open_sockets(port, idle)
        socks += open_sockets(port, slow, send=b"GET /search?q=slow HTTP/1.1\r\nHost: x\r\n")
        opened = time.monotonic() - started
        try:
            timed = [search(port, QUERIES[i % len(QUERIES)]) for i in range(searches)]
            closed = closed_by_server(socks)
        finally:
            for sock in socks:
                sock.close()
    text = log.read_text(encoding="utf-8", errors="replace")
    latencies = sorted(t for t, _ in timed)
    errors = [e for _, e in timed if e]
    return {
        "name": name, "server_open_files": open_files or "inherited",
        "idle_sockets": idle, "slow_sockets": slow,
        "seconds_to_open_them": round(opened, 2),
        "searches": searches, "errors": len(errors), "error_examples": errors[:3],
        "baseline_ms": round(1000 * sorted(t for t, _ in baseline)[2], 1),
        "latency_ms": {"p50": round(1000 * latencies[len(latencies) // 2], 1),
                       "max": round(1000 * latencies[-1], 1)},
        "within_target": not errors and latencies[-1] <= TARGET_S,
        "sockets_closed_by_server": closed,
        "server_log": {"bytes": len(text.encode()), "lines": len(text.splitlines())},
    }


def render(run: dict) -> str:
    rows = "\n".join(
        f"| {s['name']} | {s['searches'] - s['errors']}/{s['searches']} | "
        f"{s['baseline_ms']} | {s['latency_ms']['p50']} | {s['latency_ms']['max']} | "
        f"{'yes' if s['within_target'] else 'no'} | {s['sockets_closed_by_server']:,} | "
        f"{s['server_log']['lines']} lines, {s['server_log']['bytes']:,} B |"
        for s in run["scenarios"])
    return f"""# Slow and idle clients against `mkdocs-semantic serve`

Reproduce: `python bench/slow_clients.py` (builds the example site, then about a
minute). Server and clients share this machine ({run['machine']['cores']} cores,
load average {run['machine']['loadavg_before']} before the run), over loopback.
Default `serve` settings: {run['defaults']}.

Each scenario opens the idle sockets (connect, send nothing) and the slow ones
(half a request head), then, while they are all open, sends {run['searches']}
searches one after another, each on a new connection. Target: every search
answers 200 with results within {TARGET_S:g} s.

| scenario | answered | before p50 ms | during p50 ms | during max ms | within 1 s \
| sockets closed by the server | server log |
|---|---|---|---|---|---|---|---|
{rows}

The server closes the sockets that waited longest for a request once it holds
`--max-connections` (1,000) of them, and any that has not sent a whole request head
within `--header-timeout` (10 s); repeated log lines are rate-limited. Before these
limits, about 2,000 idle sockets used up a server's 2,048 files and it stopped
accepting connections at all (see `tests/apps/test_service.py`).

When the server cannot raise its open-file limit far enough (the second scenario:
hard limit 1,024), it lowers its connection cap and its listen backlog to fit
(448 and 112 there). Searches still answer, but while the flood fills that short
queue the kernel drops new connection attempts (the server logged no accept
errors), and a client's retry after about
1 s is what the slowest search waited for. Give the server a higher `ulimit -n`.
"""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--site", type=Path, help="an already built site with a bundle")
    parser.add_argument("--searches", type=int, default=20)
    parser.add_argument("--out", type=Path, default=HERE / "results")
    args = parser.parse_args()
    need = max(idle + slow for _, _, idle, slow in SCENARIOS) + 512
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and hard < need:
        raise SystemExit(f"this benchmark opens {need} sockets; the hard open-file limit is "
                         f"{hard}")
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, need), hard))
    if not 1 <= args.searches <= 200:
        parser.error("keep --searches within 1-200")

    from mkdocs_semantic.apps.limits import ConnectionLimits

    with tempfile.TemporaryDirectory() as tmp:
        site = args.site or build_example_site(Path(tmp))
        load_before = [round(x, 2) for x in os.getloadavg()]
        results = [scenario(site, name=name, open_files=files, idle=idle, slow=slow,
                            searches=args.searches, tmp=Path(tmp))
                   for name, files, idle, slow in SCENARIOS]
    defaults = ConnectionLimits()
    run = {
        "machine": {"cores": os.cpu_count(), "python": platform.python_version(),
                    "loadavg_before": load_before},
        "defaults": (f"--max-connections {defaults.max_connections}, --header-timeout "
                     f"{defaults.header_timeout:g} s, --keep-alive-timeout "
                     f"{defaults.keep_alive_timeout:g} s, backlog {defaults.backlog}"),
        "searches": args.searches,
        "target_s": TARGET_S,
        "scenarios": results,
    }
    write_results(args.out, "slow_clients", run, render(run))
    return 0 if all(s["within_target"] for s in results) else 1


if __name__ == "__main__":
    raise SystemExit(main())
