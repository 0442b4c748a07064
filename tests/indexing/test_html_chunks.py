"""Chunking of rendered HTML, with the real tokenizer counting tokens."""

from __future__ import annotations

import pytest

from mkdocs_semantic.chunk import PageFacts
from mkdocs_semantic.indexing.html_chunks import chunk_page

PAGE = PageFacts(url="guide/", title="Guide", section="Learn")
LONG_SENTENCE = "Caches keep copies of responses so that later requests are answered faster. "


def chunks_of(html: str, count, **options):
    options.setdefault("max_tokens", 256)
    return chunk_page(html, PAGE, count=count, **options)


def sections(chunks):
    return [c for c in chunks if c.kind == "section"]


def test_splits_at_headings_with_anchor_and_heading_path(count_tokens):
    html = """
    <h1 id="guide">Guide<a class="headerlink" href="#guide">¶</a></h1>
    <p>This guide explains how the cache decides what to keep for later requests.</p>
    <h2 id="install">Install<a class="headerlink" href="#install">¶</a></h2>
    <p>Install the package with pip and add it to the plugins of your configuration file.</p>
    <h3 id="offline">Offline machines</h3>
    <p>Download the wheel on a connected machine first, then copy it over and install it.</p>
    """
    chunks = chunks_of(html, count_tokens, min_tokens=0)
    assert chunks[0].kind == "page"
    assert chunks[0].text.startswith("This guide explains")
    by_anchor = {c.anchor: c for c in sections(chunks)}
    # The h1 section is just the lead: the page chunk stands for it and keeps its anchor.
    assert set(by_anchor) == {"install", "offline"}
    assert chunks[0].anchors == ["guide"]
    assert by_anchor["offline"].path == ["Install", "Offline machines"]
    assert by_anchor["install"].title == "Guide"
    assert by_anchor["install"].section == "Learn"
    assert all("¶" not in c.text for c in chunks)
    assert by_anchor["offline"].embed_text.startswith("Guide > Install > Offline machines\n")


def test_theme_chrome_and_excluded_elements_never_reach_chunk_text(count_tokens):
    html = """
    <nav class="md-nav">Home Tutorial Reference</nav>
    <h2 id="a">Alpha</h2>
    <p>Visible paragraph about alpha particles and their charge in detail.</p>
    <div data-search-exclude><p>SECRET internal note</p></div>
    <script>var tracking = 1;</script><style>.x{}</style>
    <button>Copy</button>
    """
    text = " ".join(c.text for c in chunks_of(html, count_tokens, min_tokens=0))
    assert "alpha particles" in text
    for unwanted in ("SECRET", "tracking", "Home Tutorial", "Copy", ".x{}"):
        assert unwanted not in text


def test_code_blocks_stay_whole(count_tokens):
    code = "\n".join(f"line_{i} = compute({i})" for i in range(12))
    html = (f"<h2 id='s'>Setup</h2><p>{LONG_SENTENCE * 8}</p>"
            f"<div class='highlight'><pre><code>{code}</code></pre></div>"
            f"<p>{LONG_SENTENCE * 8}</p>")
    chunks = chunks_of(html, count_tokens, max_tokens=200)
    holding = [c for c in sections(chunks) if "line_0" in c.text]
    assert len(holding) == 1
    assert code in holding[0].text


def test_long_sections_split_within_the_token_budget(count_tokens):
    paragraphs = "".join(f"<p>{LONG_SENTENCE * 3} Paragraph {i}.</p>" for i in range(40))
    html = f"<h2 id='long'>Long section</h2>{paragraphs}"
    chunks = sections(chunks_of(html, count_tokens, max_tokens=128))
    assert len(chunks) > 5
    assert all(c.anchor == "long" for c in chunks)
    assert max(count_tokens([c.embed_text for c in chunks])) <= 128
    joined = " ".join(c.text for c in chunks)
    assert all(f"Paragraph {i}." in joined for i in range(40))


def test_a_code_block_larger_than_the_budget_is_split_by_lines(count_tokens):
    code = "\n".join(f"value_{i} = transform(value_{i - 1}, factor={i})" for i in range(300))
    chunks = sections(chunks_of(f"<h2 id='c'>Code</h2><pre><code>{code}</code></pre>",
                                count_tokens, max_tokens=128))
    assert len(chunks) > 3
    assert max(count_tokens([c.embed_text for c in chunks])) <= 128
    assert all(line.startswith("value_") for c in chunks for line in c.text.split("\n"))


