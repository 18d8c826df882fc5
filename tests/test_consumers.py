"""Libraries that consume the array API, run on lazyarray arrays and compared with the
same calls on numpy: array-api-compat's helpers, array-api-extra's functions and
scikit-learn estimators with array API dispatch; then numpy interop (``numpy.asarray``,
the buffer protocol, DLPack both ways).

The consumer libraries come from the optional ``interop`` extra
(``pip install '.[interop]'``); the tests of a library that is missing are skipped, so
the core tests need none of them.  The README's "Known to work with" lists the results.
"""
import os
import sys
import warnings

# scikit-learn's array API dispatch needs scipy's, which scipy reads once, at import.
os.environ["SCIPY_ARRAY_API"] = "1"

import numpy as np
import pytest
from helpers import check

import lazyarray as xp

TOL = 1e-12
RNG = np.random.default_rng(7)
A = RNG.standard_normal((5, 4))
INTS = np.array([3, 1, 4, 1, 5, 9, 2, 6, 5, 3])


def both(f, *args):
    """``f(namespace, *args)`` on numpy and on lazyarray (numpy args converted)."""
    want = f(np, *args)
    got = f(xp, *(xp.asarray(a) if isinstance(a, np.ndarray) else a for a in args))
    return got, want


# --------------------------------------------------------------------------- array-api-compat

def test_compat_namespace_device_size_writeable():
    compat = pytest.importorskip("array_api_compat")
    x = xp.asarray(A)
    assert compat.array_namespace(x) is xp
    assert compat.array_namespace(x, x * 2) is xp
    assert compat.device(x) == x.device == xp.__array_namespace_info__().default_device()
    y = compat.to_device(x * 2, compat.device(x))
    check(y, A * 2)
    with pytest.raises(ValueError, match="cpu"):
        compat.to_device(x, "cuda:0")
    assert compat.size(x) == A.size
    assert compat.size(xp.placeholder(("n", 3))) is None  # symbolic size: None
    assert compat.size(xp.placeholder((2, 3))) == 6
    # Writeable: __setitem__ works (it rebinds the array to an updated graph node).
    assert compat.is_writeable_array(x)
    x[0, :] = 1.0
    want = A.copy()
    want[0, :] = 1.0
    check(x, want)


def test_compat_is_lazy_array():
    compat = pytest.importorskip("array_api_compat")
    p = xp.placeholder((3,), name="p")
    assert compat.is_lazy_array(p) and compat.is_lazy_array(xp.sin(p) + 1)
    # Arrays with values: bool() works (it evaluates), which is what "not lazy" means there.
    assert not compat.is_lazy_array(xp.asarray(A) * 2)


# --------------------------------------------------------------------------- array-api-extra

def _xpx():
    xpx = pytest.importorskip("array_api_extra")
    warnings.filterwarnings("ignore", "`xpx.*` is deprecated", DeprecationWarning)
    return xpx


