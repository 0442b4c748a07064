"""The bundle folder is the plugin's own: it never deletes or overwrites a file it did not
write, and it refuses, naming the file, to share a folder with pages or other output."""

from __future__ import annotations

import logging
import re

import pytest
from click.testing import CliRunner
from mkdocs.exceptions import MkDocsException

from mkdocs_semantic.apps.cli import cli
from mkdocs_semantic.bundle.folder import bundle_dir_problem, claim_bundle_dir, foreign_entries
from mkdocs_semantic.bundle.format import BundleError
from mkdocs_semantic.bundle.reader import read_bundle

from .test_reader_writer import write_sample

PAGE = """
# Client setup

Install the desktop client, sign in with your account and pick a workspace.
"""


def failed_build(project, caplog) -> str:
    with caplog.at_level(logging.ERROR), pytest.raises(MkDocsException) as info:
        project.build()
    return f"{info.value}\n{caplog.text}"


def test_a_page_inside_the_bundle_folder_fails_the_build_naming_the_page(project, caplog):
    project.write("index.md", "# Home\n\nWelcome to the product documentation.\n")
    project.write("semantic/client/setup.md", PAGE)
    message = failed_build(project, caplog)
    assert "semantic/client/setup.md" in message
    assert "option 'bundle_dir' is 'semantic'" in message
    assert not (project.bundle / "manifest.json").exists()


def test_the_site_root_is_refused_as_bundle_folder(project, caplog):
    project.write("index.md", "# Home\n\nWelcome to the product documentation.\n")
    project.write("client/setup.md", PAGE)
    project.write("manifest.json", '{"name": "My PWA", "start_url": "."}')
    project.plugin_options = {"bundle_dir": "."}
    message = failed_build(project, caplog)
    assert re.search(r"option 'bundle_dir' is '\.'; it must be a folder of its own", message)


def test_a_page_in_another_folder_builds_beside_the_bundle(project):
    project.write("index.md", "# Home\n\nWelcome to the product documentation.\n")
    project.write("semantic-notes/client/setup.md", PAGE)
    project.build()
    assert (project.site / "semantic-notes/client/setup/index.html").is_file()
    assert [c.url for c in read_bundle(project.bundle).chunks].count(
        "semantic-notes/client/setup/") == 1


def test_a_theme_file_inside_the_bundle_folder_fails_the_build(project, caplog):
    project.write("index.md", "# Home\n\nWelcome to the product documentation.\n")
    project.plugin_options = {"bundle_dir": "search"}
    message = failed_build(project, caplog)
    assert re.search(r"option 'bundle_dir' is 'search', but MkDocs writes search/\S+ there",
                     message)


OTHER_PLUGIN = """
from pathlib import Path
from mkdocs.plugins import event_priority

@event_priority(100)
def on_post_build(config):
    out = Path(config.site_dir) / "semantic"
    out.mkdir(exist_ok=True)
    (out / "manifest.json").write_text('{"name": "My PWA"}')
"""


def test_output_of_another_plugin_in_the_bundle_folder_is_kept(project, caplog):
    """Files written after MkDocs' file list was made (here by a hook) are not ours either."""
    project.write("index.md", "# Home\n\nWelcome to the product documentation.\n")
    (project.root / "pwa.py").write_text(OTHER_PLUGIN)
    with caplog.at_level(logging.ERROR), pytest.raises(MkDocsException) as info:
        project.build(hooks=["pwa.py"])
    message = f"{info.value}\n{caplog.text}"
    assert "option 'bundle_dir' is 'semantic'" in message
    assert "holds files this plugin did not write (manifest.json)" in message
    assert (project.bundle / "manifest.json").read_text() == '{"name": "My PWA"}'
    assert not (project.bundle / "client").exists()


@pytest.mark.parametrize("value, ok", [
    ("semantic", True), ("_search/semantic", True), ("./semantic/", True),
    (".", False), ("./", False), ("", False), ("/", False), ("../up", False),
    ("/abs/semantic", False), ("a/../../b", False),
])
def test_bundle_dir_problem(value, ok):
    assert (bundle_dir_problem(value) is None) is ok


def test_writer_refuses_a_folder_with_foreign_files_and_deletes_nothing(tmp_path):
    write_sample(tmp_path)
    (tmp_path / "index.html").write_text("<h1>a page</h1>")
    (tmp_path / "client" / "setup").mkdir(parents=True)
    (tmp_path / "client" / "setup" / "index.html").write_text("<h1>setup</h1>")
    before = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*"))
    with pytest.raises(BundleError, match=r"client/setup, index\.html"):
        write_sample(tmp_path, 4)
    assert sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*")) == before
    assert read_bundle(tmp_path).manifest.counts["chunks"] == 6


def test_own_files_are_recognised(tmp_path):
    write_sample(tmp_path)
    (tmp_path / "semantic.js").write_text('export * from "./client/0123456789ab/semantic.js";\n')
    (tmp_path / "client" / "0123456789ab").mkdir(parents=True)
    assert foreign_entries(tmp_path) == []  # the stable entry an older build wrote
    (tmp_path / "semantic.js").write_text(
        "/* mkdocs-semantic-search: the browser client's API (client 0123456789ab) */\n"
        "var M=1;export{M as init};\n")
    (tmp_path / ".manifest.json-k3j_x9").write_text("half written")
    assert foreign_entries(tmp_path) == []
    claim_bundle_dir(tmp_path)
    (tmp_path / "semantic.js.bak").write_text("mine")
    assert foreign_entries(tmp_path) == ["semantic.js.bak"]
    (tmp_path / "semantic.js").write_text("window.mySearch = 1;")
    (tmp_path / "manifest.json").write_text('{"name": "My PWA", "start_url": "."}')
    (tmp_path / "catalog.json").write_text('{"products": []}')
    assert foreign_entries(tmp_path) == ["catalog.json", "manifest.json", "semantic.js",
                                         "semantic.js.bak"]


def test_cli_index_keeps_a_site_page_in_the_bundle_folder(tmp_path):
    site = tmp_path / "site"
    (site / "semantic").mkdir(parents=True)
    (site / "index.html").write_text(
        "<html><head><title>Home</title></head><body><main><h1>Home</h1><p>Welcome to "
        "the documentation of the desktop client.</p></main></body></html>")
    own = site / "semantic" / "about.html"
    own.write_text("<html><body><main><h1>About semantics</h1></main></body></html>")
    result = CliRunner().invoke(cli, ["index", str(site), "--no-cache"])
    assert result.exit_code != 0
    assert "about.html" in result.output
    assert own.read_text().startswith("<html>")
    assert not (site / "semantic" / "manifest.json").exists()