def test_tiny_sections_merge_with_a_neighbour_and_keep_their_anchors(count_tokens):
    html = f"""
    <h2 id="big">Big section</h2><p>{LONG_SENTENCE * 3}</p>
    <h3 id="tiny">Tiny</h3><p>See above.</p>
    <h2 id="other">Other section</h2><p>{LONG_SENTENCE * 3}</p>
    """
    chunks = sections(chunks_of(html, count_tokens, min_tokens=24))
    assert [c.anchor for c in chunks] == ["big", "other"]
    assert "tiny" in chunks[0].anchors
    assert "See above." in chunks[0].text


def test_a_section_right_under_the_page_title_links_to_itself(count_tokens):
    """The h1 holds no text of its own: merged into the first h2, the chunk is that
    section's and links there, not to the top of the page."""
    html = f"""
    <h1 id="install">Install</h1>
    <h2 id="packages">Packages</h2><p>{LONG_SENTENCE * 2}</p>
    <h2 id="source">From source</h2><p>{LONG_SENTENCE * 2}</p>
    """
    for title in ("Install", "Installing"):
        page = PageFacts(url="install/", title=title)
        chunks = sections(chunk_page(html, page, count=count_tokens, max_tokens=256,
                                     min_tokens=24))
        first = chunks[0]
        assert first.path[-1] == "Packages"
        assert first.href == "install/#packages"
        assert "install" in first.anchors  # the h1's anchor still finds it


def test_deeper_headings_stay_reachable_through_their_section(count_tokens):
    html = (f"<h2 id='top'>Top</h2><p>{LONG_SENTENCE}</p>"
            f"<h4 id='deep'>Deep detail</h4><p>{LONG_SENTENCE}</p>")
    chunks = sections(chunks_of(html, count_tokens, heading_levels=3))
    assert len(chunks) == 1 and chunks[0].anchors == ["top", "deep"]


def test_headings_inside_containers_still_split(count_tokens):
    html = (f"<div class='md-content'><article><h2 id='one'>One</h2><p>{LONG_SENTENCE}</p>"
            f"<h2 id='two'>Two</h2><p>{LONG_SENTENCE} Second.</p></article></div>")
    assert [c.anchor for c in sections(chunks_of(html, count_tokens, min_tokens=0))] == [
        "one", "two"]


@pytest.mark.parametrize(
    "html",
    ["", "   ", "<div></div>", "<!-- only a comment -->", "<h2 id='x'></h2>"],
    ids=["empty", "blank", "empty-div", "comment", "empty-heading"],
)
def test_empty_pages_give_at_most_a_title_chunk(count_tokens, html):
    chunks = chunks_of(html, count_tokens)
    assert all(c.text.strip() for c in chunks)
    assert len(sections(chunks)) == 0
    assert len(chunks) <= 1


def test_page_without_headings_is_one_section_at_the_page_top(count_tokens):
    paragraphs = [f"<p>{LONG_SENTENCE} Paragraph {i}.</p>" for i in range(5)]
    chunks = chunks_of("".join(paragraphs), count_tokens)
    assert [c.anchor for c in sections(chunks)] == [""]
    assert "Paragraph 4." in sections(chunks)[0].text
    assert "Paragraph 4." not in chunks[0].text  # the page chunk holds the lead only


def test_a_short_page_is_indexed_once(count_tokens):
    chunks = chunks_of(f"<h1 id='guide'>Guide</h1><p>{LONG_SENTENCE}</p>", count_tokens)
    assert [(c.kind, c.anchors) for c in chunks] == [("page", ["guide"])]


def test_page_of_only_code(count_tokens):
    chunks = chunks_of("<pre><code>print('hello')\nprint('world')</code></pre>", count_tokens)
    assert sections(chunks)[0].text == "print('hello')\nprint('world')"
    assert chunks[0].kind == "page" and chunks[0].text == "Guide"


def test_one_megabyte_page_is_chunked_within_budget(count_tokens):
    paragraph = "<p>" + LONG_SENTENCE * 10 + "</p>"
    body = "".join(f"<h2 id='s{i}'>Section {i}</h2>" + paragraph * 20 for i in range(70))
    assert len(body) > 1_000_000
    chunks = chunks_of(body, count_tokens)
    assert {c.anchor for c in sections(chunks)} == {f"s{i}" for i in range(70)}
    assert max(count_tokens([c.embed_text for c in chunks])) <= 256