EXTRA_CASES = {
    "atleast_nd": (lambda m, a: _xpx().atleast_nd(a[0, 0], ndim=3), A),
    "atleast_nd_2d": (lambda m, a: _xpx().atleast_nd(a, ndim=1), A),
    "cov": (lambda m, a: _xpx().cov(m.matrix_transpose(a)), A),
    "cov_1d": (lambda m, a: _xpx().cov(a[0, :]), A),
    "expand_dims": (lambda m, a: _xpx().expand_dims(a, axis=(0, 3)), A),
    "kron": (lambda m, a: _xpx().kron(a, a[:2, :3]), A),
    "nunique": (lambda m, i: _xpx().nunique(i), INTS),
    "pad": (lambda m, a: _xpx().pad(a, 2, constant_values=1.5), A),
    "pad_widths": (lambda m, a: _xpx().pad(a, ((1, 2), (0, 3))), A),
    "setdiff1d": (lambda m, i: _xpx().setdiff1d(i, m.asarray([1, 2, 7])), INTS),
    "setdiff1d_unique": (lambda m, i: _xpx().setdiff1d(i[4:8], m.asarray([2, 7]),
                                                       assume_unique=True), INTS),
    "sinc": (lambda m: _xpx().sinc(m.linspace(-3.0, 3.0, 13)),),
    "sinc_array": (lambda m, a: _xpx().sinc(a), A),
    "isclose": (lambda m: _xpx().isclose(m.asarray([1.0, 2.0, np.nan, np.inf, -np.inf]),
                                         m.asarray([1.0 + 1e-9, 2.1, np.nan, np.inf, np.inf]),
                                         equal_nan=True),),
    "isclose_int": (lambda m, i: _xpx().isclose(i, m.flip(i), atol=2), INTS),
    "one_hot": (lambda m, i: _xpx().one_hot(i, 10), INTS),
    "create_diagonal": (lambda m: _xpx().create_diagonal(m.asarray([1.0, 2.0, 3.0]),
                                                         offset=-1),),
    "create_diagonal_batched": (lambda m, a: _xpx().create_diagonal(a), A),
    "apply_where": (lambda m, a: _xpx().apply_where(a > 0, a, m.sqrt, fill_value=-1.0), A),
    "apply_where_two": (lambda m, a: _xpx().apply_where(
        a > 0, (a, a + 1.0), lambda u, v: u * v, lambda u, v: u - v), A),
    "lazy_apply": (lambda m, a: _xpx().lazy_apply(lambda v: np.cumsum(v, axis=0), a), A),
    "lazy_apply_shape": (lambda m, a: _xpx().lazy_apply(
        lambda v: np.argsort(v, axis=0), a, shape=a.shape, dtype=m.int64), A),
}


@pytest.mark.parametrize("name", list(EXTRA_CASES))
def test_extra_function(name):
    f, *args = EXTRA_CASES[name]
    got, want = both(f, *args)
    check(got, want, rtol=TOL, atol=TOL)


def test_extra_broadcast_shapes():
    xpx = _xpx()
    assert xpx.broadcast_shapes((4, 1, 3), (5, 1), ()) == np.broadcast_shapes((4, 1, 3), (5, 1))
    # Sizes may be None (unknown): lazyarray reports symbolic placeholder sizes so.
    p = xp.placeholder(("n", 1))
    assert xpx.broadcast_shapes(p.shape, (1, 3)) == (None, 3)


AT_CASES = {
    "set": lambda at: at((slice(None), 1)).set(7.0),
    "add": lambda at: at(np.array([0, 2])).add(1.5),
    "subtract": lambda at: at(-1).subtract(2.0),
    "multiply_mask": lambda at: at(A > 0).multiply(3.0),
    "divide": lambda at: at((slice(1, 3),)).divide(4.0),
    "power": lambda at: at(0).power(2.0),
    "min": lambda at: at(slice(None, None, 2)).min(0.0),
    "max": lambda at: at(A < 0).max(-0.5),
}


@pytest.mark.parametrize("name", list(AT_CASES))
@pytest.mark.parametrize("copy", [None, True])
def test_extra_at(name, copy):
    xpx = _xpx()

    def on(arr):
        def at(idx):
            if isinstance(idx, np.ndarray) and arr.__class__ is xp.Array:
                idx = xp.asarray(idx)
            return _Bound(xpx.at(arr, idx), copy)
        return AT_CASES[name](at)

    base = A.copy()
    want = on(base)
    x = xp.asarray(A, copy=True)
    got = on(x)
    check(got, want, rtol=TOL, atol=TOL)
    # copy=None updates in place (numpy does: a writeable array); copy=True leaves x alone.
    check(x, base if copy is None else A, rtol=TOL, atol=TOL)


class _Bound:
    """``xpx.at(...)`` with ``copy=`` passed to each update method."""

    def __init__(self, at, copy):
        self.at, self.copy = at, copy

    def __getattr__(self, op):
        return lambda v: getattr(self.at, op)(v, copy=self.copy)


JIT_CASES = ["atleast_nd", "cov", "expand_dims", "kron", "pad", "sinc_array", "one_hot",
             "create_diagonal_batched"]


