"""The fft extension against numpy: every transform with n/s, axis/axes and
norm, the standard's result dtypes, fftfreq/rfftfreq, fftshift/ifftshift,
errors, and symbolic-size programs.
"""
import numpy as np
import pytest

import lazyarray as xp
from lazyarray import fft as F

from helpers import data, npd

COMPLEX = ["complex64", "complex128"]
REAL = ["float32", "float64"]
C_OF = {"float32": "complex64", "float64": "complex128"}
R_OF = {"complex64": "float32", "complex128": "float64"}


def check(got, want, dtype):
    """``got`` has numpy's shape and values, and exactly the dtype ``dtype``."""
    g = np.asarray(got)
    assert g.dtype == np.dtype(dtype), (g.dtype, dtype)
    assert g.shape == np.shape(want), (g.shape, np.shape(want))
    single = np.dtype(dtype) in (np.float32, np.complex64)
    t = 2e-4 if single else 1e-10
    scale = max(1.0, float(np.max(np.abs(want)))) if np.size(want) else 1.0
    np.testing.assert_allclose(g, want, rtol=t, atol=t * scale)


ONE_AXIS = [{}, {"n": 3}, {"n": 9, "axis": 0}, {"axis": -2, "norm": "ortho"},
            {"n": 6, "norm": "forward"}]


@pytest.mark.parametrize("dtype", COMPLEX)
@pytest.mark.parametrize("name", ["fft", "ifft", "irfft", "hfft"])
def test_complex_input_transforms(name, dtype):
    rng = np.random.default_rng(0)
    a = data((4, 5), dtype, rng)
    out = dtype if name in ("fft", "ifft") else R_OF[dtype]
    for kw in ONE_AXIS:
        check(getattr(F, name)(xp.asarray(a), **kw), getattr(np.fft, name)(a, **kw), out)


@pytest.mark.parametrize("dtype", REAL)
@pytest.mark.parametrize("name", ["rfft", "ihfft"])
def test_real_input_transforms(name, dtype):
    rng = np.random.default_rng(1)
    a = data((4, 5), dtype, rng)
    for kw in ONE_AXIS:
        check(getattr(F, name)(xp.asarray(a), **kw), getattr(np.fft, name)(a, **kw), C_OF[dtype])


ND = [{}, {"axes": (0,)}, {"axes": (2, 0), "s": (3, 4)}, {"axes": (-1, 1), "s": (-1, 6)},
      {"axes": (1, 2), "norm": "ortho"}, {"axes": (0, 1, 2), "s": (2, 3, 5), "norm": "forward"}]


@pytest.mark.parametrize("dtype", COMPLEX + REAL)
def test_n_dimensional_transforms(dtype):
    rng = np.random.default_rng(2)
    a = data((3, 4, 5), dtype, rng)
    names = ["fftn", "ifftn", "irfftn"] if dtype in COMPLEX else ["rfftn"]
    for name in names:
        out = {"irfftn": R_OF, "rfftn": C_OF}.get(name, {dtype: dtype})[dtype]
        for kw in ND:
            check(getattr(F, name)(xp.asarray(a), **kw), getattr(np.fft, name)(a, **kw), out)


def test_round_trips_and_consumers():
    rng = np.random.default_rng(3)
    z = data((3, 8), "complex128", rng)
    r = data((3, 7), "float64", rng)
    Z, R = xp.asarray(z), xp.asarray(r)
    check(F.ifft(F.fft(Z)), z, "complex128")
    check(F.ifftn(F.fftn(Z, norm="ortho"), norm="ortho"), z, "complex128")
    check(F.irfft(F.rfft(R), n=7), r, "float64")
    check(F.irfftn(F.rfftn(R), s=(3, 7), axes=(0, 1)), r, "float64")
    # Native ops consume an external's result inside one program.
    check(xp.sum(xp.abs(F.fft(Z)), axis=-1), np.abs(np.fft.fft(z)).sum(-1), "float64")
    check(F.rfft(R * 2.0 + 1.0) * 0.5, np.fft.rfft(r * 2.0 + 1.0) * 0.5, "complex128")
    check(F.fft(Z.mT, axis=0), np.fft.fft(z.T, axis=0), "complex128")