def test_one_enormous_paragraph_without_sentence_breaks(count_tokens):
    words = " ".join(f"word{i}" for i in range(20000))
    chunks = sections(chunks_of(f"<p>{words}</p>", count_tokens, max_tokens=128))
    assert max(count_tokens([c.embed_text for c in chunks])) <= 128
    assert "word19999" in chunks[-1].text


@pytest.mark.parametrize(
    "text",
    [
        "東京は日本の首都です。人口は約千四百万人です。" * 40,
        "مرحبا بكم في دليل التخزين المؤقت. هذا النص من اليمين إلى اليسار. " * 40,
        "Emoji 🚀 launch 👩‍💻 developer 🇩🇪 flag text. " * 60,
        "Zero\u200bwidth and combining e\u0301 and \ufeffBOM and\u00a0nbsp. " * 60,
    ],
    ids=["cjk", "rtl", "emoji", "odd-unicode"],
)
def test_non_latin_text_is_indexed_within_budget(count_tokens, text):
    chunks = sections(chunks_of(f"<h2 id='t'>Text</h2><p>{text}</p>", count_tokens,
                                max_tokens=96))
    assert chunks and all(c.anchor == "t" for c in chunks)
    assert max(count_tokens([c.embed_text for c in chunks])) <= 96
    assert text.split()[0][:4] in chunks[0].text


def test_malformed_html_is_indexed_sensibly(count_tokens):
    html = ("<h2 id='a'>First<p>Unclosed paragraph about caching <b>bold <i>nested"
            "<h2 id='b'>Second</h3><table><tr><td>cell one<td>cell two</table><p>tail &amp; end")
    chunks = chunks_of(html, count_tokens, min_tokens=0)
    text = " ".join(c.text for c in chunks)
    assert "Unclosed paragraph about caching" in text
    assert "cell one" in text and "cell two" in text and "tail & end" in text


@pytest.mark.parametrize("depth", [1_000, 20_000])
def test_deeply_nested_headings_chunk_without_recursion(count_tokens, depth):
    html = ("<div class='wrap'>" * depth
            + "<h2 id='deep'>Deep heading</h2><p>Caching answers repeated requests fast.</p>"
            + "<nav>menu</nav><pre><div>code line</div></pre>" + "</div>" * depth
            + "<h2 id='after'>After</h2><p>Text after the nested block.</p>")
    chunks = sections(chunks_of(html, count_tokens, min_tokens=0))
    by_anchor = {c.anchor: c for c in chunks}
    assert set(by_anchor) == {"deep", "after"}
    assert by_anchor["deep"].path == ["Deep heading"]
    assert by_anchor["deep"].text == "Caching answers repeated requests fast.\ncode line"
    assert "menu" not in by_anchor["deep"].text


def test_the_first_of_repeated_id_attributes_is_the_anchor(count_tokens):
    # Browsers keep the first of repeated attributes: #x is where the link must go.
    chunks = chunks_of("<h2 id='x' id='y'>Twice</h2><p>Body of the twice named section.</p>"
                       "<h3 id='p' id='q'>Deeper</h3><p>Deeper text.</p>",
                       count_tokens, min_tokens=0, heading_levels=2)
    assert {c.anchor for c in sections(chunks)} == {"x"}
    assert sections(chunks)[0].anchors == ["x", "p"]


def test_control_characters_never_reach_chunks(count_tokens):
    html = ("<h2 id='c'>Col\x1b[31mors\x07</h2>"
            "<p>Red\x1b]0;pwned\x07 text\x9b2J here.\x00\tTabbed\x85next.</p>"
            "<pre><code>a\tb\x1b[0m\nc</code></pre>")
    page = PageFacts(url="c/", title="Ti\x1btle\x9d")
    chunks = chunk_page(html, page, count=count_tokens, max_tokens=256, min_tokens=0)
    for chunk in chunks:
        for text in (chunk.title, chunk.text, *chunk.path):
            assert not any((ord(ch) < 32 and ch not in "\t\n") or 0x7F <= ord(ch) < 0xA0
                           for ch in text), repr(text)
    section = sections(chunks)[0]
    assert section.title == "Title" and section.path == ["Col[31mors"]
    assert section.text == "Red]0;pwned text2J here. Tabbed next.\na\tb[0m\nc"


