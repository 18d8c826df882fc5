"""Creation and data type functions, namespace info and constants against array-api-strict.

Creation functions run with every dtype they allow (and ``dtype=None``, where
the result dtype is inferred from Python scalars); ``empty``/``empty_like``
compare dtype and shape only (their values are unspecified).  ``astype``
casts each source dtype to every target dtype in one program per example.
"""
from __future__ import annotations

import math

import array_api_strict as xs
import lazyarray as xp
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from _diff import (ALL, COMPLEX, FLOATING, INTEGER, REAL_FLOATING, arrays, check, evaluate_all,
                   examples, ld, name_of, rtol_for, run_both, scalars_of, sd, shapes, to_lazy)

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")

DTYPES_OR_NONE = [None] + ALL


def _opt(d):
    return None if d is None else sd(d)


# ----------------------------------------------------------------------------- filled arrays

@pytest.mark.parametrize("fname", ["zeros", "ones", "empty"])
@pytest.mark.parametrize("dtype", DTYPES_OR_NONE)
@examples(2)
@given(shape=shapes(max_dims=3))
def test_zeros_ones_empty(fname: str, dtype, shape) -> None:
    got, want = run_both(fname, shape, dtype=_opt(dtype))
    if fname == "empty":  # values unspecified
        assert name_of(got.dtype) == name_of(want.dtype) and got.shape == want.shape
    else:
        check(got, want, where=f"{fname}({shape}, {dtype})")


@pytest.mark.parametrize("fname", ["zeros_like", "ones_like", "empty_like"])
@pytest.mark.parametrize("dtype", DTYPES_OR_NONE)
@examples(2)
@given(data=st.data())
def test_like(fname: str, dtype, data) -> None:
    x = data.draw(arrays(data.draw(st.sampled_from(ALL), label="x dtype")), label="x")
    got, want = run_both(fname, x, dtype=_opt(dtype))
    if fname == "empty_like":
        assert name_of(got.dtype) == name_of(want.dtype) and got.shape == want.shape
    else:
        check(got, want, where=f"{fname}(x, {dtype})")


def _fill_values(dtype):
    """Python scalars that fit ``dtype`` (any kind when it is None)."""
    if dtype is None:
        return st.one_of(st.booleans(), st.integers(-2**63, 2**63 - 1), st.floats(),
                         st.complex_numbers())
    return scalars_of(dtype)


@pytest.mark.parametrize("dtype", DTYPES_OR_NONE)
@examples(4)
@given(data=st.data())
def test_full(dtype, data) -> None:
    shape = data.draw(shapes(max_dims=2), label="shape")
    v = data.draw(_fill_values(dtype), label="fill_value")
    got, want = run_both("full", shape, v, dtype=_opt(dtype))
    check(got, want, where=f"full({shape}, {v!r}, {dtype})")
    x = data.draw(arrays(dtype or name_of(want.dtype)), label="x")
    got, want = run_both("full_like", x, v)
    check(got, want, where=f"full_like(x, {v!r})")


# ----------------------------------------------------------------------------- ranges

@pytest.mark.parametrize("dtype", [None] + INTEGER + REAL_FLOATING)
@examples(6)
@given(data=st.data())
def test_arange(dtype, data) -> None:
    if dtype is None or np.dtype(dtype).kind in "iu":
        lo, hi = (0, 100) if dtype and dtype.startswith("u") else (-50, 50)
        num = st.integers(lo, hi)
    else:
        num = st.one_of(st.integers(-50, 50), st.floats(-50, 50).map(lambda v: round(v, 2)))
    start = data.draw(num, label="start")
    stop = data.draw(st.none() | num, label="stop")
    step = data.draw(num.filter(lambda s: s != 0 and abs(s) >= 0.25), label="step")
    if stop is None:
        args = (start,)
        if dtype and dtype.startswith("u") and start < 0:
            return
    else:
        args = (start, stop, step)
    got, want = run_both("arange", *args, dtype=_opt(dtype))
    rt = rtol_for(name_of(want.dtype), 4)
    # float ranges: start + i*step, rounded once or twice; the length ceil((stop-start)/step)
    check(got, want, rtol=rt, atol=rt * (abs(start) + abs(step) * got.shape[0]) if rt else 0,
          where=f"arange{args} dtype={dtype}")


