"""Signatures built while recording: implicit evaluation of a known structure
runs its program without walking the graph, and never with a stale one."""
import gc
import weakref

import numpy as np
import pytest

import lazyarray as xp
from lazyarray.backend import ir

from helpers import count_walks, misses

pytestmark = pytest.mark.usefixtures("whole_programs")  # signature runs of whole programs (no steps)


@pytest.fixture
def walks(monkeypatch):
    """How many times materialize walked a graph (the path without a signature)."""
    return count_walks(monkeypatch)


def f(x):
    return xp.sum(xp.sin(x) * x**2)


def test_a_known_structure_runs_without_a_walk_or_a_compile(walks):
    rng = np.random.default_rng(0)
    xv = rng.uniform(0, 2, 500)
    assert float(f(xp.asarray(xv))) == pytest.approx(np.sum(np.sin(xv) * xv**2), rel=1e-12)
    before, w = misses(), walks[0]
    for _ in range(5):
        xv = rng.uniform(0, 2, 500)
        assert float(f(xp.asarray(xv))) == pytest.approx(np.sum(np.sin(xv) * xv**2), rel=1e-12)
    assert misses() == before and walks[0] == w


def test_scalars_are_leaves_not_constants(walks):
    x = np.linspace(-1, 1, 64)
    a = xp.asarray(x)
    got = [np.asarray(a * s + 1.5) for s in (0.5, 0.25, -3.0)]
    for s, g in zip((0.5, 0.25, -3.0), got):
        np.testing.assert_array_equal(g, x * s + 1.5)
    w = walks[0]
    np.testing.assert_array_equal(np.asarray(a * 7.0 + 1.5), x * 7.0 + 1.5)
    assert walks[0] == w


def test_which_leaf_each_operand_reads_is_part_of_the_structure():
    x, y = np.linspace(0, 1, 100), np.linspace(2, 3, 100)
    a, b = xp.asarray(x), xp.asarray(y)
    for _ in range(2):  # each structure twice: the second run takes the signature path
        assert float(xp.sum(xp.sin(a) * a)) == pytest.approx(np.sum(np.sin(x) * x))
        assert float(xp.sum(xp.sin(a) * b)) == pytest.approx(np.sum(np.sin(x) * y))
        assert float(xp.sum(xp.sin(b) * a)) == pytest.approx(np.sum(np.sin(y) * x))
        assert float(xp.sum(a * b + b)) == pytest.approx(np.sum(x * y + y))
        assert float(xp.sum(a * b + a)) == pytest.approx(np.sum(x * y + x))


def test_an_evaluated_node_inside_is_a_leaf_again(walks):
    """A node evaluated after its consumers were recorded: their signatures are
    stale, so the walk runs and the value is read, not computed again."""
    x = np.linspace(0, 1, 100)
    a = xp.asarray(x)
    for _ in range(2):  # the structure of z is known from here on
        y = xp.exp(a)
        z = xp.sum(y * 2.0)
        float(z)
    y = xp.exp(a)
    z = xp.sum(y * 2.0)
    xp.evaluate(y)
    y._node.value = y._node.value * 0  # the program of z must read this buffer
    w = walks[0]
    assert float(z) == 0.0
    assert walks[0] == w + 1


def test_graphs_with_placeholders_or_many_leaves_take_the_walk(walks):
    p = xp.placeholder((3,))
    assert (p + 1)._node.sig is None
    with pytest.raises(xp.ConcretizationError):
        float(xp.sum(p))
    vals = [np.full(4, float(i)) for i in range(ir.MAX_LEAVES + 8)]
    for _ in range(2):
        total = xp.asarray(vals[0])
        for v in vals[1:]:
            total = total + xp.asarray(v)
        assert total._node.sig is None
        np.testing.assert_array_equal(np.asarray(total), np.sum(vals, axis=0))


def test_one_array_read_through_two_leaves():
    x = np.linspace(0, 1, 10)
    for _ in range(2):
        a, b = xp.asarray(x), xp.asarray(x)
        np.testing.assert_array_equal(np.asarray(a * b - b), x * x - x)
        c = xp.asarray(np.linspace(5, 6, 10))
        np.testing.assert_array_equal(np.asarray(a * c - c), x * c._node.value - c._node.value)


def test_structure_ids_survive_clearing(monkeypatch):
    monkeypatch.setattr(ir, "_MAX_IDS", 8)
    rng = np.random.default_rng(1)
    for n in range(3, 30):
        v = rng.uniform(size=n)
        for _ in range(2):
            got = float(xp.sum(xp.cos(xp.asarray(v)) + 1.0))
            assert got == pytest.approx(np.sum(np.cos(v) + 1.0))


def test_leaves_are_freed_without_the_collector():
    gc.disable()
    try:
        a = xp.asarray(np.ones(10))
        b = xp.sin(a) * a
        float(xp.sum(b))
        ref = weakref.ref(a._node)
        del a, b
        assert ref() is None
    finally:
        gc.enable()


def test_clearing_the_cache_forgets_signatures(walks):
    from lazyarray.backend.cache import PROGRAMS
    x = np.linspace(0, 1, 50)
    for _ in range(2):
        float(f(xp.asarray(x)))
    PROGRAMS.clear()
    w = walks[0]
    float(f(xp.asarray(x)))
    assert walks[0] == w + 1