@pytest.mark.parametrize("name", JIT_CASES)
def test_extra_function_under_jit(name):
    """Functions without data-dependent shapes also trace on placeholders."""
    f, *args = EXTRA_CASES[name]
    want = f(np, *args)
    check(xp.jit(lambda *a: f(xp, *a))(*args), want, rtol=TOL, atol=TOL)


def test_extra_at_under_jit_assigns_into_the_argument():
    # With copy=None, at() writes into its (writeable) argument: inside jit that is the
    # traced placeholder, and the program still takes it as its input.
    xpx = _xpx()

    def f(a, i):
        return xpx.at(xpx.at(a, i).add(1.0), (0, slice(None))).set(-2.0)

    want = f(A.copy(), INTS[:3])
    check(xp.jit(lambda a, i: f(a, i))(A, INTS[:3]), want)


def test_jit_and_trace_of_a_function_assigning_into_its_argument():
    # What at() does with copy=None, without array-api-extra: the traced function
    # rebinds its argument; the program's input stays the placeholder.
    def f(a):
        a[0] = 5.0
        return a * 2.0

    want = f(A.copy())
    check(xp.jit(f)(A), want)
    p = xp.placeholder(A.shape, name="p")
    check(xp.trace(f, p)(A), want)
    assert p.is_placeholder  # the caller's placeholder is not rebound


# --------------------------------------------------------------------------- scikit-learn

@pytest.fixture
def sklearn():
    sk = pytest.importorskip("sklearn")
    pytest.importorskip("array_api_compat")
    with sk.config_context(array_api_dispatch=True):
        yield sk


N_SAMPLES, N_FEATURES = 60, 5
X = RNG.standard_normal((N_SAMPLES, N_FEATURES)) * np.arange(1.0, 6.0) + np.arange(5.0)
Y_CLASS = np.digitize(X[:, 0] + X[:, 2] + 0.5 * RNG.standard_normal(N_SAMPLES), [-1.0, 1.0])
Y_REG = X @ np.arange(1.0, 6.0) + 0.1 * RNG.standard_normal(N_SAMPLES)
SK_TOL = 1e-9


def fit_both(make, y=None):
    """The estimator fitted on numpy inputs and on lazyarray inputs."""
    fit_args = () if y is None else (y,)
    est_np = make().fit(X, *fit_args)
    est_xp = make().fit(xp.asarray(X), *(xp.asarray(a) for a in fit_args))
    return est_np, est_xp


def check_fitted(est_xp, est_np, attrs):
    for a in attrs:
        got, want = getattr(est_xp, a), getattr(est_np, a)
        assert isinstance(got, xp.Array), (a, type(got))
        check(got, want, rtol=SK_TOL, atol=SK_TOL)


def check_method(est_xp, est_np, method, data=X):
    got = getattr(est_xp, method)(xp.asarray(data))
    assert isinstance(got, xp.Array), (method, type(got))
    check(got, getattr(est_np, method)(data), rtol=SK_TOL, atol=SK_TOL)


def test_sklearn_linear_discriminant_analysis(sklearn):
    from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
    est_np, est_xp = fit_both(LinearDiscriminantAnalysis, Y_CLASS)
    check_fitted(est_xp, est_np, ["classes_", "means_", "priors_", "coef_", "intercept_",
                                  "scalings_", "explained_variance_ratio_"])
    for method in ("predict", "predict_proba", "decision_function", "transform"):
        check_method(est_xp, est_np, method)


def test_sklearn_pca_full(sklearn):
    from sklearn.decomposition import PCA
    est_np, est_xp = fit_both(lambda: PCA(n_components=3, svd_solver="full"))
    check_fitted(est_xp, est_np, ["components_", "explained_variance_", "mean_",
                                  "singular_values_", "explained_variance_ratio_"])
    check_method(est_xp, est_np, "transform")
    Z = est_np.transform(X[:7])
    got = est_xp.inverse_transform(xp.asarray(Z))
    check(got, est_np.inverse_transform(Z), rtol=SK_TOL, atol=SK_TOL)


