"""Token-sized batches and the progress line of a long embedding step."""

from __future__ import annotations

import io
import logging

import pytest

from mkdocs_semantic.indexing.progress import LOG_INTERVAL, Progress, duration
from mkdocs_semantic.model.onnx import plan_batches


class Clock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_batches_hold_every_text_once_within_the_token_and_item_limits():
    lengths = [5, 250, 12, 12, 130, 7, 7, 7, 7, 7, 7, 64, 600, 3]
    batches = plan_batches(lengths, max_items=4, max_tokens=256)
    assert sorted(i for batch in batches for i in batch) == list(range(len(lengths)))
    for batch in batches:
        assert len(batch) <= 4
        padded = len(batch) * max(lengths[i] for i in batch)
        assert padded <= 256 or len(batch) == 1  # a text over the budget goes alone
    assert [12] in batches  # the 600-token text


def test_batches_group_texts_of_similar_length():
    lengths = [200, 3, 190, 4, 5, 180]
    batches = plan_batches(lengths, max_items=8, max_tokens=600)
    assert batches == [[1, 3, 4], [5, 2, 0]]


def test_without_a_terminal_a_line_is_logged_every_interval(caplog):
    clock = Clock()
    progress = Progress("embedding chunks", items=100, tokens=10_000, stream=io.StringIO(),
                        clock=clock)
    assert not progress.interactive
    with caplog.at_level(logging.INFO, logger="mkdocs.plugins.semantic"):
        clock.now += LOG_INTERVAL / 2
        progress.advance(10, 1_000)
        assert not caplog.records
        clock.now += LOG_INTERVAL / 2
        progress.advance(10, 1_000)
        progress.close()
    lines = [r.getMessage() for r in caplog.records]
    assert lines == ["semantic: embedding chunks 20/100 (20%), 2/s, about 40 s left",
                     "semantic: embedding chunks 20/100 done in 10 s"]


def test_time_left_counts_tokens_not_items():
    clock = Clock()
    progress = Progress("embedding chunks", items=100, tokens=10_000, stream=io.StringIO(),
                        clock=clock)
    assert progress.remaining_seconds() is None
    clock.now += 30
    progress.advance(50, 1_000)  # half the chunks, but a tenth of the tokens
    assert progress.remaining_seconds() == pytest.approx(270)


def test_on_a_terminal_one_line_is_redrawn():
    clock = Clock()
    stream = io.StringIO()
    progress = Progress("embedding chunks", items=4, tokens=400, stream=stream,
                        interactive=True, clock=clock)
    clock.now += 1
    progress.advance(2, 200)
    progress.close()
    assert stream.getvalue() == (
        "\r\x1b[2Ksemantic: embedding chunks 2/4 (50%), 2/s, about 1 s left"
        "\r\x1b[2Ksemantic: embedding chunks 2/4 done in 1 s\n")


@pytest.mark.parametrize(("seconds", "text"), [
    (0.4, "0 s"), (42, "42 s"), (185, "3 min 05 s"), (3720, "1 h 02 min")])
def test_durations_read_as_people_write_them(seconds, text):
    assert duration(seconds) == text


def test_the_first_line_counts_the_silence_from_the_logs_last_line(caplog):
    clock = Clock()
    progress = Progress("embedding chunks", items=100, tokens=10_000, stream=io.StringIO(),
                        clock=clock, quiet_since=clock.now - LOG_INTERVAL + 2)
    with caplog.at_level(logging.INFO, logger="mkdocs.plugins.semantic"):
        clock.now += 2
        progress.advance(10, 1_000)
    assert [r.getMessage() for r in caplog.records] == [
        "semantic: embedding chunks 10/100 (10%), 5/s, about 18 s left"]


def test_by_default_the_silence_counts_from_mkdocs_last_log_line(caplog):
    from mkdocs_semantic.indexing.progress import last_line
    from mkdocs_semantic.logs import build_log

    with caplog.at_level(logging.INFO, logger="mkdocs"):
        logging.getLogger("mkdocs.commands.build").info("Building documentation")
        building = last_line.at
        build_log.info("reading pages done")
        assert last_line.at >= building
        progress = Progress("embedding chunks", items=100, tokens=10_000,
                            stream=io.StringIO())
    assert progress.last_report == last_line.at <= progress.started
