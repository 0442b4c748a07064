"""The static query encoder's fit and encode, on small synthetic problems."""

from __future__ import annotations

import numpy as np
import pytest

from mkdocs_semantic.indexing.query_table.ridge import (
    StaticTable,
    TokenStats,
    TokenWeights,
    design_matrix,
    fit_table,
    prior_table,
)
from mkdocs_semantic.model.onnx import single_token_vectors

SPECIAL = (101, 102, 0)
SEQUENCES = [
    [101, 5, 7, 7, 102],
    [101, 7, 9, 102, 0, 0],
    [101, 5, 11, 9, 12, 102],
    [101, 12, 102],
    [101, 9, 9, 5, 102],
    [101, 11, 7, 102],
]


def dense_a(sequences, token_ids, weights=None):
    """A built the slow, obvious way: counts x weights, each row divided by its sum."""
    a = np.zeros((len(sequences), len(token_ids)))
    for i, seq in enumerate(sequences):
        for t in seq:
            if t in SPECIAL:
                continue
            j = list(token_ids).index(t)
            a[i, j] += 1.0 if weights is None else weights[t]
        a[i] /= a[i].sum()
    return a


def test_ridge_solution_equals_direct_least_squares():
    rng = np.random.default_rng(1)
    targets = rng.normal(size=(len(SEQUENCES), 4))
    prior_ids = np.array([5, 7, 9, 11, 12])
    prior_rows = rng.normal(size=(5, 4))
    sample = rng.uniform(0.5, 2.0, size=len(SEQUENCES))
    lam = 0.3
    weights = TokenWeights(prior_ids, np.array([0.5, 2.0, 1.0, 3.0, 0.25]))
    design = design_matrix(SEQUENCES, special_ids=SPECIAL, weights=weights)
    table = fit_table(design, targets, lam=lam, prior=prior_table(prior_ids, prior_rows),
                      weights=weights, sample_weight=sample)

    a = dense_a(SEQUENCES, prior_ids, dict(zip(prior_ids.tolist(), weights.weights)))
    root = np.sqrt(sample)[:, None]
    stacked_a = np.vstack([a * root, np.sqrt(lam) * np.eye(5)])
    stacked_y = np.vstack([targets * root, np.sqrt(lam) * prior_rows])
    expected, *_ = np.linalg.lstsq(stacked_a, stacked_y, rcond=None)

    assert table.token_ids.tolist() == [5, 7, 9, 11, 12]
    np.testing.assert_allclose(table.rows, expected * weights.weights[:, None], atol=1e-5)


def test_huge_lambda_returns_the_prior_and_keeps_prior_only_tokens():
    rng = np.random.default_rng(2)
    prior_ids = np.array([5, 7, 9, 11, 12, 40])  # 40 never occurs in the texts
    prior_rows = rng.normal(size=(6, 3))
    design = design_matrix(SEQUENCES, special_ids=SPECIAL)
    table = fit_table(design, rng.normal(size=(len(SEQUENCES), 3)), lam=1e9,
                      prior=prior_table(prior_ids, prior_rows))
    assert table.token_ids.tolist() == prior_ids.tolist()
    np.testing.assert_allclose(table.rows, prior_rows, atol=1e-6)


def test_without_prior_a_small_lambda_fits_the_targets():
    # Four texts of one token each and two mixed ones that agree with them: exactly solvable.
    rows = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    sequences = [[5], [7], [9], [5, 7], [7, 9], [5, 9]]
    targets = np.array([rows[0], rows[1], rows[2], (rows[0] + rows[1]) / 2,
                        (rows[1] + rows[2]) / 2, (rows[0] + rows[2]) / 2])
    table = fit_table(design_matrix(sequences, special_ids=SPECIAL), targets, lam=1e-9)
    np.testing.assert_allclose(table.rows, rows, atol=1e-6)


def test_design_rows_are_weighted_means_and_skip_specials():
    weights = TokenWeights(np.array([5, 7]), np.array([3.0, 1.0]), default=0.5)
    design = design_matrix([[101, 5, 7, 7, 102], [101, 102], [9]], special_ids=SPECIAL,
                           weights=weights)
    got = {(int(t), int(design.token_ids[c])): v
           for t, c, v in zip(design.text, design.column, design.value)}
    assert got == pytest.approx({(0, 5): 3 / 5, (0, 7): 2 / 5, (2, 9): 1.0})
    assert design.texts == 3