def test_sklearn_ridge_svd(sklearn):
    from sklearn.linear_model import Ridge
    est_np, est_xp = fit_both(lambda: Ridge(solver="svd", alpha=0.5), Y_REG)
    check_fitted(est_xp, est_np, ["coef_"])
    assert abs(float(est_xp.intercept_) - float(est_np.intercept_)) < SK_TOL * 10
    check_method(est_xp, est_np, "predict")


SCALER_ATTRS = {"StandardScaler": ["mean_", "var_", "scale_"],
                "MinMaxScaler": ["data_min_", "data_max_", "scale_", "min_"],
                "MaxAbsScaler": ["max_abs_", "scale_"], "Normalizer": []}


@pytest.mark.parametrize("scaler", list(SCALER_ATTRS))
def test_sklearn_scalers(sklearn, scaler):
    from sklearn import preprocessing
    est_np, est_xp = fit_both(getattr(preprocessing, scaler))
    check_fitted(est_xp, est_np, SCALER_ATTRS[scaler])
    check_method(est_xp, est_np, "transform", X[::3])
    if scaler != "Normalizer":
        check_method(est_xp, est_np, "inverse_transform", X[:4])


def test_sklearn_float32(sklearn):
    from sklearn.preprocessing import StandardScaler
    X32 = X.astype(np.float32)
    got = StandardScaler().fit_transform(xp.asarray(X32))
    check(got, StandardScaler().fit_transform(X32), rtol=1e-5, atol=1e-5)


def test_sklearn_metrics(sklearn):
    from sklearn import metrics
    pred = Y_REG + RNG.standard_normal(N_SAMPLES)
    for name in ("r2_score", "mean_squared_error", "mean_absolute_error"):
        got = getattr(metrics, name)(xp.asarray(Y_REG), xp.asarray(pred))
        assert abs(float(got) - getattr(metrics, name)(Y_REG, pred)) < SK_TOL, name
    got = metrics.accuracy_score(xp.asarray(Y_CLASS), xp.asarray(Y_CLASS[::-1]))
    assert float(got) == metrics.accuracy_score(Y_CLASS, Y_CLASS[::-1])


# --------------------------------------------------------------------------- numpy interop

def test_numpy_asarray_materializes_without_copying_again():
    y = xp.asarray(A) * 2.0 + 1.0
    got = np.asarray(y)
    np.testing.assert_array_equal(got, A * 2.0 + 1.0)
    assert not got.flags.writeable  # the array's own value: read-only, copy to modify
    assert np.shares_memory(np.asarray(y), got)  # evaluated once, then shared
    assert np.asarray(y, copy=True).flags.writeable
    assert np.array(y).flags.writeable and not np.shares_memory(np.array(y), got)
    assert np.asarray(y, dtype=np.float32).dtype == np.float32
    with pytest.raises(ValueError, match="copy"):
        np.asarray(y, dtype=np.float32, copy=False)
    # numpy functions that convert their inputs work; ufuncs refuse Arrays.
    assert np.mean(y) == np.mean(A * 2.0 + 1.0)
    np.testing.assert_array_equal(np.concatenate([y, y]), np.concatenate([got, got]))
    with pytest.raises(TypeError, match="ufunc"):
        np.add(y, 1.0)


@pytest.mark.skipif(sys.version_info < (3, 12), reason="Python classes can provide buffers "
                    "(__buffer__, PEP 688) from Python 3.12 on")
def test_buffer_protocol_materializes_read_only():
    y = xp.asarray(A) * 3.0
    m = memoryview(y)
    assert m.readonly and m.format == "d" and m.shape == A.shape
    np.testing.assert_array_equal(np.frombuffer(y).reshape(A.shape), A * 3.0)
    assert np.shares_memory(np.frombuffer(y), np.asarray(y))
    assert bytes(xp.asarray(np.arange(3, dtype=np.int8)) + 1) == b"\x01\x02\x03"
    with pytest.raises(TypeError, match="not writable"):
        import ctypes
        (ctypes.c_double * A.size).from_buffer(y)


