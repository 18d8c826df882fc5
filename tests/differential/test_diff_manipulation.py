"""Manipulation functions against array-api-strict: every dtype, exact comparison.

Shapes reach rank 3 and include empty axes and 0-d arrays; axis arguments run
over ints, negative ints, tuples and ``None`` where the function takes them.
"""
from __future__ import annotations

import math

import array_api_strict as xs
import lazyarray as xp
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from _diff import ALL, arrays, check, examples, hs, promotable_pairs, run_both, shapes

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")

FEW = examples(2)


def _axis(data, ndim: int, label: str = "axis") -> int:
    return data.draw(st.integers(-ndim, ndim - 1), label=label)


def _dtype(data):
    return data.draw(st.sampled_from(ALL), label="dtype")


@pytest.mark.parametrize("dtype", ALL)
@FEW
@given(data=st.data())
def test_broadcast_to_and_arrays(dtype: str, data) -> None:
    target = data.draw(shapes(max_dims=3), label="target")
    s = data.draw(hs.broadcastable_shapes(target, min_side=0).filter(
        lambda s: np.broadcast_shapes(s, target) == target), label="shape")
    x = data.draw(arrays(dtype, s), label="x")
    got, want = run_both("broadcast_to", x, target)
    check(got, want, where=f"broadcast_to({s} -> {target})")
    n = data.draw(st.integers(1, 3), label="n")
    ins = data.draw(hs.mutually_broadcastable_shapes(n, min_dims=0, max_dims=3, max_side=3),
                    label="shapes").input_shapes
    xs_ = [data.draw(arrays(dtype, sh), label=f"x{i}") for i, sh in enumerate(ins)]
    got, want = run_both("broadcast_arrays", *xs_)
    assert len(got) == len(want)
    for i, (g, w) in enumerate(zip(got, want)):
        check(g, w, where=f"broadcast_arrays{ins}[{i}]")
    assert xp.broadcast_shapes(*ins) == xs.broadcast_shapes(*ins)


@pytest.mark.parametrize("dtype", ALL)
@FEW
@given(data=st.data())
def test_concat_and_stack(dtype: str, data) -> None:
    shape = data.draw(shapes(min_dims=1, max_dims=3), label="shape")
    axis = _axis(data, len(shape))
    n = data.draw(st.integers(1, 3), label="n")
    parts = []
    for i in range(n):
        s = list(shape)
        s[axis] = data.draw(st.integers(0, 3), label=f"size{i}")
        parts.append(data.draw(arrays(dtype, tuple(s)), label=f"x{i}"))
    got, want = run_both("concat", parts, axis=axis)
    check(got, want, where=f"concat(axis={axis})")
    got, want = run_both("concat", parts, axis=None)
    check(got, want, where="concat(axis=None)")
    same = [data.draw(arrays(dtype, shape), label=f"y{i}") for i in range(n)]
    saxis = data.draw(st.integers(-len(shape) - 1, len(shape)), label="stack axis")
    got, want = run_both("stack", tuple(same), axis=saxis)
    check(got, want, where=f"stack(axis={saxis})")


@examples(8)
@given(data=st.data())
def test_concat_and_stack_promote_mixed_dtypes(data) -> None:
    d1, d2 = data.draw(st.sampled_from(promotable_pairs(ALL)), label="dtypes")
    shape = data.draw(shapes(min_dims=1, max_dims=2), label="shape")
    parts = [data.draw(arrays(d, shape), label=d) for d in (d1, d2)]
    got, want = run_both("concat", parts, axis=-1)
    check(got, want, where=f"concat({d1}, {d2})")
    got, want = run_both("stack", parts, axis=0)
    check(got, want, where=f"stack({d1}, {d2})")