def test_token_stats_weights():
    stats = TokenStats.of([[101, 5, 5, 7, 102], [101, 5, 102], [9]], SPECIAL)
    assert stats.token_ids.tolist() == [5, 7, 9]
    assert stats.counts.tolist() == [3, 1, 1]
    assert stats.document_counts.tolist() == [2, 1, 1]
    np.testing.assert_allclose(stats.weights("none"), [1, 1, 1])
    np.testing.assert_allclose(stats.weights("sif", sif_a=0.1),
                               [0.1 / (0.1 + 3 / 5), 0.1 / (0.1 + 1 / 5), 0.1 / (0.1 + 1 / 5)])
    np.testing.assert_allclose(stats.weights("idf"),
                               [np.log(4 / 3) + 1, np.log(2) + 1, np.log(2) + 1])
    with pytest.raises(ValueError, match="unknown token weighting 'bm25'"):
        stats.weights("bm25")


def test_encode_sums_known_rows_and_ignores_unknown_ids():
    table = StaticTable(np.array([3, 8]), np.array([[3.0, 0.0], [0.0, 4.0]], dtype=np.float32))
    np.testing.assert_allclose(table.encode([3]), [1.0, 0.0])
    np.testing.assert_allclose(table.encode([3, 8, 99, 101]), [0.6, 0.8])
    np.testing.assert_allclose(table.encode([3, 3, 8]), np.array([6.0, 4.0]) / np.hypot(6, 4),
                               rtol=1e-6)
    assert table.encode([99, 101]) is None
    assert table.encode([]) is None


def test_encode_of_one_token_is_its_row_normalized():
    rng = np.random.default_rng(3)
    table = StaticTable(np.array([2, 4, 6]), rng.normal(size=(3, 8)).astype(np.float32))
    row = table.rows[1]
    np.testing.assert_allclose(table.encode([101, 4, 102]), row / np.linalg.norm(row),
                               rtol=1e-6)


def test_int8_round_trip_is_within_half_a_step():
    rng = np.random.default_rng(4)
    table = StaticTable(np.arange(50), rng.normal(size=(50, 16)).astype(np.float32))
    stored = table.quantize()
    assert stored.rows.dtype == np.int8
    assert np.abs(stored.rows).max() == 127
    back = stored.dequantize()
    assert np.abs(back.rows - table.rows).max() <= 0.5 / stored.scale + 1e-7
    # Integer sums normalize to (nearly) the float encoding: the scale cancels.
    ids = [1, 7, 7, 30]
    assert float(stored.encode(ids) @ table.encode(ids)) > 0.999


def test_table_rejects_unsorted_ids_and_wrong_row_count():
    with pytest.raises(ValueError, match="ascending"):
        StaticTable(np.array([4, 2]), np.zeros((2, 3), dtype=np.float32))
    with pytest.raises(ValueError, match="one row per token id"):
        StaticTable(np.array([1, 2]), np.zeros((3, 3), dtype=np.float32))


def test_fit_rejects_mismatched_targets():
    design = design_matrix(SEQUENCES, special_ids=SPECIAL)
    with pytest.raises(ValueError, match="6 texts but 2 target vectors"):
        fit_table(design, np.zeros((2, 3)), lam=1.0)


def test_single_token_vector_equals_the_model_vector_of_that_word():
    from mkdocs_semantic.model.onnx import OnnxEmbedder
    from mkdocs_semantic.model.spec import default_model_spec

    embedder = OnnxEmbedder(default_model_spec())
    tokenizer = embedder.tokenizer
    cls_id, sep_id = tokenizer.token_to_id("[CLS]"), tokenizer.token_to_id("[SEP]")
    words = ["search", "install", "theme"]
    ids = [tokenizer.token_to_id(w) for w in words]
    got = single_token_vectors(embedder, ids, cls_id=cls_id, sep_id=sep_id)
    expected = embedder.embed_documents(words)
    np.testing.assert_allclose(got, expected, atol=1e-5)


def test_tokens_outside_solve_ids_are_held_at_their_prior():
    rng = np.random.default_rng(5)
    targets = rng.normal(size=(len(SEQUENCES), 3))
    prior_ids = np.array([5, 7, 9, 11, 12])
    prior_rows = rng.normal(size=(5, 3))
    lam = 0.2
    design = design_matrix(SEQUENCES, special_ids=SPECIAL)
    table = fit_table(design, targets, lam=lam, prior=prior_table(prior_ids, prior_rows),
                      solve_ids=np.array([5, 9, 12]))

    a = dense_a(SEQUENCES, prior_ids)
    solved, held = [0, 2, 4], [1, 3]
    residual = targets - a[:, held] @ prior_rows[held]
    stacked_a = np.vstack([a[:, solved], np.sqrt(lam) * np.eye(3)])
    stacked_y = np.vstack([residual, np.sqrt(lam) * prior_rows[solved]])
    expected, *_ = np.linalg.lstsq(stacked_a, stacked_y, rcond=None)

    assert table.token_ids.tolist() == prior_ids.tolist()
    np.testing.assert_allclose(table.rows[solved], expected, atol=1e-5)
    np.testing.assert_allclose(table.rows[held], prior_rows[held], atol=1e-6)


