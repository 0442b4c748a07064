"""Reading a query: slipped words corrected, a half-typed last word completed."""

from __future__ import annotations

import pytest

from mkdocs_semantic.bundle.vocabulary import Entry
from mkdocs_semantic.search.spelling import (
    Change,
    completion,
    correction,
    edit_distance,
    read_query,
)


class Words:
    """A vocabulary in memory, with the calls it got."""

    def __init__(self, counts: dict[str, int], names: dict[str, str] | None = None,
                 flags: set[str] | None = None) -> None:
        self.counts = counts
        self.names = names or {}
        self.flags = flags or set()
        self.asked: list[list[str]] = []

    def entries(self):
        return [Entry(w, c, self.names.get(w, w), w in self.flags)
                for w, c in sorted(self.counts.items())]

    def starting(self, prefixes):
        self.asked.append(list(prefixes))
        return [e for e in self.entries() if any(e.key.startswith(p) for p in prefixes)]

    def correctable(self, word, limit):
        self.asked.append([word, limit])
        return [e for e in self.entries() if e.is_word and abs(len(e.key) - len(word)) <= limit
                and e.key.startswith((word[0], word[1] + word[0]))]


SITE = Words({"lifespan": 4, "events": 9, "startup": 3, "dependencies": 12, "dependency": 5,
              "depends": 7, "configure": 2, "configuration": 8, "deploy": 6, "deploying": 1,
              "emulate": 1, "simulate": 1})
KNOWN = set(SITE.counts)


def known(tokens):
    return [t.lower() in KNOWN for t in tokens]


@pytest.mark.parametrize(("a", "b", "distance"), [
    ("lifespan", "lifespan", 0), ("lifespna", "lifespan", 1), ("lifspan", "lifespan", 1),
    ("liffespan", "lifespan", 1), ("lifwspan", "lifespan", 1), ("ilfespan", "lifespan", 1),
    ("configuraiton", "configuration", 1), ("cnofiguraton", "configuration", 2),
    ("abc", "xyz", 3), ("ca", "abc", 3),
])
def test_edit_distance_counts_a_swap_of_neighbours_as_one(a, b, distance):
    assert edit_distance(a, b, 3) == distance
    assert edit_distance(b, a, 3) == distance


def test_edit_distance_stops_at_its_limit():
    assert edit_distance("lifespan", "dependencies", 2) == 3
    assert edit_distance("abcdef", "badcfe", 2) == 3


def test_correction_prefers_the_nearest_then_the_most_used_word():
    assert correction("depnds", SITE.entries()) == "depends"
    # one edit from both "deploy" (6) and "deploys" (absent): the word the site has
    assert correction("deplpy", SITE.entries()) == "deploy"
    ties = Words({"abcde": 1, "abcdf": 3, "abcdg": 3}).entries()
    assert correction("abcdx", ties) == "abcdf"
    assert correction("zzzzz", ties) is None
    # a code name is never what a slip is corrected to
    assert correction("abcdx", Words({"abcd_": 9}, {"abcd_": "ABCD_"}).entries()) is None


def test_long_words_may_be_two_edits_away_short_ones_one():
    words = SITE.entries()
    assert correction("cnofiguraton", words) == "configuration"
    assert correction("lfiesapn", words) == "lifespan"  # eight letters: two swaps
    assert correction("dpeloyy", words) is None  # seven letters, two edits


def test_completion_takes_the_most_used_word_then_the_shorter():
    words = SITE.entries()
    assert completion("depen", words) == "dependencies"
    assert completion("deplo", words) == "deploy"
    assert completion("xyz", words) is None
    assert completion("deploy", [Entry("deploy", 6, "deploy")]) is None


def test_the_case_typed_does_not_choose_a_completion():
    words = Words({"security": 40, "securityscopes": 3, "epoll": 9, "epoll_ctl": 4},
                  {"securityscopes": "SecurityScopes", "epoll_ctl": "EPOLL_CTL"})
    for typed in ("use securit", "use Securit", "use SECURIT"):
        assert read_query(typed, known=known, words=words, typing=True).text == \
            "use security"
    assert read_query("EPOLL_", known=known, words=words, typing=True).text == "EPOLL_CTL"


def test_a_half_typed_code_name_is_completed_as_the_site_spells_it():
    words = Words({"httpexception": 5, "http": 9, "root_path": 2},
                  {"httpexception": "HTTPException", "root_path": "root_path"})
    reading = read_query("raise HTTPExc", known=known, words=words, typing=True)
    assert reading.text == "raise HTTPException"
    assert read_query("root_", known=known, words=words, typing=True).text == "root_path"
    assert read_query("HTTPExc is", known=known, words=words, typing=True).text == \
        "HTTPExc is"


def test_a_query_ending_in_a_separator_is_typing_a_name_even_after_a_known_word():
    words = Words({"daemon": 9, "daemon-reload": 3, "reload": 4, "lifespan": 2},
                  {"daemon-reload": "daemon-reload"})
    known_here = lambda tokens: [t.lower() in {"daemon", "reload", "lifespan"}  # noqa: E731
                                 for t in tokens]
    reading = read_query("systemctl lifespn daemon-", known=known_here, words=words,
                         typing=True)
    assert reading.text == "systemctl lifespan daemon-reload"
    assert reading.changes == (Change("lifespn", "lifespan", "corrected"),
                               Change("daemon-", "daemon-reload", "completed"))
    # not while the reader is done typing, nor without a name that starts so
    assert read_query("daemon-", known=known_here, words=words).text == "daemon-"
    assert read_query("reload-", known=known_here, words=words, typing=True).text == "reload-"