@pytest.mark.parametrize("dtype", ALL)
@FEW
@given(data=st.data())
def test_axis_permutations(dtype: str, data) -> None:
    """expand_dims, squeeze, flip, permute_dims, moveaxis, matrix_transpose."""
    x = data.draw(arrays(dtype, shapes(max_dims=3)), label="x")
    n = x.ndim
    naxes = data.draw(st.integers(1, 2), label="n new axes")
    m = n + naxes
    new = data.draw(st.lists(st.integers(-m, m - 1), min_size=naxes, max_size=naxes).filter(
        lambda a: len({v % m for v in a}) == len(a)), label="expand axes")
    check(*run_both("expand_dims", x, axis=tuple(new)), where=f"expand_dims({new})")
    one = data.draw(st.integers(-n - 1, n), label="expand axis")
    check(*run_both("expand_dims", x, axis=one), where=f"expand_dims({one})")
    ones = [i for i, s in enumerate(x.shape) if s == 1]
    if ones:
        sq = data.draw(st.lists(st.sampled_from(ones), min_size=1, unique=True), label="sq")
        sq = tuple(a - n if i % 2 else a for i, a in enumerate(sq))  # some negative
        check(*run_both("squeeze", x, axis=sq), where=f"squeeze({sq})")
    flip_axis = data.draw(st.none() | (hs.valid_tuple_axes(n) if n else st.just(())),
                          label="flip axis")
    check(*run_both("flip", x, axis=flip_axis), where=f"flip({flip_axis})")
    if n:
        check(*run_both("flip", x, axis=_axis(data, n)), where="flip(int)")
    perm = tuple(data.draw(st.permutations(range(n)), label="perm"))
    check(*run_both("permute_dims", x, perm), where=f"permute_dims({perm})")
    if n:
        src = data.draw(hs.valid_tuple_axes(n, min_size=1), label="source")
        dst = data.draw(st.lists(st.integers(-n, n - 1), min_size=len(src), max_size=len(src))
                        .filter(lambda d: len({v % n for v in d}) == len(d)), label="dest")
        check(*run_both("moveaxis", x, src, tuple(dst)), where=f"moveaxis({src}, {dst})")
        check(*run_both("moveaxis", x, src[0], dst[0]), where="moveaxis(int)")
    if n >= 2:
        check(*run_both("matrix_transpose", x), where="matrix_transpose")


def _reshapes(shape):
    """A shape with the same number of elements (one entry may be -1)."""
    size = math.prod(shape)
    factors = [d for d in range(1, 7) if size % d == 0] if size else [0, 1, 2]

    @st.composite
    def strat(draw):
        if size == 0:
            out = draw(st.lists(st.sampled_from([0, 1, 2, 3]), min_size=1, max_size=3).filter(
                lambda s: 0 in s))
            return tuple(out)
        out, rest = [], size
        for _ in range(draw(st.integers(0, 3))):
            f = draw(st.sampled_from([d for d in factors if rest % d == 0]))
            out.append(f)
            rest //= f
        out.append(rest)
        out = draw(st.permutations(out))
        if draw(st.booleans()):
            out[draw(st.integers(0, len(out) - 1))] = -1
        return tuple(out)
    return strat()


@pytest.mark.parametrize("dtype", ALL)
@FEW
@given(data=st.data())
def test_reshape(dtype: str, data) -> None:
    x = data.draw(arrays(dtype, shapes(max_dims=3)), label="x")
    new = data.draw(_reshapes(x.shape), label="new shape")
    check(*run_both("reshape", x, new), where=f"reshape({x.shape} -> {new})")
    # through a transposed (non-contiguous) view
    if x.ndim >= 2:
        t = x.mT
        check(*run_both("reshape", t, (-1,)), where="reshape(x.mT, -1)")


@pytest.mark.parametrize("dtype", ALL)
@FEW
@given(data=st.data())
def test_roll_repeat_tile(dtype: str, data) -> None:
    x = data.draw(arrays(dtype, shapes(max_dims=3)), label="x")
    n = x.ndim
    shift = data.draw(st.integers(-7, 7), label="shift")
    check(*run_both("roll", x, shift), where=f"roll({shift})")
    if n:
        axes = data.draw(hs.valid_tuple_axes(n, min_size=1), label="roll axes")
        shifts = tuple(data.draw(st.integers(-5, 5), label="s") for _ in axes)
        check(*run_both("roll", x, shifts, axis=axes), where=f"roll({shifts}, {axes})")
        check(*run_both("roll", x, shift, axis=axes[0]), where=f"roll({shift}, {axes[0]})")
    reps = data.draw(st.integers(0, 3), label="repeats")
    check(*run_both("repeat", x, reps), where=f"repeat({reps})")
    if n:
        axis = _axis(data, n)
        check(*run_both("repeat", x, reps, axis=axis), where=f"repeat({reps}, axis={axis})")
        r = data.draw(arrays("int64", (data.draw(st.sampled_from([1, x.shape[axis]])),),
                             elements_=st.integers(0, 3)), label="repeats array")
        check(*run_both("repeat", x, r, axis=axis), where=f"repeat(array, axis={axis})")
    tiles = tuple(data.draw(st.lists(st.integers(0, 3), max_size=4), label="reps"))
    check(*run_both("tile", x, tiles), where=f"tile({tiles})")


@pytest.mark.parametrize("dtype", ALL)
@FEW
@given(data=st.data())
def test_unstack(dtype: str, data) -> None:
    x = data.draw(arrays(dtype, shapes(min_dims=1, max_dims=3)), label="x")
    axis = _axis(data, x.ndim)
    got, want = run_both("unstack", x, axis=axis)
    assert isinstance(got, tuple) and len(got) == len(want)
    for i, (g, w) in enumerate(zip(got, want)):
        check(g, w, where=f"unstack(axis={axis})[{i}]")