def _plain_merge(leaves, more):
    """merge_leaves by its definition, one leaf at a time."""
    merged, where = list(leaves), []
    for leaf in more:
        found = [i for i, m in enumerate(merged) if m is leaf]
        if not found:
            merged.append(leaf)
        where.append(found[0] if found else len(merged) - 1)
    if len(merged) > ir.MAX_LEAVES:
        return (), None
    return tuple(merged), tuple(where)


def _leaf_tuples(rng, pool):
    """Two leaf tuples of a random kind: each one's own leaves distinct, shaped like
    the merges recording meets (a scalar on one side, a prefix, an overlap)."""
    top = ir.MAX_LEAVES
    n, k = (int(v) for v in rng.integers(0, top + 1, 2))
    kind = rng.integers(6)
    if kind == 0:
        n = 1
    elif kind == 1:
        k = 1
    perm = [pool[i] for i in rng.permutation(len(pool))]
    leaves = tuple(perm[:n])
    if kind == 2:  # more is a prefix of leaves, or leaves of more
        return (leaves, leaves[:k]) if k <= n else (leaves, leaves + tuple(perm[n:k]))
    if kind == 3:  # overlapping ranges of one order
        start = int(rng.integers(0, n + 1))
        return leaves, tuple(perm[start:start + k])
    picks = rng.choice(len(perm), size=k, replace=False)
    return leaves, tuple(perm[i] for i in picks)


def test_merge_leaves_matches_the_plain_merge():
    rng = np.random.default_rng(7)
    # leaves are values: arrays (whose == is elementwise) and equal floats that are
    # distinct objects (matched by identity, so distinct leaves)
    pool = [np.arange(3.0) + i for i in range(ir.MAX_LEAVES)]
    pool += [float(str(1.5)) for _ in range(ir.MAX_LEAVES + 2)]
    kinds = set()
    for _ in range(20_000):
        leaves, more = _leaf_tuples(rng, pool)
        got, want = ir.merge_leaves(leaves, more), _plain_merge(leaves, more)
        assert [id(v) for v in got[0]] == [id(v) for v in want[0]], (leaves, more)
        assert got[1] == want[1], (leaves, more)
        kinds.add((len(leaves), len(more), got[1] is None))
    assert any(none for _, _, none in kinds)  # past MAX_LEAVES was met
    assert {(1, k) for k in range(2, 6)} <= {(n, k) for n, k, _ in kinds}


def test_reading_one_array_leaves_unrelated_signatures_current():
    """A target only its Array holds is inside no other graph: its value leaves other
    graphs' signatures current, so the next read finds its program by signature (no
    walk: the cache's hit counter stays); a node another graph reads does not."""
    v = xp.asarray(np.linspace(0.1, 1.0, 50))
    w = xp.asarray(np.linspace(1.0, 2.0, 50))

    def pair():
        return xp.sum(v * 2.0 + 1.0), xp.sum(w * w - 3.0)
    for _ in range(3):  # both structures known by signature
        a, b = pair()
        float(a), float(b)
    a, b = pair()
    hits, epoch = xp.compile_cache_info().hits, ir.EPOCH
    assert float(a) == pytest.approx(float(np.sum(np.linspace(0.1, 1.0, 50) * 2.0 + 1.0)))
    assert ir.EPOCH == epoch and b._node.sig[2] == ir.EPOCH
    assert float(b) == pytest.approx(float(np.sum(np.linspace(1.0, 2.0, 50) ** 2 - 3.0)))
    assert xp.compile_cache_info().hits == hits
    # a node that another recorded graph reads: its value makes that graph's signature
    # stale (the graph would otherwise compute it again from its leaves)
    s = xp.sum(v * 2.0 + 1.0)
    t = s * 3.0
    float(s)
    assert t._node.sig[2] != ir.EPOCH
    assert float(t) == pytest.approx(3.0 * float(s))


def test_a_new_structure_read_alone_leaves_other_signatures_current():
    """Steps that give a value to their root only (an elementwise chain, fused) leave
    the epoch as it was when nothing else holds the root; and an array sharing nothing
    with the target but a Python float (a constant of the same code) is no sibling
    candidate, so its own read finds its signature current."""
    from lazyarray import _live
    v = xp.asarray(np.linspace(0.1, 1.0, 40))
    w = xp.asarray(np.linspace(1.0, 2.0, 40))
    for k in range(3):  # a new structure each round (the slices' lengths)
        scale = 0.25 + k
        a = ((v * 0.75 + scale) * v)[: 40 - k]
        b = (w * 0.75 - w)[: 39 - k]
        assert _live.candidates([a._node]) == []
        _live.RECENT.append(weakref.ref(b))  # (candidates emptied it)
        epoch = ir.EPOCH
        got = np.asarray(a)
        np.testing.assert_allclose(got, ((np.linspace(0.1, 1.0, 40) * 0.75 + scale)
                                         * np.linspace(0.1, 1.0, 40))[: 40 - k])
        assert b._node.sig[2] == ir.EPOCH
        if k == 0:
            assert ir.EPOCH == epoch
        np.testing.assert_allclose(np.asarray(b), (np.linspace(1.0, 2.0, 40) * 0.75
                                                   - np.linspace(1.0, 2.0, 40))[: 39 - k])