@pytest.mark.parametrize("dtype", [None] + FLOATING)
@examples(6)
@given(data=st.data())
def test_linspace(dtype, data) -> None:
    complex_ok = dtype is None or dtype in COMPLEX
    num = st.floats(-100, 100) | st.integers(-100, 100)
    if complex_ok:
        num = num | st.complex_numbers(max_magnitude=100)
    start, stop = data.draw(num, label="start"), data.draw(num, label="stop")
    n = data.draw(st.integers(0, 7), label="num")
    endpoint = data.draw(st.booleans(), label="endpoint")
    got, want = run_both("linspace", start, stop, n, dtype=_opt(dtype), endpoint=endpoint)
    rt = rtol_for(name_of(want.dtype), 8)
    check(got, want, rtol=rt, atol=rt * (abs(start) + abs(stop)), zero_sign=False,
          where=f"linspace({start!r}, {stop!r}, {n}, endpoint={endpoint}, dtype={dtype})")


@pytest.mark.parametrize("dtype", DTYPES_OR_NONE)
@examples(3)
@given(n=st.integers(0, 4), m=st.none() | st.integers(0, 4), k=st.integers(-4, 4))
def test_eye(dtype, n: int, m, k: int) -> None:
    got, want = run_both("eye", n, m, k=k, dtype=_opt(dtype))
    check(got, want, where=f"eye({n}, {m}, k={k}, dtype={dtype})")


@pytest.mark.parametrize("fname", ["tril", "triu"])
@pytest.mark.parametrize("dtype", ALL)
@examples(3)
@given(data=st.data())
def test_tril_triu(fname: str, dtype: str, data) -> None:
    x = data.draw(arrays(dtype, shapes(min_dims=2, max_dims=3)), label="x")
    k = data.draw(st.integers(-3, 3), label="k")
    got, want = run_both(fname, x, k=k)
    check(got, want, where=f"{fname}(x, k={k})")


@pytest.mark.parametrize("indexing", ["xy", "ij"])
@pytest.mark.parametrize("dtype", ALL)
@examples(2)
@given(data=st.data())
def test_meshgrid(indexing: str, dtype: str, data) -> None:
    n = data.draw(st.integers(0, 3), label="n arrays")
    arrs = [data.draw(arrays(dtype, shapes(1, 1, max_side=3)), label=f"x{i}") for i in range(n)]
    got, want = run_both("meshgrid", *arrs, indexing=indexing)
    assert len(got) == len(want)
    for i, (g, w) in enumerate(zip(got, want)):
        check(g, w, where=f"meshgrid[{i}] indexing={indexing}")


# ----------------------------------------------------------------------------- asarray

def _nested(elements, shape):
    if not shape:
        return elements
    return st.lists(_nested(elements, shape[1:]), min_size=shape[0], max_size=shape[0])


@pytest.mark.parametrize("kind", ["bool", "int", "float", "complex", "mixed"])
@examples(4)
@given(data=st.data())
def test_asarray_python_scalars(kind: str, data) -> None:
    """dtype inferred from nested Python scalars, or given explicitly."""
    pools = {"bool": st.booleans(), "int": st.integers(-2**63, 2**63 - 1), "float": st.floats(),
             "complex": st.complex_numbers()}
    if kind == "mixed":  # bool < int < float < complex precedence
        elements = st.one_of(*pools.values())
    else:
        elements = pools[kind]
    shape = data.draw(shapes(max_dims=2, max_side=3), label="shape")
    obj = data.draw(_nested(elements, shape), label="obj")
    try:
        want = xs.asarray(obj)
    except (OverflowError, TypeError, ValueError) as e:  # e.g. ints beyond int64 mixed in
        with pytest.raises(type(e)):
            xp.asarray(obj)
        return
    check(xp.asarray(obj), want, where=f"asarray({obj!r})")


@pytest.mark.parametrize("dtype", ALL)
@examples(3)
@given(data=st.data())
def test_asarray_with_dtype(dtype: str, data) -> None:
    shape = data.draw(shapes(max_dims=2, max_side=3), label="shape")
    obj = data.draw(_nested(scalars_of(dtype), shape), label="obj")
    check(xp.asarray(obj, dtype=ld(dtype)), xs.asarray(obj, dtype=sd(dtype)),
          where=f"asarray({obj!r}, dtype={dtype})")
    x = data.draw(arrays(dtype), label="x")  # from an array (copied or not)
    for copy in (None, True):
        check(xp.asarray(to_lazy(x), copy=copy), xs.asarray(x, copy=copy),
              where=f"asarray(x, copy={copy})")


# ----------------------------------------------------------------------------- data types

