"""Build the `man-pages` corpus: Debian's manual pages, one Markdown page each.

Downloads Debian packages (`apt-get download`, no root needed; run `apt-get update`
first on a fresh machine) and pandoc (the static binary in PyPI's `pypandoc_binary`
wheel), unpacks each package with `dpkg-deb -x`, and converts every manual page of
sections 1 and 8 (commands; from all the packages below) and 2 and 3 (system calls
and C library functions; from `manpages-dev`) to `docs/man<N>/<name>.md`: mandoc
(Debian's, unpacked the same way) renders the roff to HTML, pandoc turns that into
Markdown. A page is its name as the title (`# tar`), its NAME line as the first
paragraph, then the page as it is, cut after ~3,000 words. Aliases (symlinks, `.so`
stubs, hard links) are skipped; a name met again in a section keeps the first
package's page.

    python bench/corpora/manpages.py [--out bench/.cache/man-pages/source]

Downloads stay in bench/.cache/man-pages/downloads (reused); the project's
SOURCES.md records each package's version and licence.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import (
    CACHE,
    FENCE,
    PANDOC_SOURCE,
    Source,
    cap_words,
    html_to_markdown,
    log,
    pandoc_binary,
    run,
    sources_table,
    write_project,
)

NAME = "man-pages"
# Commands: sections 1 and 8 of these, in this order (the first page of a name wins).
COMMAND_PACKAGES = (
    "coreutils", "findutils", "grep", "sed", "gawk", "diffutils", "patch", "tar", "gzip",
    "bzip2", "xz-utils", "zstd", "zip", "unzip", "cpio", "less", "file", "util-linux",
    "util-linux-extra", "mount", "fdisk", "bsdutils", "bsdextrautils", "procps", "psmisc",
    "iproute2", "iputils-ping", "iputils-tracepath", "net-tools", "traceroute",
    "bind9-dnsutils", "netcat-openbsd", "socat", "whois", "openssh-client",
    "openssh-server", "rsync", "curl", "wget", "git-man", "man-db", "e2fsprogs",
    "dosfstools", "parted", "lvm2", "mdadm", "cryptsetup-bin", "kmod", "lsof", "strace",
    "sudo", "passwd", "login", "adduser", "cron", "systemd", "udev", "apt", "dpkg",
    "debianutils", "hostname", "openssl", "gpg", "gpgv", "tmux", "screen", "make",
    "binutils", "jq", "sqlite3", "nftables", "iptables", "tcpdump", "ethtool", "sysstat",
    "time", "ncurses-bin", "gettext-base", "bash", "dash", "xfsprogs", "btrfs-progs",
    "postfix", "nfs-common", "cifs-utils", "acl", "attr", "quota", "bc", "ed", "perl",
    "gnupg-utils", "gpg-agent", "dirmngr", "gpgsm", "ldap-utils", "postgresql-client-15",
    "qemu-utils", "wireguard-tools", "iw", "autoconf", "automake",
)
FUNCTION_PACKAGE = "manpages-dev"
RENDERER = "mandoc"
# Licences read by hand from the copyright files that are not machine-readable (or are
# a link to another package's folder); the rest come from `Files: *` in the file.
LICENCES = {
    "patch": "GPL-3+", "zip": "Info-ZIP", "unzip": "Info-ZIP", "openssh-server": "OpenSSH",
    "wget": "GPL-3+", "parted": "GPL-3+", "kmod": "GPL-2+ (tools), LGPL-2.1+ (library)",
    "strace": "LGPL-2.1+", "binutils": "GPL-3+", "tcpdump": "BSD-3-clause",
    "gettext-base": "GPL-3+", "nfs-common": "GPL-2+", "quota": "GPL-2+", "socat": "GPL-2",
    "whois": "GPL-2", "postfix": "EPL-2.0 or IPL-1.0", "qemu-utils": "GPL-2",
    "manpages-dev": "per page: verbatim, GPL-2+, BSD and others (Linux man-pages)",
}
HEADING = re.compile(r"^(#{1,5}) ")


@dataclass(frozen=True)
class ManPage:
    package: str
    section: str
    name: str
    path: Path

    @property
    def rel(self) -> str:
        return f"man{self.section}/{self.name}.md"


# --- downloads ------------------------------------------------------------------------

def download_debs(packages: list[str], into: Path) -> dict[str, Path]:
    """Each package's .deb in `into`, fetched with `apt-get download` if not there yet."""
    into.mkdir(parents=True, exist_ok=True)
    missing = [p for p in packages if not list(into.glob(f"{p}_*.deb"))]
    if missing:
        log(f"{NAME}: apt-get download {len(missing)} packages")
        run(["apt-get", "download", *missing], cwd=into)
    debs = {}
    for package in packages:
        found = sorted(into.glob(f"{package}_*.deb"))
        if not found:
            raise SystemExit(f"{package}: no .deb after apt-get download (apt-get update?)")
        debs[package] = found[-1]
    return debs