def test_asarray_shares_numpy_memory_when_allowed():
    a = A.copy()
    assert np.shares_memory(xp.asarray(a).attached_value, a)
    assert np.shares_memory(xp.asarray(a, copy=False).attached_value, a)
    assert np.shares_memory(xp.asarray(a, dtype=xp.float64).attached_value, a)
    assert not np.shares_memory(xp.asarray(a, copy=True).attached_value, a)
    check(xp.asarray(a, dtype=xp.float32), a.astype(np.float32))
    strided = a[:, ::2]  # kernels read contiguous buffers: this one is copied
    check(xp.asarray(strided), strided)
    with pytest.raises(ValueError, match="copy"):
        xp.asarray(strided, copy=False)
    with pytest.raises(ValueError, match="copy"):
        xp.asarray(a, dtype=xp.float32, copy=False)


@pytest.mark.parametrize("value", [True, 7, -2.5, 1.5 - 2j])
def test_asarray_python_scalars(value):
    check(xp.asarray(value), np.asarray(value))


@pytest.mark.parametrize("value", [
    [[1, 2], [3, 4]], ((1.0, 2.0), (3.0, 4.0)), [[True], [False]], [1j, 2], [[], []],
])
def test_asarray_nested_sequences(value):
    check(xp.asarray(value), np.asarray(value))


@pytest.mark.parametrize("dtype", ["float32", "int16", "uint8", "complex64", "int64"])
def test_asarray_buffers_keep_their_dtype(dtype):
    import array
    a = (A * 10).astype(dtype)
    check(xp.asarray(memoryview(a)), a)
    if dtype in ("float32", "int16", "uint8"):
        code = {"float32": "f", "int16": "h", "uint8": "B"}[dtype]
        check(xp.asarray(array.array(code, a[0].tolist())), a[0])


def test_asarray_sequences_of_arrays():
    check(xp.asarray([xp.asarray(1.0), xp.asarray(2.0) * 2]), np.array([1.0, 4.0]))
    check(xp.asarray([A[0], A[1]]), A[:2])


def test_dlpack_producers_in():
    a = A.copy()
    x = xp.from_dlpack(a)
    assert np.shares_memory(x.attached_value, a)
    check(x, a)

    class OnlyDLPack:  # any producer: asarray uses __dlpack__ when nothing else fits
        def __dlpack__(self, **kw):
            return a.__dlpack__(**kw)

        def __dlpack_device__(self):
            return a.__dlpack_device__()

    check(xp.asarray(OnlyDLPack()), a)
    check(xp.from_dlpack(xp.asarray(a) + 1.0), a + 1.0)
    strict = pytest.importorskip("array_api_strict")
    check(xp.asarray(strict.asarray(a)), a)
    check(xp.from_dlpack(strict.asarray(a)), a)


def test_dlpack_out_to_numpy():
    y = xp.asarray(A) - 1.0
    d = np.from_dlpack(y)
    np.testing.assert_array_equal(d, A - 1.0)
    assert np.shares_memory(d, np.asarray(y))  # no copy
    assert not d.flags.writeable  # a consumer cannot change y's value
    assert np.from_dlpack(y, copy=True).flags.writeable
    # DLPack before 1.0 cannot say "read-only": such consumers get a copy.
    legacy = np.from_dlpack(_Legacy(y))
    np.testing.assert_array_equal(legacy, A - 1.0)
    assert not np.shares_memory(legacy, np.asarray(y))
    # copy=False promises no copy (the conformance suite asks for it): the value is shared.
    assert y.__dlpack__(copy=False) is not None


class _Legacy:
    """A DLPack producer wrapper that drops ``max_version`` (a pre-1.0 consumer)."""

    def __init__(self, x):
        self.x = x

    def __dlpack__(self, **kw):
        return self.x.__dlpack__()

    def __dlpack_device__(self):
        return self.x.__dlpack_device__()


def test_placeholder_values_cannot_be_exported():
    p = xp.placeholder((3,), name="p")
    for export in (np.asarray, np.from_dlpack):
        with pytest.raises(xp.ConcretizationError, match="'p'"):
            export(p + 1)
