"""`mkdocs-semantic index` on a hand-written static site (no MkDocs), then `query` on it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from click.testing import CliRunner

from mkdocs_semantic.apps.cli import cli
from mkdocs_semantic.bundle.reader import read_bundle
from mkdocs_semantic.indexing.static_site import main_content, page_url, read_page

CHROME = """
<header class="site"><a href="/">Acme Docs</a> <span>zebra banner</span></header>
<nav><a href="/guide/">Guide</a> <a href="/blog/">Blog</a> navigation walrus</nav>
<aside>sidebar pelican advert</aside>
<footer>Copyright flamingo 2024</footer>
"""


def page(title: str, body: str, *, wrapper: str = "main", head: str = "") -> str:
    return (f"<!doctype html><html><head><meta charset='utf-8'><title>{title} | Acme</title>"
            f"{head}</head><body>{CHROME}<{wrapper}>{body}</{wrapper}></body></html>")


SITE = {
    "index.html": page("Home", """
        <h1 id="welcome">Welcome to Acme</h1>
        <p>Acme is a tool that turns spreadsheets into interactive dashboards that
        update themselves every few minutes.</p>"""),
    "guide/install/index.html": page("Installing", """
        <article><header><h1 id="installing">Installing Acme</h1></header>
        <p>Download the installer for your operating system and run it.</p>
        <h2 id="offline">Installing without internet access</h2>
        <p>Copy the offline bundle to the machine with a USB stick, then unpack it and
        run the setup script; no network connection is needed.</p></article>""",
        wrapper="div"),
    "guide/sharing.html": page("Sharing", """
        <h1>Sharing dashboards</h1>
        <p>Send colleagues a read-only link; they can view the charts but not change
        the underlying data.</p>
        <h2 id="permissions">Permissions</h2>
        <p>Owners grant edit rights per person or per team.</p>""",
        wrapper="div role='main'"),
    "blog/2024/release.html": page("Release notes", """
        <div data-pagefind-body><h1>Acme 2.0 released</h1>
        <p>The new version draws charts four times faster and adds dark mode.</p></div>
        <div>unmarked trailing text about octopus</div>""", wrapper="section"),
    "404.html": page("Not found", "<h1>Page not found</h1><p>Nothing here.</p>"),
    "old/index.html": page("Moved", "<p>This page moved.</p>",
                           head="<meta http-equiv='refresh' content='0; url=/guide/'>"),
    "assets/style.css": "body { color: black }",
}


def write_site(root: Path) -> Path:
    for name, text in SITE.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def snapshot(root: Path, *, skip: str = "semantic") -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*")
            if p.is_file() and p.relative_to(root).parts[0] != skip}


def test_page_urls_are_directory_urls(tmp_path):
    assert page_url(tmp_path, tmp_path / "index.html") == ""
    assert page_url(tmp_path, tmp_path / "guide" / "install" / "index.html") == "guide/install/"
    assert page_url(tmp_path, tmp_path / "guide" / "sharing.html") == "guide/sharing.html"


def test_main_content_drops_chrome_and_keeps_the_article_header(tmp_path):
    site = write_site(tmp_path)
    content = main_content(BeautifulSoup(SITE["guide/install/index.html"], "html.parser"))
    text = content.get_text()
    assert "Installing Acme" in text and "USB stick" in text
    assert not any(w in text for w in ("zebra", "walrus", "pelican", "flamingo"))
    marked = read_page(site, site / "blog" / "2024" / "release.html")
    assert marked.facts.title == "Acme 2.0 released"
    assert "octopus" not in marked.html and "dark mode" in marked.html
    assert read_page(site, site / "old" / "index.html") is None  # a redirect
    sharing = read_page(site, site / "guide" / "sharing.html")
    assert (sharing.facts.title, sharing.facts.section) == ("Sharing dashboards", "guide")


@pytest.fixture(scope="module")
def indexed(tmp_path_factory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("static")
    site = write_site(root / "public")
    before = snapshot(site)
    result = CliRunner().invoke(cli, ["index", str(site)], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert snapshot(site) == before, "index wrote outside the bundle folder"
    return site, root


def test_index_writes_a_bundle_that_query_searches(indexed):
    site, root = indexed
    bundle = read_bundle(site)
    urls = {c.url for c in bundle.chunks}
    assert urls == {"", "guide/install/", "guide/sharing.html", "blog/2024/release.html"}
    assert all("flamingo" not in c.text and "walrus" not in c.text for c in bundle.chunks)
    assert (root / ".cache" / "mkdocs-semantic" / "public" / "embeddings.npz").is_file()

    result = CliRunner().invoke(cli, ["query", str(site), "set it up on a computer that is "
                                      "not connected to the network", "--json", "--mode",
                                      "vector"])
    top = json.loads(result.stdout)["results"][0]
    assert top["url"] == "guide/install/" and "USB stick" in top["excerpt"]
    result = CliRunner().invoke(cli, ["query", str(site), "let colleagues view my charts "
                                      "without editing", "--json", "-f", "section=guide"])
    results = json.loads(result.stdout)["results"]
    assert results[0]["url"] == "guide/sharing.html"
    assert {r["section"] for r in results} == {"guide"}


def test_dry_run_reports_changes_and_writes_nothing(indexed, tmp_path):
    site, _ = indexed
    edited = site / "guide" / "sharing.html"
    original = edited.read_text()
    try:
        edited.write_text(original.replace("Owners grant edit rights per person or per team.",
                                           "Only owners may delete a dashboard."))
        (site / "faq.html").write_text(page("FAQ", "<h1>Questions</h1><p>Is Acme free? "
                                            "Yes, for teams of up to five people.</p>"))
        (site / "blog" / "2024" / "release.html").unlink()
        before = snapshot(site, skip="")
        result = CliRunner().invoke(cli, ["index", str(site), "--dry-run"],
                                    catch_exceptions=False)
        assert snapshot(site, skip="") == before
    finally:
        edited.write_text(original)
        (site / "faq.html").unlink()
        (site / "blog" / "2024" / "release.html").write_text(SITE["blog/2024/release.html"])
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "compared with the existing bundle" in out
    assert "1 new, 1 changed, 1 removed, 2 unchanged" in out
    assert "new      /faq.html" in out and "changed  /guide/sharing.html" in out
    assert "removed  /blog/2024/release.html" in out
    # the edited section and the new page are new; the removed page's chunks go
    assert "reused from the cache" in out and "2 to embed" in out


def test_index_refuses_a_folder_without_pages(tmp_path):
    (tmp_path / "empty").mkdir()
    result = CliRunner().invoke(cli, ["index", str(tmp_path / "empty")])
    assert result.exit_code == 1 and "no HTML page with text" in result.stderr
    result = CliRunner().invoke(cli, ["index", str(tmp_path / "empty"), "--bundle-dir", "../x"])
    assert result.exit_code == 2 and "must be a relative folder inside the site" in result.stderr


def one_page_site(root: Path) -> Path:
    site = root / "public"
    site.mkdir()
    (site / "index.html").write_text(page("Home", "<h1>Home</h1><p>Dashboards for teams "
                                          "that update themselves every few minutes.</p>"))
    return site


def private_folder(root: Path) -> Path:
    """A folder beside the site holding a page nobody should index."""
    outside = root / "private"
    outside.mkdir()
    (outside / "secret.html").write_text(page("Secret", "<h1>Secret</h1><p>The database "
                                              "password is hunter2, keep it safe.</p>"))
    return outside


def test_index_skips_links_that_lead_out_of_the_site(tmp_path):
    site = one_page_site(tmp_path)
    outside = private_folder(tmp_path)
    (site / "leak.html").symlink_to(outside / "secret.html")
    (site / "alias.html").symlink_to(site / "index.html")  # inside the site: fine
    result = CliRunner().invoke(cli, ["index", str(site)], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert {c.url for c in read_bundle(site).chunks} == {"", "alias.html"}
    assert all("hunter2" not in c.text for c in read_bundle(site).chunks)
    assert f"skipped {site / 'leak.html'}: it is a link to {outside / 'secret.html'}, " \
           "outside the site" in result.stderr


def test_index_names_a_folder_link_that_leads_out_of_the_site(tmp_path):
    site = one_page_site(tmp_path)
    outside = private_folder(tmp_path)
    (site / "docs").symlink_to(outside, target_is_directory=True)
    result = CliRunner().invoke(cli, ["index", str(site)], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert {c.url for c in read_bundle(site).chunks} == {""}
    assert f"skipped {site / 'docs'}: it is a link to {outside}, outside the site" \
        in result.stderr


def test_a_title_read_from_the_h1_leaves_out_the_permalink_mark(tmp_path):
    site = tmp_path / "site"
    site.mkdir()
    (site / "validation.html").write_text(page("Validation", (
        '<h1 id="validation">Validation<a class="headerlink" href="#validation" '
        'title="Permanent link">&para;</a></h1><p>Revalidating a stored response.</p>')))
    found = read_page(site, site / "validation.html")
    assert found is not None and found.facts.title == "Validation"


def test_index_shows_the_caches_warnings(tmp_path):
    """The indexer and its caches log where `mkdocs build` shows them; the CLI shows them too."""
    site = one_page_site(tmp_path)
    cache = tmp_path / "cache"
    cache.mkdir()
    (cache / "embeddings.npz").write_bytes(b"not a cache")
    result = CliRunner().invoke(cli, ["index", str(site), "--cache-dir", str(cache)],
                                catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert f"WARNING: semantic: ignoring unreadable embedding cache {cache / 'embeddings.npz'}" \
        in result.stderr
    assert result.stdout.startswith("semantic: 1 pages, ")


DEEP_HEADERS = """
import sys
from pathlib import Path
from mkdocs_semantic.indexing.static_site import read_page
site = Path(sys.argv[1])
page = read_page(site, site / "deep.html")
print(page.facts.title, "menu" in page.html, "Deep text" in page.html)
"""


def test_deeply_nested_headers_are_read_in_one_pass(tmp_path):
    depth = 20_000
    (tmp_path / "deep.html").write_text(
        "<main>" + "<header><h1>Deep title</h1>" * depth + "<nav>menu</nav><p>Deep text</p>"
        + "</header>" * depth + "</main>")
    # A hang guard, not a timing: reading this took time in the square of the depth
    # (about half an hour), and takes seconds in one pass.
    done = subprocess.run([sys.executable, "-c", DEEP_HEADERS, str(tmp_path)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["Deep", "title", "False", "True"]