def deb_licence(root: Path, package: str) -> str:
    """The licence of `Files: *` in the package's Debian copyright file (DEP-5), else
    one read by hand (LICENCES), else the first `License:` line, else a pointer."""
    if package in LICENCES:
        return LICENCES[package]
    path = root / "usr" / "share" / "doc" / package / "copyright"
    if not path.is_file():
        return "see its Debian copyright file"
    text = path.read_text(encoding="utf-8", errors="replace")
    for paragraph in re.split(r"\n\s*\n", text):
        if re.search(r"^Files:\s*\*\s*$", paragraph, re.M):
            found = re.search(r"^License:\s*(.+)$", paragraph, re.M)
            if found:
                return found.group(1).strip()
    found = re.search(r"^License:\s*(.+)$", text, re.M)
    return found.group(1).strip() if found else "see its Debian copyright file"


def unpack(debs: dict[str, Path], into: Path) -> list[Source]:
    sources = []
    for package, deb in debs.items():
        root = into / package
        if not root.exists():
            root.mkdir(parents=True)
            run(["dpkg-deb", "-x", str(deb), str(root)])
        version = run(["dpkg-deb", "-f", str(deb), "Version"]).strip()
        sources.append(Source("Debian", package, version, deb_licence(root, package)))
    return sources


# --- pages ----------------------------------------------------------------------------

def is_alias(path: Path) -> bool:
    if path.is_symlink():
        return True
    with gzip.open(path, "rt", encoding="utf-8", errors="replace") as f:
        lines = [ln for ln in f.read(4000).splitlines()
                 if ln.strip() and not ln.startswith(('.\\"', "'\\\""))]
    return len(lines) <= 2 and any(ln.startswith(".so ") for ln in lines)


def find_pages(unpacked: Path, packages: list[tuple[str, tuple[str, ...]]]) -> list[ManPage]:
    """Every real manual page of the wanted sections, first package wins a name."""
    pages: dict[tuple[str, str], ManPage] = {}
    for package, sections in packages:
        for section in sections:
            folder = unpacked / package / "usr" / "share" / "man" / f"man{section}"
            for page in distinct(package, section, folder):
                pages.setdefault((section, page.name), page)
    return list(pages.values())


def distinct(package: str, section: str, folder: Path) -> list[ManPage]:
    """The folder's pages less aliases; of hard-linked copies (same bytes), the one
    named in the page's .TH/.Dt line, else the shortest name."""
    by_content: dict[bytes, list[ManPage]] = {}
    for path in sorted(folder.glob("*.gz")) if folder.is_dir() else []:
        if is_alias(path):
            continue
        name = path.name[: -len(".gz")].rsplit(".", 1)[0]
        page = ManPage(package, section, name, path)
        by_content.setdefault(hashlib.sha256(path.read_bytes()).digest(), []).append(page)
    return [min(group, key=lambda p: (not titled(p), len(p.name), p.name))
            for group in by_content.values()]


def titled(page: ManPage) -> bool:
    source = gzip.decompress(page.path.read_bytes()).decode("utf-8", errors="replace")
    found = re.search(r'^\.(?:TH|Dt)\s+"?([^\s"]+)', source, re.M)
    return bool(found) and found.group(1).lower() == page.name.lower()