def _astype_ignore(src: np.ndarray, target: str):
    """Casts whose result the standard leaves unspecified."""
    if src.dtype.kind == "f" and np.dtype(target).kind in "iu":
        # "Casting floating-point NaN and infinity values to integral data types is not
        # specified"; nor is a value beyond the target's range (numpy's C cast is undefined
        # there, lazyarray saturates).
        info = np.iinfo(np.dtype(target))
        with np.errstate(all="ignore"):
            t = np.trunc(src)
            return ~np.isfinite(src) | (t < info.min) | (t > info.max)
    return None


@pytest.mark.parametrize("dtype", ALL)
@examples(5)
@given(data=st.data())
def test_astype_to_every_dtype(dtype: str, data) -> None:
    x = data.draw(arrays(dtype, shapes(max_dims=1, max_side=8)), label="x")  # elementwise
    targets = [t for t in ALL if not (dtype in COMPLEX and t not in COMPLEX)]  # see astype
    lx = to_lazy(x)
    outs = evaluate_all([xp.astype(lx, ld(t)) for t in targets])
    for t, got in zip(targets, outs):
        want = xs.astype(x, sd(t))
        check(got, want, ignore=_astype_ignore(np.asarray(x), t), where=f"astype({dtype}->{t})")
    check(xp.astype(lx, ld(dtype), copy=False), xs.astype(x, sd(dtype), copy=False),
          where="astype(copy=False)")


def test_can_cast_result_type_isdtype_over_all_dtypes() -> None:
    kinds = ["bool", "signed integer", "unsigned integer", "integral", "real floating",
             "complex floating", "numeric", ("integral", "real floating"), ("bool", "numeric")]
    for a in ALL:
        for k in kinds:
            assert xp.isdtype(ld(a), k) == xs.isdtype(sd(a), k), f"isdtype({a}, {k})"
        for b in ALL:
            assert xp.can_cast(ld(a), ld(b)) == xs.can_cast(sd(a), sd(b)), f"can_cast({a}, {b})"
            try:
                want = name_of(xs.result_type(sd(a), sd(b)))
            except TypeError:
                with pytest.raises(TypeError):
                    xp.result_type(ld(a), ld(b))
                continue
            assert name_of(xp.result_type(ld(a), ld(b))) == want, f"result_type({a}, {b})"


@pytest.mark.parametrize("dtype", ALL)
@examples(3)
@given(data=st.data())
def test_result_type_and_can_cast_with_arrays_and_scalars(dtype: str, data) -> None:
    x = data.draw(arrays(dtype, shapes(max_dims=1)), label="x")
    other = data.draw(st.sampled_from(ALL), label="other dtype")
    assert xp.can_cast(to_lazy(x), ld(other)) == xs.can_cast(x, sd(other))
    s = data.draw(scalars_of(dtype), label="scalar")
    args = (x, s, sd(dtype))
    assert name_of(xp.result_type(*to_lazy(list(args)))) == name_of(xs.result_type(*args))


def test_finfo_iinfo() -> None:
    for d in REAL_FLOATING + COMPLEX:
        got, want = xp.finfo(ld(d)), xs.finfo(sd(d))
        for f in ("bits", "eps", "max", "min", "smallest_normal"):
            assert getattr(got, f) == getattr(want, f), f"finfo({d}).{f}"
        assert name_of(got.dtype) == name_of(want.dtype)
        assert xp.finfo(xp.asarray(np.zeros(1, d))).bits == want.bits  # from an array
    for d in INTEGER:
        got, want = xp.iinfo(ld(d)), xs.iinfo(sd(d))
        assert (got.bits, got.min, got.max) == (want.bits, want.min, want.max), f"iinfo({d})"
        assert name_of(got.dtype) == name_of(want.dtype)


def test_namespace_info_and_constants() -> None:
    gi, wi = xp.__array_namespace_info__(), xs.__array_namespace_info__()
    assert gi.capabilities() == wi.capabilities()
    assert {k: name_of(v) for k, v in gi.default_dtypes().items()} == \
        {k: name_of(v) for k, v in wi.default_dtypes().items()}
    for kind in (None, "bool", "signed integer", "unsigned integer", "integral",
                 "real floating", "complex floating", "numeric", ("bool", "integral")):
        assert sorted(gi.dtypes(kind=kind)) == sorted(wi.dtypes(kind=kind)), f"dtypes({kind})"
    for c in ("e", "pi", "inf"):
        assert getattr(xp, c) == getattr(xs, c), c
    assert math.isnan(xp.nan) and xp.newaxis is None
    assert xp.__array_api_version__ == xs.__array_api_version__
