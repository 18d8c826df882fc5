"""Row tiles (backend/rowtiles.py): ``X.T @ f(X @ w)`` run tile by tile over the rows
of ``X``, so ``X`` is read from memory once.  The size threshold is lowered here so
that small matrices form groups; each test uses shapes of its own (a binding is made
once per program and sizes)."""
import numpy as np
import pytest

import lazyarray as xp
from lazyarray.backend import epilogue, parallel, rowtiles, schedule


@pytest.fixture
def small_tiles(monkeypatch):
    """Groups from any size on, in tiles of 8 rows of 40 float64 columns, W of up to 64
    columns too (off by default: rowtiles.MAX_COLUMNS).  Products of several columns
    take the elementwise work after them as an epilogue (backend/epilogue.py), which
    ends a group where it follows the last product: off here (vectors keep it)."""
    monkeypatch.setattr(rowtiles, "LEAST_BYTES", 0)
    monkeypatch.setattr(rowtiles, "TILE_BYTES", 8 * 40 * 8)
    monkeypatch.setattr(rowtiles, "MAX_COLUMNS", 64)
    monkeypatch.setattr(epilogue, "gemm_operands", lambda k: None)


def _gd(m, x, y, w):
    r = m.matmul(x, w) - y
    return w - 0.05 * m.matmul(x.T, r), m.sum(r * r)


def _data(rows, cols, dtype=np.float64, seed=0):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal((rows, cols)).astype(dtype),
            rng.standard_normal(rows).astype(dtype), rng.standard_normal(cols).astype(dtype))


def _runs(fn):
    before = rowtiles.COUNTS.runs
    out = fn()
    return out, rowtiles.COUNTS.runs - before