def to_markdown(page: ManPage, mandoc: Path, pandoc: Path) -> str | None:
    """The page as Markdown: `# name`, the NAME line, the rest with headings one level
    down; None where the tools give nothing."""
    html = subprocess.run([str(mandoc), "-T", "html", "-O", "fragment", str(page.path)],
                          capture_output=True, text=True, errors="replace", timeout=120)
    if not html.stdout.strip():
        return None
    markdown, _ = html_to_markdown(pandoc, clean_html(html.stdout), timeout=120)
    if not markdown:
        return None
    summary, body = split_name(demote(tidy(markdown)))
    text = f"# {page.name}\n\n" + (f"{summary}\n\n" if summary else "") + body.strip() + "\n"
    return cap_words(text)[0]


def clean_html(html: str) -> str:
    """mandoc's HTML less its header and footer lines and its heading permalinks."""
    html = re.sub(r'<table class="(?:head|foot)">.*?</table>', "", html, flags=re.S)
    return re.sub(r'<a class="permalink" href="[^"]*">(.*?)</a>', r"\1", html, flags=re.S)


def tidy(markdown: str) -> str:
    """Drop pandoc's placeholders (a lone backslash, `[TABLE]`) and runs of blank lines."""
    lines = [ln for ln in markdown.splitlines() if ln.strip() not in ("\\", "[TABLE]")]
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines))


def demote(markdown: str) -> str:
    """Every ATX heading one level down (the page title is the only h1)."""
    out, fenced = [], False
    for line in markdown.splitlines():
        if FENCE.match(line):
            fenced = not fenced
        elif not fenced and HEADING.match(line):
            line = "#" + line
        out.append(line)
    return "\n".join(out)


def split_name(markdown: str) -> tuple[str, str]:
    """Take the NAME section out: its text (one line) and the page without it."""
    found = re.search(r"^## NAME[ \t]*\n(.*?)(?=^## |\Z)", markdown, re.M | re.S | re.I)
    if not found:
        return "", markdown
    summary = " ".join(found.group(1).split())
    return summary, markdown[: found.start()] + markdown[found.end():]


def convert_all(pages: list[ManPage], mandoc: Path, pandoc: Path) -> dict[str, str]:
    with ThreadPoolExecutor(max_workers=2) as pool:
        texts = list(pool.map(lambda p: to_markdown(p, mandoc, pandoc), pages))
    failed = [p.rel for p, t in zip(pages, texts) if t is None]
    if failed:
        log(f"{NAME}: no text for for {len(failed)} pages, left out: {failed[:10]}")
    return {p.rel: t for p, t in zip(pages, texts) if t is not None}


INDEX = """# Debian manual pages

Manual pages of common Debian command-line tools (sections 1 and 8: user and
administration commands) and of the Linux and C library programming interface
(sections 2 and 3: system calls and library functions), one page each.
"""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=CACHE / NAME / "source")
    args = parser.parse_args()
    downloads = CACHE / NAME / "downloads"
    wanted = [(p, ("1", "8")) for p in COMMAND_PACKAGES] + [(FUNCTION_PACKAGE, ("2", "3"))]
    debs = download_debs([p for p, _ in wanted] + [RENDERER], downloads / "debs")
    sources = [Source(s.registry, f"{s.name} (the renderer)", s.version, s.licence)
               if s.name == RENDERER else s for s in unpack(debs, downloads / "unpacked")]
    mandoc = downloads / "unpacked" / RENDERER / "usr" / "bin" / "mandoc"
    pandoc = pandoc_binary(downloads)
    sources.append(PANDOC_SOURCE)
    pages = find_pages(downloads / "unpacked", wanted)
    log(f"{NAME}: converting {len(pages)} manual pages")
    converted = convert_all(pages, mandoc, pandoc)
    write_project(args.out, "Debian manual pages", converted, INDEX)
    (args.out / "SOURCES.md").write_text(sources_table(sources), encoding="utf-8")
    by_section: dict[str, int] = {}
    for rel in converted:
        by_section[rel.split("/")[0]] = by_section.get(rel.split("/")[0], 0) + 1
    log(f"{NAME}: {len(converted)} pages {by_section} in {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
