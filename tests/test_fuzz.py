"""A short deterministic fuzz run (the long one is tests/fuzz.py): random expression
graphs built by fuzzgraphs.py, evaluated by lazyarray and by numpy, compared within
the documented bounds.  Structure is drawn through hypothesis, so a failure shrinks to
a small graph; the listing in the failure message reproduces it."""
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import fuzzgraphs as fg

FUZZ = settings(max_examples=150, deadline=None, derandomize=True, database=None,
                suppress_health_check=list(HealthCheck), print_blob=False)


def _check(graph: fg.Graph) -> None:
    out = fg.run_graph(graph)
    assert out.status == "ok", f"{out.status} ({out.path}):\n{graph.listing()}\n{out.detail}"


@FUZZ
@given(st.data())
def test_random_graphs_hypothesis(data):
    _check(fg.generate(fg.HypothesisChooser(data)))


@pytest.mark.parametrize("block", range(4))
def test_random_graphs_seeded(block):
    """The first graphs of seed 0 of the long run (python tests/fuzz.py --seed 0)."""
    for index in range(block * 40, (block + 1) * 40):
        _check(fg.graph_for(0, index))


def test_bounds_are_not_vacuous():
    """The comparison must still see most elements: a bound that left everything
    undefined would pass anything."""
    compared = undefined = 0
    for index in range(60):
        g = fg.graph_for(1, index)
        for i in g.outputs:
            if i < len(g.vals):
                compared += int((~np.isinf(g.vals[i].tol)).sum())
                undefined += int(np.isinf(g.vals[i].tol).sum())
    assert compared > 10 * undefined


def test_compare_catches_differences():
    """compare() reports a wrong last bit of an exact result, a wrong zero sign, a NaN
    for a number, and accepts values within the bound."""
    ref = np.array([1.0, -0.0, 2.0])
    v = fg.Val(ref, np.zeros(3), np.zeros(3, bool), "v")
    assert fg.compare(ref.copy(), v) is None
    assert fg.compare(np.array([np.nextafter(1.0, 2.0), -0.0, 2.0]), v)
    assert fg.compare(np.array([1.0, 0.0, 2.0]), v)
    assert fg.compare(np.array([1.0, -0.0, np.nan]), v)
    assert fg.compare(ref.astype(np.float32), v)
    loose = fg.Val(ref, np.array([1e-3, 0, np.inf]), np.array([False, True, False]), "v")
    assert fg.compare(np.array([1.0005, 0.0, 123.0]), loose) is None
    assert fg.compare(np.array([1.002, 0.0, 123.0]), loose)


# --------------------------------------------------------------------------- found by the fuzzer

def test_setitem_value_broadcasts_to_the_shape_with_none_axes():
    """x[key] = v where key has None: v broadcasts to x[key].shape (None axes included)."""
    import lazyarray as xp
    a = np.arange(6.0).reshape(1, 2, 3)
    for key, value in (((0, None, slice(None, None, -1), Ellipsis), np.ones((1, 2, 3))),
                       ((slice(0, 0), 0, None, slice(None)), np.ones((1, 1, 3)))):
        x = xp.asarray(a)
        x[key] = xp.asarray(value)
        want = a.copy()
        want[key] = value
        np.testing.assert_array_equal(np.asarray(x), want)


def test_integer_divide_by_scalar_shared_between_concat_parts():
    """int / Python int keeps the scalar a runtime scalar: shared by two concat parts it
    used to become a 0-d buffer that binding could not index."""
    import lazyarray as xp
    w = xp.asarray(np.arange(3)) / 2
    np.testing.assert_array_equal(np.asarray(xp.concat([w, w])), np.tile(np.arange(3) / 2, 2))


def test_reduction_of_a_gather():
    """A reduction whose value is a gather (codegen once took the gather's load number
    for its dtype)."""
    import lazyarray as xp
    x = xp.asarray(np.arange(5.0))
    assert float(xp.sum(xp.take(x, xp.asarray(np.array([1, 1, 4]))))) == 6.0


def test_gather_from_a_reshaped_strided_view():
    import lazyarray as xp
    x = np.arange(1.0, 7.0)
    i = np.array([7, 8, 11, 0])
    got = np.asarray(xp.take(xp.tile(xp.asarray(x), (2,)), xp.asarray(i)))
    np.testing.assert_array_equal(got, np.take(np.tile(x, 2), i))