@pytest.mark.parametrize("dtype", REAL)
def test_frequencies(dtype):
    d = getattr(xp, dtype)
    for n in (1, 2, 7, 8):
        for spacing in (1.0, 0.25):
            check(F.fftfreq(n, d=spacing, dtype=d), np.fft.fftfreq(n, spacing), dtype)
            check(F.rfftfreq(n, d=spacing, dtype=d), np.fft.rfftfreq(n, spacing), dtype)
    assert F.fftfreq(4).dtype == xp.float64 and F.rfftfreq(4).dtype == xp.float64
    assert F.fftfreq(5).attached_value is not None  # a creation function: a data leaf


def test_shifts():
    rng = np.random.default_rng(4)
    for shape in ((1,), (5,), (6,), (3, 4), (2, 5, 3)):
        for dtype in ("float64", "complex64", "int32"):
            a = (rng.standard_normal(shape) * 10).astype(dtype)
            axes_choices = [None, 0, -1, tuple(range(len(shape)))[::-1]]
            for axes in axes_choices:
                for name in ("fftshift", "ifftshift"):
                    got = getattr(F, name)(xp.asarray(a), axes=axes)
                    want = getattr(np.fft, name)(a, axes=axes)
                    assert npd(got) == a.dtype
                    np.testing.assert_array_equal(np.asarray(got), want)
    x = xp.placeholder((4, 5), name="x")
    assert xp.compile(F.fftshift(x), [x]).ops == ("slice", "slice", "concat", "slice",
                                                  "slice", "concat")


def test_errors():
    z = xp.asarray(np.ones((2, 4), np.complex128))
    r = xp.ones((2, 4))
    with pytest.raises(TypeError, match="complex"):
        F.fft(r)
    with pytest.raises(TypeError, match="real"):
        F.rfft(z)
    with pytest.raises(TypeError):
        F.ihfft(z)
    for bad in (0, -2, 2.5, True):
        with pytest.raises(ValueError, match="n must"):
            F.fft(z, n=bad)
    with pytest.raises(ValueError, match="norm"):
        F.ifft(z, norm="none")
    with pytest.raises(IndexError):
        F.fft(z, axis=2)
    with pytest.raises(ValueError, match="axes"):
        F.fftn(z, s=(2, 2))
    with pytest.raises(ValueError, match="same length"):
        F.fftn(z, s=(2,), axes=(0, 1))
    with pytest.raises(ValueError, match="length would be 0"):
        F.irfft(xp.asarray(np.ones((3, 1), np.complex64)))
    with pytest.raises(ValueError):
        F.fftfreq(4, dtype=xp.complex128)
    with pytest.raises(ValueError):
        F.fftfreq(0)


def test_symbolic_programs():
    rng = np.random.default_rng(5)
    x = xp.placeholder(("b", "m"), xp.float32, name="x")
    spec = F.rfft(x)
    assert spec.dtype == xp.complex64
    prog = xp.compile([spec, F.irfft(spec), F.fftshift(x, axes=1), F.hfft(F.ihfft(x))], [x])
    misses = []
    for shape in ((2, 8), (3, 5), (1, 2)):
        a = data(shape, "float32", rng)
        s, back, shifted, h = prog(a)
        check(s, np.fft.rfft(a), "complex64")
        check(back, np.fft.irfft(np.fft.rfft(a)), "float32")
        check(shifted, np.fft.fftshift(a, axes=1), "float32")
        check(h, np.fft.hfft(np.fft.ihfft(a)), "float32")
        misses.append(xp.compile_cache_info().misses)
    assert misses[0] == misses[-1]  # one compile serves every size
    z = xp.placeholder(("p", "q", 4), xp.complex128, name="z")
    prog = xp.compile(F.irfftn(F.fftn(z, axes=(0, 2)), axes=(1, 2)), [z])
    for shape in ((2, 3, 4), (5, 2, 4)):
        a = data(shape, "complex128", rng)
        check(prog(a), np.fft.irfftn(np.fft.fftn(a, axes=(0, 2)), axes=(1, 2)), "float64")


def test_double_precision_results_are_cast_to_the_standard_dtype(monkeypatch):
    # numpy < 2 computes float32/complex64 transforms in double precision.
    def old_rfft(a, n, axis, norm):
        return np.fft.rfft(a.astype(np.float64), n=n, axis=axis, norm=norm)

    monkeypatch.setitem(F._NP, "rfft", old_rfft)
    a = data((3, 10), "float32", np.random.default_rng(6))
    got = F.rfft(xp.asarray(a), n=13, axis=0)  # params no other test records
    check(got, np.fft.rfft(a, n=13, axis=0), "complex64")