@pytest.mark.parametrize("rows", [97, 81, 64])  # a short last tile, a one-row one (merged), even
def test_a_gradient_step_runs_in_tiles_with_numpy_s_values(small_tiles, rows):
    x, y, w = _data(rows, 40)
    (wn, loss), runs = _runs(lambda: xp.evaluate(*_gd(xp, xp.asarray(x), xp.asarray(y),
                                                      xp.asarray(w))))
    assert runs == 1
    want_w, want_loss = _gd(np, x, y, w)
    np.testing.assert_allclose(np.asarray(wn), want_w, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(float(loss), want_loss, rtol=1e-12)
    assert np.asarray(wn).shape == (40,)


def test_float32_and_jit(small_tiles):
    x, y, w = _data(90, 40, np.float32, seed=1)
    X, Y = xp.asarray(x), xp.asarray(y)
    step = xp.jit(lambda w: _gd(xp, X, Y, w))
    W = xp.asarray(w)
    for _ in range(3):
        (W, loss), runs = _runs(lambda: step(W))
        assert runs == 1
        want_w, want_loss = _gd(np, x, y, w)
        w = want_w
        np.testing.assert_allclose(np.asarray(W), want_w, rtol=2e-5, atol=2e-5)
        np.testing.assert_allclose(float(loss), want_loss, rtol=2e-5)
        assert np.asarray(W).dtype == np.float32


def test_the_product_itself_as_an_output(small_tiles):
    """The second product's buffer holds the tiles' partials: the output is its sum."""
    x, y, w = _data(75, 40, seed=2)
    X = xp.asarray(x)
    t = X @ xp.asarray(w)
    g, r = xp.evaluate(X.T @ (t * 2.0 - xp.asarray(y)), t)
    want_t = x @ w
    np.testing.assert_allclose(np.asarray(g), x.T @ (want_t * 2.0 - y), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(np.asarray(r), want_t, rtol=1e-12, atol=1e-12)


def test_same_bits_on_the_pool_and_on_the_calling_thread(small_tiles, monkeypatch):
    x, y, w = _data(99, 40, seed=3)
    p = xp.compile(_gd(xp, xp.asarray(x), xp.asarray(y), xp.asarray(w))).prepare()
    pooled = [np.asarray(a).copy() for a in p()]
    monkeypatch.setattr(parallel, "pool", lambda wait=False: None)
    (alone, runs) = _runs(lambda: [np.asarray(a).copy() for a in p()])
    assert runs == 1
    for a, b in zip(pooled, alone):
        assert a.tobytes() == b.tobytes()


@pytest.mark.parametrize("case", ["flipped", "shifted", "reads_the_loss"])
def test_products_that_read_other_rows_are_not_tiled(small_tiles, case):
    """The second product reads the vector at other rows than the first wrote, or an
    elementwise kernel reads a reduction over the rows (complete only after every tile):
    no group, and numpy's values."""
    x, y, w = _data(70, 40, seed=4)
    X, Y, W = xp.asarray(x), xp.asarray(y), xp.asarray(w)

    def f(m, X, Y, W):
        r = m.matmul(X, W) - Y
        if case == "flipped":
            v = m.flip(r, axis=0)
        elif case == "shifted":
            v = m.concat([r[1:], r[:1]])
        else:
            v = r - m.sum(r * r)
        return m.matmul(X.T, v)
    g, runs = _runs(lambda: np.asarray(f(xp, X, Y, W)))
    assert runs == 0
    np.testing.assert_allclose(g, f(np, x, y, w), rtol=1e-12, atol=1e-12)


def test_small_matrices_are_not_tiled():
    x, y, w = _data(120, 30, seed=5)
    (wn, loss), runs = _runs(lambda: xp.evaluate(*_gd(xp, xp.asarray(x), xp.asarray(y),
                                                      xp.asarray(w))))
    assert runs == 0
    np.testing.assert_allclose(np.asarray(wn), _gd(np, x, y, w)[0], rtol=1e-12, atol=1e-12)


def _random_program(rnd, rng):
    """A random program around X.T @ f(X @ W): X plain, a slice, a transpose or strided;
    W a vector or a matrix of a few columns; work between row by row (elementwise, a
    softmax's max and sum within rows); a loss over the rows (with a scalar epilogue) or
    none; the second product reading its operand at the same rows, reversed or shifted."""
    rows, cols = rnd.randint(2, 90), rnd.randint(1, 40)
    wide = rnd.choice([None, None, 2, 5])
    dt = rnd.choice([np.float64, np.float32])
    base = rng.standard_normal((2 * rows + 3, cols + 5)).astype(dt)
    kind = rnd.choice(["plain", "slice", "T", "strided"])
    if kind == "plain":
        xn = np.ascontiguousarray(base[:rows, :cols])
        xl = xp.asarray(xn)
    elif kind == "slice":
        xn, xl = base[1:rows + 1, 2:cols + 2], xp.asarray(base)[1:rows + 1, 2:cols + 2]
    elif kind == "T":
        bt = np.ascontiguousarray(base[:rows, :cols].T)
        xn, xl = bt.T, xp.asarray(bt).T
    else:
        xn, xl = base[:2 * rows:2, :cols], xp.asarray(base)[:2 * rows:2, :cols]
    wshape, yshape = ((cols,), (rows,)) if wide is None else ((cols, wide), (rows, wide))
    w, y = rng.standard_normal(wshape).astype(dt), rng.standard_normal(yshape).astype(dt)
    ops = [rnd.randrange(7 if wide else 6) for _ in range(rnd.randint(0, 4))]
    closing = rnd.choice(["same", "same", "flip", "shift"])
    red = rnd.choice([None, "sum", "max", "min"])

    def prog(m, X, W, Y):
        r = m.matmul(X, W)
        for o in ops:
            if o == 6:  # within rows: a softmax
                e = m.exp(r - m.max(r, axis=1, keepdims=True))
                r = e / m.sum(e, axis=1, keepdims=True)
            else:
                r = (r - Y, r * 0.5, m.tanh(r), m.abs(r) + 1.0, m.where(r > 0, r, 0.1 * r),
                     r * Y)[o]
        outs = [] if red is None else [getattr(m, red)(r * r) / 3.0 - 1.0]
        v = r
        if closing == "flip":
            v = m.flip(r, axis=0)
        elif closing == "shift":
            v = m.concat([r[1:], r[:1]])
        return [W - 0.1 * m.matmul(X.T, v)] + outs
    return prog, (xn, w, y), (xl, xp.asarray(w), xp.asarray(y)), dt


def test_random_programs_around_the_pattern(monkeypatch):
    """Tiles of 1 to 64 rows over random layouts of X, against numpy: every result
    right whether a group formed or not (and groups do form)."""
    import random
    monkeypatch.setattr(rowtiles, "LEAST_BYTES", 0)
    monkeypatch.setattr(rowtiles, "MAX_COLUMNS", 64)
    rnd, rng = random.Random(7), np.random.default_rng(7)
    monkeypatch.setattr(epilogue, "gemm_operands", lambda k: None)  # (see small_tiles)
    formed = 0
    for _ in range(80):
        monkeypatch.setattr(rowtiles, "TILE_BYTES", rnd.choice([64, 200, 512, 4096]))
        prog, np_args, lazy_args, dt = _random_program(rnd, rng)
        res, runs = _runs(lambda: xp.evaluate(*prog(xp, *lazy_args)))
        formed += runs
        got = res if isinstance(res, tuple) else (res,)
        tol = 1e-4 if dt == np.float32 else 1e-10
        for a, b in zip(got, prog(np, *np_args)):
            a, b = np.asarray(a), np.asarray(b)
            assert a.shape == b.shape and a.dtype == b.dtype
            np.testing.assert_allclose(a, b, rtol=tol, atol=tol * (1 + np.max(np.abs(b))))
    assert formed >= 15


def test_a_softmax_regression_step_runs_in_tiles(small_tiles):
    """W of several columns, a softmax within each row between the products, the loss
    with its scalar epilogue (moved after the group by backend/sink.py)."""
    rng = np.random.default_rng(9)
    x = rng.standard_normal((83, 40))
    y = np.eye(4)[rng.integers(0, 4, 83)]

    def step(m, X, Y, W):
        z = X @ W
        e = m.exp(z - m.max(z, axis=1, keepdims=True))
        p = e / m.sum(e, axis=1, keepdims=True)
        return W - 0.5 * (X.T @ (p - Y)) / 83, -m.sum(Y * m.log(p)) / 83
    w = rng.standard_normal((40, 4)) * 0.1
    X, Y = xp.asarray(x), xp.asarray(y)
    W, w_np = xp.asarray(w), w
    jitted = xp.jit(lambda W: step(xp, X, Y, W))
    for fn in (lambda W: step(xp, X, Y, W), jitted):
        for _ in range(3):
            before = rowtiles.COUNTS.runs
            W, loss = fn(W)
            loss = float(loss)  # (the new weights computed with it: a sibling)
            np.asarray(W)
            w_np, loss_np = step(np, x, y, w_np)
            assert rowtiles.COUNTS.runs - before == 1
            np.testing.assert_allclose(np.asarray(W), w_np, rtol=1e-12, atol=1e-13)
            np.testing.assert_allclose(loss, loss_np, rtol=1e-12)


def test_a_scalar_kernel_moves_after_the_kernels_it_does_not_feed():
    """sink: a reduction's epilogue (a kernel over no axes) runs after the elementwise
    kernel the scheduler put after it, with the same results."""
    from lazyarray.backend.sink import _scalar
    a = np.linspace(-1, 1, 5000)
    x = xp.asarray(a)
    total = xp.sum(x * x) / 7.0 - 1.0
    other = xp.sin(x) * 2.0
    p = xp.compile((total, other)).prepare()
    kinds = [_scalar(k) for k in p._program.schedule.kernels]
    assert kinds[-1] and not any(kinds[:-1]), kinds
    t, o = p()
    np.testing.assert_allclose(float(t), np.sum(a * a) / 7.0 - 1.0, rtol=1e-12)
    np.testing.assert_allclose(np.asarray(o), np.sin(a) * 2.0, rtol=1e-15)


def test_a_matrix_w_is_not_tiled_by_default(monkeypatch):
    """W of several columns: the products run whole (``MAX_COLUMNS``: measured faster)."""
    monkeypatch.setattr(rowtiles, "LEAST_BYTES", 0)
    monkeypatch.setattr(rowtiles, "TILE_BYTES", 8 * 40 * 8)
    x, y, _ = _data(70, 40, seed=6)
    w = np.random.default_rng(6).standard_normal((40, 3))
    g, runs = _runs(lambda: np.asarray(_gd(xp, xp.asarray(x), xp.asarray(y[:, None]),
                                           xp.asarray(w))[0]))
    assert runs == 0
    np.testing.assert_allclose(g, _gd(np, x, y[:, None], w)[0], rtol=1e-12, atol=1e-12)


def test_a_first_product_with_an_epilogue_runs_in_tiles(small_tiles, monkeypatch):
    """X.T @ tanh(X @ W + b): the bias and tanh are the first product's epilogue, a pass
    over the rows each tile's product wrote."""
    monkeypatch.setattr(epilogue, "gemm_operands", schedule.gemm_operands)
    rng = np.random.default_rng(17)
    x, w, b = rng.standard_normal((83, 40)), rng.standard_normal((40, 3)), rng.standard_normal(3)
    X = xp.asarray(x)
    for tier in ("interpret", "compile"):
        monkeypatch.setenv("LAZYARRAY_TIER", tier)
        g = xp.matmul(X.T, xp.tanh(xp.matmul(X, xp.asarray(w)) + xp.asarray(b)))
        assert [bool(k.post) for k in xp.compile(g)._schedule.kernels] == [True, False]
        got, runs = _runs(lambda: np.asarray(g))
        assert runs == 1
        np.testing.assert_allclose(got, x.T @ np.tanh(x @ w + b), rtol=1e-12, atol=1e-12)


def test_a_transposed_matrix_keeps_its_products_whole(small_tiles):
    """X @ (X.T @ w - y): the first product's rows are X's columns, strided; tiles of them
    ran slower than the products whole (2000x2000, one thread: 3.4-4.3 ms against 2.7-2.9)."""
    rng = np.random.default_rng(18)
    x, w, y = rng.standard_normal((83, 40)), rng.standard_normal(83), rng.standard_normal(40)
    X = xp.asarray(x)
    g = xp.matmul(X, xp.matmul(X.T, xp.asarray(w)) - xp.asarray(y))
    got, runs = _runs(lambda: np.asarray(g))
    assert runs == 0
    np.testing.assert_allclose(got, x @ (x.T @ w - y), rtol=1e-12, atol=1e-12)