@pytest.mark.parametrize("block", [1, 3, 1_000_000])
def test_normal_equations_summed_in_blocks_equal_the_dense_products(monkeypatch, block):
    """A^T S A and A^T S Y, summed a few pairs or entries at a time (as a large site's
    fit does, to bound its memory), equal the dense matrix products."""
    from mkdocs_semantic.indexing.query_table import ridge

    monkeypatch.setattr(ridge, "PAIRS_PER_FLUSH", block)
    monkeypatch.setattr(ridge, "ENTRIES_PER_BLOCK", block)
    rng = np.random.default_rng(7)
    sequences = [[101, *rng.integers(3, 40, size=rng.integers(1, 12)).tolist(), 102]
                 for _ in range(60)]
    design = design_matrix(sequences, special_ids=SPECIAL)
    dense = np.zeros((design.texts, len(design.token_ids)))
    np.add.at(dense, (design.text, design.column), design.value)
    weight = rng.uniform(0.5, 2.0, size=design.texts)
    targets = rng.normal(size=(design.texts, 5))
    expected = dense.T @ (weight[:, None] * dense)
    for columns in (1, 4, 1000):  # the packed lower triangle's column blocks
        got = ridge.gram(design, weight, block=columns).to_dense()
        np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-15)
    assert np.allclose(ridge.project_targets(design, targets, weight),
                       dense.T @ (weight[:, None] * targets))


def random_problem(*, texts: int, vocabulary: int, seed: int):
    """Sequences over `vocabulary` token ids (a few common ones in most texts, as in real
    text), their targets, and a prior for most of the tokens."""
    rng = np.random.default_rng(seed)
    common = rng.choice(np.arange(3, vocabulary), size=20, replace=False)
    sequences = [[101, *rng.integers(3, vocabulary, size=rng.integers(2, 40)).tolist(),
                  *rng.choice(common, size=5).tolist(), 102] for _ in range(texts)]
    prior_ids = np.arange(3, vocabulary + 20)[rng.random(vocabulary + 17) < 0.9]
    prior = prior_table(prior_ids, rng.normal(size=(len(prior_ids), 8)))
    return sequences, rng.normal(size=(texts, 8)), prior


@pytest.mark.parametrize("texts", [300, 1500])  # fewer texts than tokens, then more
def test_fit_equals_the_dense_solve_of_the_normal_equations(texts):
    """The fit (a packed Cholesky over several column blocks, of the texts x texts or
    the tokens x tokens system, whichever is smaller) gives the rows that numpy's dense
    solve of the normal equations gives, to rounding, and the same int8 table."""
    sequences, targets, prior = random_problem(texts=texts, vocabulary=700, seed=11)
    stats = TokenStats.of(sequences, SPECIAL)
    weights = TokenWeights(stats.token_ids, stats.weights("idf"))
    design = design_matrix(sequences, special_ids=SPECIAL, weights=weights)
    n, lam = len(design.token_ids), 0.01
    assert min(n, texts) > 256  # more than one column block of the default size
    table = fit_table(design, targets, lam=lam, prior=prior, weights=weights)

    dense = np.zeros((design.texts, n))
    np.add.at(dense, (design.text, design.column), design.value)
    p = np.zeros((n, targets.shape[1]))
    held = np.isin(design.token_ids, prior.token_ids)
    p[held] = prior.rows[prior.lookup(design.token_ids[held])]
    solved = np.linalg.solve(dense.T @ dense + lam * np.eye(n), dense.T @ targets + lam * p)
    expected = solved * weights.of(design.token_ids)[:, None]

    fitted = np.isin(table.token_ids, design.token_ids)
    np.testing.assert_allclose(table.rows[fitted], expected, rtol=1e-6, atol=1e-6)  # float32
    reference = StaticTable(design.token_ids, expected.astype(np.float32))
    peak = float(np.abs(table.rows).max())
    assert peak == pytest.approx(float(np.abs(expected).max()), rel=1e-6)
    assert np.array_equal(StaticTable(design.token_ids, table.rows[fitted]).quantize().rows,
                          reference.quantize().rows)