class TokenizedChars:
    """The real token counter, keeping count of how many characters it tokenized."""

    def __init__(self, count) -> None:
        self.count = count
        self.chars = 0

    def __call__(self, texts):
        self.chars += sum(len(t) for t in texts)
        return self.count(texts)

    def token_ends(self, text):
        self.chars += len(text)
        return self.count.token_ends(text)


def test_cjk_paragraph_splits_at_full_stops_within_budget(count_tokens):
    sentences = [f"第{i}章では東京の人口とキャッシュの仕組みを説明します。" for i in range(30)]
    sentences[7] = sentences[7].replace("。", "\uff01")  # fullwidth !
    sentences[12] = sentences[12].replace("。", "\uff1f」")  # fullwidth ?
    chunks = sections(chunks_of(f"<h2 id='j'>日本語</h2><p>{''.join(sentences)}</p>",
                                count_tokens, max_tokens=96))
    assert len(chunks) > 3
    assert max(count_tokens([c.embed_text for c in chunks])) <= 96
    assert "".join(c.text for c in chunks) == "".join(sentences)
    assert all(c.text.endswith(("。", "\uff01", "」")) for c in chunks)


@pytest.mark.parametrize("sentence", [
    "Caches keep copies of responses so that later requests are answered faster. ",
    "東京は日本の首都です。人口は約千四百万人です。",
    "word " * 40,
], ids=["latin", "cjk", "no-sentence-end"])
def test_megabyte_paragraph_is_split_reading_its_text_a_few_times(count_tokens, sentence):
    text = sentence * (1_000_000 // len(sentence.encode()))
    counter = TokenizedChars(count_tokens)
    chunks = sections(chunk_page(f"<h2 id='big'>Big</h2><p>{text}</p>", PAGE, count=counter,
                                 max_tokens=256))
    assert len(chunks) > 100 and {c.anchor for c in chunks} == {"big"}
    assert max(count_tokens([c.embed_text for c in chunks])) <= 256
    assert "".join(c.text for c in chunks).replace(" ", "") == text.replace(" ", "")
    # Linear: every character is tokenized a bounded number of times, whatever its size
    # (cutting by re-tokenizing growing or sliding windows tokenized it hundreds of times).
    assert counter.chars < 5 * len(text)


def test_a_piece_under_one_deeper_heading_links_to_it(count_tokens):
    """An h4 part that fills a chunk of its own links to the h4, as lunr does; a chunk
    that spans two h4 parts links to the section's heading."""
    filler = LONG_SENTENCE * 6
    html = (f"<h2 id='top'>Top</h2><p>{filler}</p>"
            f"<h4 id='first'>First detail</h4><p>{filler}</p>"
            f"<h4 id='second'>Second detail</h4><p>{filler}</p>"
            f"<h5 id='fine'>Fine print</h5><p>{filler}</p>")
    chunks = sections(chunks_of(html, count_tokens, heading_levels=3, max_tokens=128))
    assert {c.anchor for c in chunks} == {"top"}  # still one section for the ranking
    links = {c.link_anchor: c.link_path for c in chunks if c.link_anchor}
    assert links["first"] == ["Top", "First detail"]
    assert links["fine"] == ["Top", "Second detail", "Fine print"]
    for chunk in chunks:
        if not chunk.link_anchor:  # the section's own text, or a piece across two parts
            assert chunk.text.startswith(filler[:40]) or "detail" in chunk.text


def test_excerpts_keep_code_and_start_at_a_sentence(count_tokens):
    code = "from fastapi import FastAPI\n\napp = FastAPI()\n"
    html = (f"<h2 id='run'>Run</h2><p>Create the app:</p><pre><code>{code}</code></pre>"
            "<p>Then run.</p>")
    [chunk] = sections(chunks_of(html, count_tokens, min_tokens=0))
    assert chunk.excerpt_parts == ["Create the app:",
                                   "from fastapi import FastAPI\napp = FastAPI()", "Then run."]
    assert chunk.excerpt == "Create the app: from fastapi import FastAPI app = FastAPI() Then run."
    # One long sentence, then short ones: a piece cut inside the long one starts its
    # excerpt at the next sentence.
    long = " ".join(f"word{i}" for i in range(400)) + ". Short one here. " + LONG_SENTENCE * 4
    pieces = sections(chunks_of(f"<p>{long}</p>", count_tokens, max_tokens=128))
    later = [c for c in pieces[1:] if c.mid_sentence]
    assert later, [c.text[:40] for c in pieces]
    for chunk in later:
        near = chunk.text.find("Short one here.")
        expected = "…Short one here." if 0 <= near < 100 else "…" + chunk.text[:20]
        assert chunk.excerpt.startswith(expected), (chunk.excerpt[:40], expected)


def test_results_show_the_heading_path_without_the_pages_h1(count_tokens):
    """The h1 is the title atop the page, which results show already, also where the
    page's title (from the nav) differs from it; the model still sees it."""
    html = (f"<h1 id='top'>A field guide</h1><p>{LONG_SENTENCE}</p>"
            f"<h2 id='install'>Install</h2><p>{LONG_SENTENCE * 2}</p>")
    by_anchor = {c.anchor: c for c in sections(chunks_of(html, count_tokens, min_tokens=0))}
    assert by_anchor["install"].path == ["A field guide", "Install"]
    assert by_anchor["install"].link_path == ["Install"]
    assert "A field guide" in by_anchor["install"].embed_text


@pytest.mark.parametrize("html, anchor", [
    ('<h2 id="own">Own</h2>', "own"),
    ('<section id="install"><h2>Install<a class="headerlink" href="#install">¶</a></h2>'
     "<p>text</p></section>", "install"),  # docutils and Sphinx
    ('<div id="box"><p>first</p><h2>Later</h2></div>', ""),  # the div is not the heading's
    ('<h2>Linked<a href="#linked">#</a></h2>', "linked"),
    ('<h2>Elsewhere<a href="other.html#x">x</a></h2>', ""),
])
def test_a_headings_anchor_is_its_id_its_sections_or_its_permalinks(html, anchor):
    from bs4 import BeautifulSoup

    from mkdocs_semantic.indexing.html_chunks import heading_anchor

    assert heading_anchor(BeautifulSoup(html, "html.parser").find("h2")) == anchor


SPHINX_ENTRIES = f"""
<section id="api"><h2>Application API<a class="headerlink" href="#api">¶</a></h2>
<p>The application object that extensions receive in their setup function.</p>
<dl class="py class">
<dt class="sig sig-object py" id="acme.App"><em>class</em> <span>acme.App</span>
<a class="reference internal" href="_modules/acme.html">
<span class="viewcode-link">[source]</span></a>
<a class="headerlink" href="#acme.App">¶</a></dt>
<dd><p>{LONG_SENTENCE}</p>
<dl class="py method">
<dt class="sig sig-object py" id="acme.App.connect"><span>connect(event, callback)</span>
<a class="headerlink" href="#acme.App.connect">¶</a></dt>
<dd><p>Register a callback that runs whenever the event is emitted. {LONG_SENTENCE}</p></dd>
</dl>
<dl class="py method">
<dt class="sig sig-object py" id="acme.App.add_role"><span>add_role(name, role)</span></dt>
<dd><p>Register a new inline markup role under its name. {LONG_SENTENCE}</p></dd>
</dl>
</dd></dl>
<dl class="simple"><dt id="term">A plain term</dt><dd><p>Not an entry.</p></dd></dl>
</section>
<section id="events"><h2>Events</h2><p>{LONG_SENTENCE * 2}</p></section>
"""


def test_sphinx_object_descriptions_are_sections_linked_by_their_ids(count_tokens):
    """Each `<dt class="sig-object" id=...>` (a class, its methods) starts a section one
    level below where it is described, so a name leads to its own entry; a plain
    definition list does not, and the "[source]" link is no text."""
    by_anchor = {c.anchor: c for c in sections(chunks_of(SPHINX_ENTRIES, count_tokens,
                                                         min_tokens=0))}
    assert by_anchor["acme.App.connect"].path == ["Application API", "class acme.App",
                                                  "connect(event, callback)"]
    assert by_anchor["acme.App.add_role"].path[-2:] == ["class acme.App",
                                                        "add_role(name, role)"]
    assert "Register a callback" in by_anchor["acme.App.connect"].text
    assert "Register a new inline" not in by_anchor["acme.App.connect"].text
    assert by_anchor["events"].path == ["Events"]
    assert "term" not in by_anchor
    assert not any("[source]" in c.embed_text for c in by_anchor.values())