def test_a_last_word_the_site_holds_only_as_a_stem_is_completed_while_typing():
    words = Words({"epoll": 6, "epoll_wait": 2, "poll": 9}, {"epoll_wait": "epoll_wait"})
    stems = lambda tokens: [t.lower() in {"epol", "poll", "epoll"} for t in tokens]  # noqa: E731
    reading = read_query("wait on EPOL", known=stems, words=words, typing=True)
    assert reading.changes == (Change("EPOL", "epoll", "completed"),)
    # a site word stays, and so does the stem once the reader is done typing
    assert read_query("wait on poll", known=stems, words=words, typing=True).text == \
        "wait on poll"
    assert read_query("wait on EPOL", known=stems, words=words).text == "wait on EPOL"


def test_a_long_flag_being_typed_becomes_the_sites_flag_even_after_a_known_word():
    words = Words({"work": 9, "workers": 2, "worker-class": 2, "reload": 3, "auto": 4,
                   "autosquash": 1}, {"worker-class": "worker-class"},
                  flags={"workers", "worker-class", "auto", "autosquash"})
    site = lambda tokens: [t.lower() in words.counts for t in tokens]  # noqa: E731
    reading = read_query("uvicorn --wor", known=site, words=words, typing=True)
    assert reading.text == "uvicorn --workers"  # the shorter of two flags as used
    assert reading.changes == (Change("wor", "workers", "completed"),)
    assert read_query("--work", known=site, words=words, typing=True).text == "--workers"
    assert read_query("--worker-c", known=site, words=words, typing=True).text == \
        "--worker-class"
    # a flag the site writes stays; without dashes, done typing or with a flag not
    # at the end, the other rules read the word
    assert read_query("--auto", known=site, words=words, typing=True).text == "--auto"
    assert read_query("wor", known=site, words=words, typing=True).text == "work"
    assert read_query("a--wor", known=site, words=words, typing=True).text == "a--wor"
    assert read_query("--wor", known=site, words=words).text == "--wor"
    assert read_query("--wor fast", known=site, words=words, typing=True).text == \
        "--wor fast"


def test_words_the_site_uses_are_never_changed():
    reading = read_query("deploy the Lifespan events", known=known, words=SITE, typing=True)
    assert reading.text == "deploy the Lifespan events"
    assert reading.changes == ()


def test_slipped_words_are_corrected_where_they_stand():
    reading = read_query("Lifespna evnets on startup", known=known, words=SITE)
    assert reading.text == "lifespan events on startup"
    assert reading.changes == (Change("Lifespna", "lifespan", "corrected"),
                               Change("evnets", "events", "corrected"))


def test_the_last_word_is_completed_only_while_typing():
    assert read_query("run code on start", known=known, words=SITE, typing=True).text == \
        "run code on startup"
    assert read_query("run code on start", known=known, words=SITE).text == "run code on start"
    # a space after it: the reader finished the word
    assert read_query("lifesp ", known=known, words=SITE, typing=True).text == "lifesp "
    reading = read_query("lifesp", known=known, words=SITE, typing=True)
    assert reading.changes == (Change("lifesp", "lifespan", "completed"),)


def test_a_half_word_without_completion_is_corrected_if_long_enough():
    reading = read_query("configurs", known=known, words=SITE, typing=True)
    assert reading.text == "configure"


def test_short_code_and_stop_words_are_left_alone():
    reading = read_query("the Depnds() dpl x_dpl 4depnds", known=known, words=SITE)
    assert reading.text == "the depends() dpl x_dpl 4depnds"
    # a CamelCase name is searched whole and by its parts, never lowercased into a word
    assert read_query("DependsOn", known=known, words=SITE).text == "DependsOn"


def test_the_slipped_parts_of_a_name_are_corrected_and_its_separators_kept():
    reading = read_query("x_depnds lifespna-configure", known=known, words=SITE)
    assert reading.text == "x_depends lifespan-configure"
    assert [(c.typed, c.used, c.kind) for c in reading.changes] == [
        ("x_depnds", "x_depends", "corrected"),
        ("lifespna-configure", "lifespan-configure", "corrected")]
    # a name the site uses is searched as typed, even where a part looks slipped
    assert read_query("x_depnds", known=lambda tokens: [True] * len(tokens),
                      words=SITE).text == "x_depnds"


def test_only_the_shards_a_word_can_be_corrected_into_are_asked_for():
    words = Words(SITE.counts)
    read_query("ilfespan", known=known, words=words)
    assert words.asked == [["ilfespan", 2]]


def test_without_a_vocabulary_the_query_is_searched_as_typed():
    assert read_query("lifespna", known=known, words=None).text == "lifespna"


def test_a_real_word_the_model_knows_is_not_corrected_into_a_site_word():
    model = {"teams", "chart"}
    reading = read_query("two teams and a chart", known=known, words=Words(
        {"terms": 3, "char": 9}), model_word=lambda word: word in model)
    assert reading.text == "two teams and a chart"
    assert read_query("two temrs", known=known, words=Words({"terms": 3}),
                      model_word=lambda word: word in model).text == "two terms"


def test_a_slipped_stop_word_is_corrected_before_a_site_word_as_near():
    reading = read_query("bfeore lifespna otherr", known=known, words=Words(
        {**SITE.counts, "others": 40}))
    assert reading.text == "before lifespan other"