@pytest.mark.parametrize("solve", ["fit_table", "solve_over_tokens"])
def test_fit_holds_no_square_matrix_of_the_vocabulary(monkeypatch, solve):
    """The fit's memory peak stays under one n x n float64 array of its n tokens: the
    system is held as its lower triangle and factored in place, over the texts when
    they are fewer (numpy's solve needed two n x n arrays, 600 MB on a site's ~6k
    tokens; this test measured 1.46 of them there)."""
    import tracemalloc

    from mkdocs_semantic.indexing.query_table import ridge

    monkeypatch.setattr(ridge, "PAIRS_PER_FLUSH", 10_000)
    sequences, targets, prior = random_problem(texts=400, vocabulary=2500, seed=3)
    design = design_matrix(sequences, special_ids=SPECIAL)
    n = len(design.token_ids)
    square = n**2 * 8
    assert square > 40_000_000
    prior_rows = np.zeros((n, targets.shape[1]))
    tracemalloc.start()
    try:
        if solve == "fit_table":
            fit_table(design, targets, lam=0.01, prior=prior)
        else:
            ridge.solve_over_tokens(design, targets, prior_rows, lam=0.01)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 0.75 * square, f"peak {peak / 1e6:.1f} MB, one n x n array {square / 1e6:.1f} MB"


@pytest.mark.parametrize("weighted", [False, True])
def test_the_texts_system_gives_the_tokens_system_solution(weighted):
    from mkdocs_semantic.indexing.query_table.ridge import solve_over_texts, solve_over_tokens

    sequences, targets, _ = random_problem(texts=120, vocabulary=300, seed=21)
    design = design_matrix(sequences, special_ids=SPECIAL)
    rng = np.random.default_rng(4)
    prior_rows = rng.normal(size=(len(design.token_ids), targets.shape[1]))
    sample = rng.uniform(0.5, 2.0, size=design.texts) if weighted else None
    by_tokens = solve_over_tokens(design, targets, prior_rows, lam=0.05, sample_weight=sample)
    by_texts = solve_over_texts(design, targets, prior_rows, lam=0.05, sample_weight=sample)
    np.testing.assert_allclose(by_texts, by_tokens, rtol=1e-9, atol=1e-10)
    with pytest.raises(ValueError, match="needs lam > 0"):
        solve_over_texts(design, targets, prior_rows, lam=0.0)


@pytest.mark.parametrize("share", [1, 32, 10**9])  # every token dense, some, none
def test_text_gram_and_design_times_equal_the_dense_products(monkeypatch, share):
    from mkdocs_semantic.indexing.query_table import ridge

    monkeypatch.setattr(ridge, "DENSE_TOKEN_SHARE", share)
    monkeypatch.setattr(ridge, "PAIRS_PER_FLUSH", 7)
    monkeypatch.setattr(ridge, "ENTRIES_PER_BLOCK", 5)
    sequences, _, _ = random_problem(texts=70, vocabulary=90, seed=8)
    design = design_matrix([*sequences, [101, 102]], special_ids=SPECIAL)  # one empty text
    dense = np.zeros((design.texts, len(design.token_ids)))
    np.add.at(dense, (design.text, design.column), design.value)
    rows = np.random.default_rng(2).normal(size=(len(design.token_ids), 3))
    for block in (1, 16, 1000):
        np.testing.assert_allclose(ridge.text_gram(design, block=block).to_dense(),
                                   dense @ dense.T, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(ridge.design_times(design, rows), dense @ rows)


def test_drift_counts_texts_new_changed_and_gone_against_the_fit():
    from mkdocs_semantic.chunk import Chunk
    from mkdocs_semantic.indexing.query_table.fit import drift_between, text_digests

    def chunks(texts):
        return [Chunk(url="", anchor="", title="t", path=[], text=t)
                for t in texts]

    fitted = text_digests(chunks(["a", "b", "c", "d", "d"]))  # repeats count once
    assert len(fitted) == 4
    same = drift_between(fitted, text_digests(chunks(["d", "c", "b", "a"])))
    assert (same.changed, same.texts, same.share) == (0, 4, 0.0)
    edited = drift_between(fitted, text_digests(chunks(["a", "b", "c", "d2", "e"])))
    assert (edited.changed, edited.texts) == (2, 4)  # d became d2, e is new
    gone = drift_between(fitted, text_digests(chunks(["a"])))
    assert (gone.changed, gone.share) == (3, 0.75)
