"""Embedding chunks while MkDocs still renders pages, on the cores rendering leaves idle.

Rendering and chunking run in one Python thread; on a machine of 2 cores the other
sits idle until the chunk embedding starts. `EarlyEmbedding` takes each page's new
chunk texts as they are cut and embeds full batches of them in the background; what it
has not reached when the build's embedding step starts is embedded there as before.
A text's vector does not depend on the batch it runs in (the model is given each
text's own attention mask; tests/model/test_onnx.py checks this), so the vectors are
the same either way.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor, wait

import numpy as np

from ..model.onnx import BATCH_TOKENS, plan_batches

AHEAD = 4
"""Batches handed to each thread at most: enough to keep it busy between two pages,
few enough that stopping (an error, or the embedding step) waits for little."""


class EarlyEmbedding:
    """Embeds texts handed to it in full batches, `threads` batches at once.

    `embed(texts)` returns their vectors (called from the background threads), and
    `lengths(texts)` their token counts (called in the caller's thread).
    """

    def __init__(self, *, embed: Callable[[list[str]], np.ndarray],
                 lengths: Callable[[list[str]], list[int]], threads: int,
                 max_items: int) -> None:
        self.embed = embed
        self.lengths = lengths
        self.max_items = max_items
        self.limit = AHEAD * max(1, threads)
        self.pool = ThreadPoolExecutor(max(1, threads), thread_name_prefix="semantic-early")
        self.waiting: dict[bytes, tuple[str, int]] = {}
        """Key -> (text, tokens) of the texts not handed to a thread yet."""
        self.running: deque[tuple[list[bytes], Future]] = deque()
        self.done: dict[bytes, np.ndarray] = {}
        self.failed = False
        """A batch raised: nothing more is started (the embedding step embeds the rest
        and reports the error, if it is one, where it belongs)."""

    def add(self, keys: Sequence[bytes], texts: Sequence[str]) -> None:
        """Queue texts to embed (keys already queued or done are skipped), and hand full
        batches to the threads as they free up."""
        new = {k: t for k, t in zip(keys, texts)
               if k not in self.waiting and k not in self.done
               and not any(k in batch for batch, _ in self.running)}
        if new:
            lengths = self.lengths(list(new.values()))
            self.waiting.update((k, (t, n)) for (k, t), n in zip(new.items(), lengths))
        self._collect()
        self._hand_out()

    def _hand_out(self) -> None:
        free = self.limit - len(self.running)
        if free <= 0 or not self.waiting or self.failed:
            return
        keys = list(self.waiting)
        lengths = [self.waiting[k][1] for k in keys]
        batches = plan_batches(lengths, max_items=self.max_items)
        last = batches[-1]
        if len(last) < self.max_items and \
                (len(last) + 1) * max(lengths[i] for i in last) <= BATCH_TOKENS:
            batches.pop()  # room for more: it waits for the next page's texts
        for batch in batches[:free]:
            chosen = [keys[i] for i in batch]
            texts = [self.waiting.pop(k)[0] for k in chosen]
            self.running.append((chosen, self.pool.submit(self.embed, texts)))

    def _collect(self) -> None:
        """Move the finished batches, in order, to `done`."""
        while self.running and self.running[0][1].done():
            self._keep(*self.running.popleft())

    def _keep(self, keys: list[bytes], future: Future) -> None:
        if future.cancelled():
            return
        if future.exception() is not None:
            self.failed = True
            return
        self.done.update(zip(keys, future.result()))

    def finish(self) -> dict[bytes, np.ndarray]:
        """Stop: batches not started are dropped, started ones are waited for. Returns
        the vectors of every text embedded."""
        for _, future in self.running:
            future.cancel()
        wait([future for _, future in self.running])
        self.pool.shutdown(wait=True, cancel_futures=True)
        while self.running:
            self._keep(*self.running.popleft())
        self.waiting = {}
        return self.done
