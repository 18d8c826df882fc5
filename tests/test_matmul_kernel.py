"""The generated matmul kernel (backend/matmul.py) against numpy.

float32/float64 products take the packed GEMM or the direct (small) path; the
shapes cross the micro-tile edges (mr, nr), the k, m and n cache blocks and the
direct/packed size limit, with contiguous, transposed, strided, reversed and
broadcast operands.  Sums run in another order than numpy's, so results are
compared with a bound on the rounding error of any summation order:
``|got - want| <= 2 (k + 2) eps (|a| @ |b|)``.  Other dtypes and fused bodies
keep the generic loop nest and are compared exactly (integers) or closely.
"""
import os
import subprocess
import sys
import textwrap
from itertools import product

import numpy as np
import pytest

import lazyarray as xp
from lazyarray.backend import matmul as mm

FLOATS = ["float64", "float32"]
EDGE = [1, 2, 3, 7, 8, 15, 16, 17, 63, 64, 65, 129, 257]


def assert_matmul_close(got, a, b) -> None:
    """``got`` (a lazyarray Array) is ``a @ b`` up to the reordering bound."""
    want = np.matmul(a, b)
    g = np.asarray(got)
    assert g.shape == want.shape and g.dtype == want.dtype, (g.shape, g.dtype, want.shape)
    k = a.shape[-1]
    eps = np.finfo(want.dtype).eps
    mag = np.matmul(np.abs(a).astype(np.float64), np.abs(b).astype(np.float64))
    bound = 2 * (k + 2) * eps * mag + np.finfo(want.dtype).tiny
    finite = np.isfinite(want)
    assert np.array_equal(np.isnan(g), np.isnan(want)), "NaNs differ"
    assert np.array_equal(g[~finite & ~np.isnan(want)], want[~finite & ~np.isnan(want)])
    err = np.abs(g[finite].astype(np.float64) - want[finite].astype(np.float64))
    worst = np.max(err / bound[finite], initial=0.0)
    assert worst <= 1.0, f"error {worst:.3g} x the bound for shapes {a.shape} @ {b.shape}"


def rand(rng, shape, dtype):
    return rng.uniform(-1.0, 1.0, shape).astype(dtype)


@pytest.mark.parametrize("dtype", FLOATS)
def test_square_edges(dtype):
    rng = np.random.default_rng(0)
    for n in EDGE:
        a, b = rand(rng, (n, n), dtype), rand(rng, (n, n), dtype)
        assert_matmul_close(xp.asarray(a) @ xp.asarray(b), a, b)


@pytest.mark.parametrize("dtype", FLOATS)
def test_rectangular_combinations(dtype):
    rng = np.random.default_rng(1)
    sizes = [1, 3, 8, 17, 65, 129]
    for m, n, k in product(sizes, sizes, [1, 2, 16, 63, 257]):
        a, b = rand(rng, (m, k), dtype), rand(rng, (k, n), dtype)
        assert_matmul_close(xp.asarray(a) @ xp.asarray(b), a, b)


@pytest.mark.parametrize("dtype", FLOATS)
def test_block_boundaries(dtype):
    """Shapes past one k block, one m block, one n block and the direct-path limits."""
    t = mm.tilings()[dtype]
    rng = np.random.default_rng(2)
    shapes = [(t.mr * 3 + 1, t.nr * 2 + 3, t.kc + 1), (t.mr, t.nr, t.kc),
              (t.mr + 1, t.nr - 1, 2 * t.kc + 5), (300, t.nc + 9, 7), (t.mc + 5, 9, 3),
              (t.mc * 2 + 1, 3, 2)]
    side = round(t.direct_work ** (1 / 3))  # the direct path's limit on m * n * k
    k = t.direct_work // side ** 2
    shapes += [(side, side, k), (side, side, k + 1)]
    for m, n, k in shapes:
        a, b = rand(rng, (m, k), dtype), rand(rng, (k, n), dtype)
        assert_matmul_close(xp.asarray(a) @ xp.asarray(b), a, b)


@pytest.mark.parametrize("dtype", FLOATS)
def test_empty_sizes(dtype):
    for m, n in [(3, 4), (17, 65), (0, 5), (5, 0)]:
        a, b = np.ones((m, 0), dtype), np.ones((0, n), dtype)
        got = np.asarray(xp.asarray(a) @ xp.asarray(b))
        assert got.shape == (m, n) and got.dtype == dtype and not got.any()
    a = np.ones((0, 4), dtype)
    assert np.asarray(xp.asarray(a) @ xp.asarray(np.ones((4, 3), dtype))).shape == (0, 3)


@pytest.mark.parametrize("dtype", FLOATS)
def test_transposed_operands(dtype):
    rng = np.random.default_rng(3)
    for m, n, k in [(7, 9, 5), (64, 64, 64), (65, 17, 129), (129, 257, 63), (300, 40, 20)]:
        at, bt = rand(rng, (k, m), dtype), rand(rng, (n, k), dtype)
        A, B = xp.asarray(at), xp.asarray(bt)
        assert_matmul_close(xp.matrix_transpose(A) @ xp.matrix_transpose(B), at.T, bt.T)
        assert_matmul_close(xp.permute_dims(A, (1, 0)) @ xp.asarray(bt.T.copy()), at.T, bt.T)
        a = at.T.copy()
        assert_matmul_close(xp.asarray(a) @ xp.matrix_transpose(B), a, bt.T)
        assert_matmul_close(B @ A, bt, at)
        # the output transposed, read by a later kernel
        prod = xp.asarray(a) @ xp.matrix_transpose(B)
        np.testing.assert_array_equal(np.asarray(xp.matrix_transpose(prod)), np.asarray(prod).T)


@pytest.mark.parametrize("dtype", FLOATS)
def test_strided_and_reversed_operands(dtype):
    rng = np.random.default_rng(4)
    a, b = rand(rng, (140, 90), dtype), rand(rng, (90, 300), dtype)
    A, B = xp.asarray(a), xp.asarray(b)
    s = np.s_
    cases = [(s[::2, ::3], s[::3, 1::2]), (s[::-1, ::-1], s[::-1, :]),
             (s[3:70, 5:77], s[10:82, ::-2]), (s[1:2, :], s[:, 7:8]), (s[::7, ::9], s[::9, ::5])]
    for sa, sb in cases:
        assert_matmul_close(A[sa] @ B[sb], a[sa], b[sb])


@pytest.mark.parametrize("dtype", FLOATS)
def test_row_chunks_with_offsets(dtype):
    """Row ranges of A at any offset and length (as a threaded split of m would run)."""
    rng = np.random.default_rng(5)
    a, b = rand(rng, (130, 70), dtype), rand(rng, (70, 50), dtype)
    A, B = xp.asarray(a), xp.asarray(b)
    for lo, hi in [(0, 1), (1, 15), (13, 14), (14, 29), (29, 130), (57, 101)]:
        assert_matmul_close(A[lo:hi] @ B, a[lo:hi], b)
        assert_matmul_close(A[lo:hi] @ B[:, 3:], a[lo:hi], b[:, 3:])


@pytest.mark.parametrize("dtype", FLOATS)
def test_row_ranges_give_the_same_bits(dtype):
    """Rows of a product over several k blocks are bit for bit the rows of the whole,
    though the whole takes the packed path and a few of its rows the direct one."""
    t = mm.tilings()[dtype]
    k, n = 2 * t.kc + 37, t.narrow * t.dnv * t.lanes + 3
    m = t.direct_work // (n * k) + 2 * t.mr + 5  # the whole is past the direct limit
    rng = np.random.default_rng(12)
    a, b = rand(rng, (m, k), dtype), rand(rng, (k, n), dtype)

    def compiled(a, b):
        x, y = xp.placeholder(a.shape, getattr(xp, dtype)), xp.placeholder(b.shape, getattr(xp, dtype))
        return np.asarray(xp.compile(x @ y, inputs=[x, y]).prepare(a, b)(a, b))

    whole = compiled(a, b)
    assert_matmul_close(xp.asarray(whole), a, b)
    for lo, hi in [(0, t.mr), (0, 8), (t.split, 3 * t.split), (5, 7), (m - 2, m)]:
        assert np.array_equal(compiled(a[lo:hi], b), whole[lo:hi]), (lo, hi)


@pytest.mark.parametrize("dtype", FLOATS)
def test_narrow_products_past_the_direct_limit(dtype):
    """At most ``narrow`` direct column tiles of columns (n <= narrow nr of the direct
    path, backend/tiling.py): the direct path however large the product (A read in place, not
    packed), over several k blocks, with a transposed A too; values within the bound,
    and row ranges with the whole's bits.  One column more takes the packed path."""
    t = mm.tilings()[dtype]
    nr = t.dnv * t.lanes
    k = 2 * t.kc + 37
    rng = np.random.default_rng(21)
    wide = t.narrow * nr
    for n in (2, 5, nr, nr + 1, 2 * nr + 3, wide, wide + 1):
        m = t.direct_work // (n * k) + 3 * t.dmr + 5  # past the direct path's size limit
        a, b = rand(rng, (m, k), dtype), rand(rng, (k, n), dtype)
        A, B = xp.asarray(a), xp.asarray(b)
        whole = A @ B
        assert_matmul_close(whole, a, b)
        whole = np.asarray(whole)
        for lo, hi in [(0, t.dmr), (3, 3 * t.dmr + 1), (m - 2, m)]:
            assert np.array_equal(np.asarray(A[lo:hi] @ B), whole[lo:hi]), (n, lo, hi)
        at = np.ascontiguousarray(a.T)
        assert_matmul_close(xp.asarray(at).T @ B, a, b)


@pytest.mark.parametrize("dtype", FLOATS)
def test_thread_counts_give_the_same_bits(monkeypatch, dtype):
    """Rows split into chunks (here rounds of them: always split) give the bits of one
    call, as they take the direct path where the whole takes the packed one."""
    from lazyarray.backend import runtime, threads
    t = mm.tilings()[dtype]
    k, n = 2 * t.kc + 37, t.narrow * t.dnv * t.lanes + 3
    m = 2 * (t.direct_work // (n * k)) + 2 * t.split + 1
    rng = np.random.default_rng(13)
    a, b = rand(rng, (m, k), dtype), rand(rng, (k, n), dtype)
    got = {}
    for count in ("1", "2", "3"):
        monkeypatch.setenv("LAZYARRAY_NUM_THREADS", count)
        monkeypatch.setitem(threads.SLICE, "matmul", 1 << 40 if count == "1" else m * n * k // 7)
        x, y = xp.placeholder((m, k), getattr(xp, dtype)), xp.placeholder((k, n), getattr(xp, dtype))
        p = xp.compile(x @ y, inputs=[x, y]).prepare(a, b)
        (runner,) = p._runners.values()
        assert any(isinstance(s, runtime.Chunked) for s in runner.steps) == (count != "1")
        got[count] = np.asarray(p(a, b))
    assert np.array_equal(got["1"], got["2"]) and np.array_equal(got["1"], got["3"])


@pytest.mark.parametrize("dtype", FLOATS)
def test_matrix_vector_thread_counts_give_the_same_bits(monkeypatch, dtype):
    """X @ w and X.T @ r split into row chunks give the bits of one call (each chunk
    takes the whole's path: gemv, or vecmat on the transposed problem)."""
    from lazyarray.backend import runtime, threads
    rng = np.random.default_rng(14)
    m, k = 1203, 517
    x, v = rand(rng, (k, m), dtype), rand(rng, (k,), dtype)
    got = {}
    for count in ("1", "2", "3"):
        monkeypatch.setenv("LAZYARRAY_NUM_THREADS", count)
        monkeypatch.setitem(threads.SLICE, "matmul", 1 << 40 if count == "1" else m * k // 7)
        a, w = xp.placeholder((k, m), getattr(xp, dtype)), xp.placeholder((k,), getattr(xp, dtype))
        b, u = xp.placeholder((m, k), getattr(xp, dtype)), xp.placeholder((k,), getattr(xp, dtype))
        p = xp.compile([xp.matrix_transpose(a) @ w, b @ u], inputs=[a, w, b, u])
        p = p.prepare(x, v, x.T.copy(), v)
        (runner,) = p._runners.values()
        assert any(isinstance(s, runtime.Chunked) for s in runner.steps) == (count != "1")
        got[count] = [np.asarray(o) for o in p(x, v, x.T.copy(), v)]
    assert_matmul_close(xp.asarray(got["1"][0]), x.T, v)
    assert_matmul_close(xp.asarray(got["1"][1]), x.T.copy(), v)
    for count in ("2", "3"):
        assert all(np.array_equal(g, w) for g, w in zip(got[count], got["1"]))


@pytest.mark.parametrize("threads", ["2", "3"])
def test_threaded_chunks(monkeypatch, threads):
    """The runtime may run the kernel in chunks of m (or of a batch axis): each chunk
    is the same code at another size and offset."""
    monkeypatch.setenv("LAZYARRAY_NUM_THREADS", threads)
    rng = np.random.default_rng(11)
    for dtype in FLOATS:
        for sa, sb in [((300, 70), (70, 50)), ((257, 129), (129, 65)), ((3, 200, 40), (3, 40, 30)),
                       ((1000, 64), (64, 64))]:
            a, b = rand(rng, sa, dtype), rand(rng, sb, dtype)
            assert_matmul_close(xp.asarray(a) @ xp.asarray(b), a, b)


@pytest.mark.parametrize("dtype", FLOATS)
def test_broadcast_operands(dtype):
    rng = np.random.default_rng(6)
    row, col = rand(rng, (1, 40), dtype), rand(rng, (40, 1), dtype)
    b = rand(rng, (40, 33), dtype)
    A = xp.broadcast_to(xp.asarray(row), (20, 40))
    assert_matmul_close(A @ xp.asarray(b), np.broadcast_to(row, (20, 40)), b)
    B = xp.broadcast_to(xp.asarray(col), (40, 70))
    a = rand(rng, (300, 40), dtype)
    assert_matmul_close(xp.asarray(a) @ B, a, np.broadcast_to(col, (40, 70)))


@pytest.mark.parametrize("dtype", FLOATS)
def test_vectors_and_batches(dtype):
    rng = np.random.default_rng(7)
    shapes = [((65,), (65, 17)), ((17, 65), (65,)), ((129,), (129,)),
              ((4, 17, 65), (4, 65, 9)), ((1, 63, 8), (3, 8, 64)), ((63, 8), (3, 8, 64)),
              ((3, 17, 65), (65,)), ((3, 20, 30), (3, 30, 1)), ((2, 3, 9, 5), (3, 5, 7)),
              ((5, 300, 20), (5, 20, 40))]
    for sa, sb in shapes:
        a, b = rand(rng, sa, dtype), rand(rng, sb, dtype)
        assert_matmul_close(xp.asarray(a) @ xp.asarray(b), a, b)
    c = rand(rng, (3, 40, 20), dtype)
    C = xp.asarray(c)
    assert_matmul_close(xp.permute_dims(C, (1, 0, 2)) @ xp.matrix_transpose(C)[0],
                        c.transpose(1, 0, 2), c.transpose(0, 2, 1)[0])


@pytest.mark.parametrize("dtype", FLOATS)
def test_matrix_vector_paths(dtype):
    """One output column (the gemv path: row blocks of 4, masked k tails) or one output
    row (the vecmat path: 4 rows of B per pass, a k remainder), across their edges,
    with strides that send them to the other paths, infinities and NaNs."""
    rng = np.random.default_rng(11)
    sizes = [1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 33, 64, 65, 130]
    for m, k in product(sizes, [1, 2, 3, 5, 8, 16, 17, 33, 100]):
        a, x = rand(rng, (m, k), dtype), rand(rng, (k,), dtype)
        assert_matmul_close(xp.asarray(a) @ xp.asarray(x), a, x)
        assert_matmul_close(xp.asarray(x) @ xp.asarray(a.T.copy()), x, a.T.copy())
        assert_matmul_close(xp.asarray(a) @ xp.asarray(x[:, None]), a, x[:, None])
        # A's columns contiguous (X.T @ r): the vecmat path on the transposed problem
        assert_matmul_close(xp.matrix_transpose(xp.asarray(a.T.copy())) @ xp.asarray(x), a, x)
    a, x = rand(rng, (40, 50), dtype), rand(rng, (50,), dtype)
    A = xp.asarray(a)
    assert_matmul_close(xp.matrix_transpose(A) @ xp.asarray(a[:, 0].copy()), a.T, a[:, 0])
    assert_matmul_close(xp.asarray(x[::-1].copy()) @ xp.matrix_transpose(A), x[::-1], a.T)
    assert_matmul_close(A[:, ::2] @ xp.asarray(x[:25].copy()), a[:, ::2], x[:25])
    a[3, 7], a[10, 0], x[49] = np.nan, np.inf, -np.inf
    with np.errstate(invalid="ignore"):
        assert_matmul_close(xp.asarray(a) @ xp.asarray(x), a, x)
        assert_matmul_close(xp.asarray(x) @ xp.asarray(a.T.copy()), x, a.T.copy())


@pytest.mark.parametrize("dtype", FLOATS)
def test_nan_and_inf_propagate(dtype):
    rng = np.random.default_rng(8)
    for m, n, k in [(5, 9, 4), (65, 40, 30), (300, 33, 300)]:
        a, b = rand(rng, (m, k), dtype), rand(rng, (k, n), dtype)
        a[m // 2, k // 2] = np.nan
        b[k - 1, n - 1] = np.inf
        b[0, 0] = -np.inf
        with np.errstate(invalid="ignore"):
            assert_matmul_close(xp.asarray(a) @ xp.asarray(b), a, b)


@pytest.mark.parametrize("dtype", FLOATS)
def test_vecdot_and_tensordot(dtype):
    rng = np.random.default_rng(9)
    x, y = rand(rng, (17, 65), dtype), rand(rng, (17, 65), dtype)
    got = np.asarray(xp.vecdot(xp.asarray(x), xp.asarray(y)))
    np.testing.assert_allclose(got, np.sum(x * y, axis=-1), rtol=1e-5, atol=1e-5)
    t1, t2 = rand(rng, (7, 8, 15), dtype), rand(rng, (8, 15, 16), dtype)
    got = np.asarray(xp.tensordot(xp.asarray(t1), xp.asarray(t2)))
    np.testing.assert_allclose(got, np.tensordot(t1, t2), rtol=1e-4, atol=1e-4)


def test_other_bodies_keep_the_generic_loop():
    rng = np.random.default_rng(10)
    for dt in ("int64", "int32", "uint8"):
        a, b = rng.integers(0, 9, (17, 65)).astype(dt), rng.integers(0, 9, (65, 33)).astype(dt)
        np.testing.assert_array_equal(np.asarray(xp.asarray(a) @ xp.asarray(b)), a @ b)
    a, b = rand(rng, (17, 65), "float32"), rand(rng, (65, 33), "float64")
    assert_matmul_close(xp.asarray(a) @ xp.asarray(b), a.astype(np.float64), b)
    z = (rng.standard_normal((9, 20)) + 1j * rng.standard_normal((9, 20))).astype(np.complex128)
    np.testing.assert_allclose(np.asarray(xp.asarray(z) @ xp.asarray(z.T.copy())), z @ z.T,
                               rtol=1e-12, atol=1e-12)
    a, b = rand(rng, (30, 40), "float64"), rand(rng, (40, 20), "float64")
    assert_matmul_close(xp.sin(xp.asarray(a)) @ (xp.asarray(b) * 2 + 1), np.sin(a), b * 2 + 1)


_NO_MEMORY = textwrap.dedent("""
    import ctypes, os, resource
    import numpy as np
    # glibc: a fixed M_MMAP_THRESHOLD maps every big block afresh (no reuse of freed heap),
    # and one arena (M_ARENA_MAX): a failed block is not taken from a thread's arena,
    # whose reserve VmSize already counts (the preload thread's leaves megabytes free)
    ctypes.CDLL(None).mallopt(-3, 128 << 10)
    ctypes.CDLL(None).mallopt(-8, 1)
    os.environ["LAZYARRAY_NUM_THREADS"] = "1"
    import lazyarray as xp
    n = 600
    a, b = np.ones((n, n)), np.ones((n, n)).T  # a transposed b: the packed path
    pa, pb = xp.placeholder((n, n), xp.float64), xp.placeholder((n, n), xp.float64)
    p = xp.compile(pa @ pb, inputs=[pa, pb]).prepare(a, b)
    for _ in range(3):  # warm: the first calls may compile the native front door
        assert np.asarray(p(a, b))[0, 0] == n
    from lazyarray.backend import native
    native.flush()  # no background work maps memory once the limit is measured
    vm = [int(x.split()[1]) * 1024 for x in open("/proc/self/status") if x.startswith("VmSize")][0]
    # room for the output and the C-order copy of b, not for the packing scratch (1.4 MB)
    limit = vm + 2 * n * n * 8 + (512 << 10)
    resource.setrlimit(resource.RLIMIT_AS, (limit, resource.RLIM_INFINITY))
    try:
        p(a, b)
        print("no error")
    except (RuntimeError, MemoryError) as e:
        print("raised", e)
    resource.setrlimit(resource.RLIMIT_AS, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
    assert np.asarray(p(a, b))[0, 0] == n
""")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="needs glibc, RLIMIT_AS, /proc")
def test_scratch_allocation_failure_reports_an_error():
    """A failed malloc of the packing scratch sets the error record and writes nothing."""
    r = subprocess.run([sys.executable, "-c", _NO_MEMORY], capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 0, r.stderr
    assert "raised" in r.stdout, r.stdout


def test_fast_path_detection():
    """Which kernels the GEMM routine serves: float products of two loads only (a
    mixed-dtype operand is cast in a kernel of its own first)."""
    from lazyarray.backend.schedule import schedule
    from lazyarray.backend.ir import snapshot

    def kernel_of(expr):
        roots, nodes = snapshot([expr._node])
        outs = [[id(n) for n in nodes].index(id(r)) for r in roots]
        return [k for k in schedule(nodes, outs).kernels if k.matmul][0]

    f64, f32 = np.ones((3, 4)), np.ones((4, 2), np.float32)
    assert mm.fast_operands(kernel_of(xp.asarray(f64) @ xp.asarray(f64.T.copy()))) is not None
    assert mm.fast_operands(kernel_of(xp.asarray(f32.T.copy()) @ xp.asarray(f32))) is not None
    i, z = np.ones((3, 3), np.int64), np.ones((3, 3), np.complex64)
    assert mm.fast_operands(kernel_of(xp.asarray(i) @ xp.asarray(i))) is None
    assert mm.fast_operands(kernel_of(xp.asarray(z) @ xp.asarray(z))) is None


def test_gemm_routine_is_one_shared_unit():
    """The GEMM routine is a unit of its own (backend/library.py), compiled once per
    machine and loaded once per process; compiled kernels declare it, and interpreted
    contractions call it once it is loaded (generic loops before)."""
    from lazyarray.backend import library, native, tiers
    from lazyarray.backend.cache import PROGRAMS
    av = np.random.default_rng(7).uniform(-1, 1, (20, 20))
    a = xp.asarray(av)
    np.testing.assert_allclose(np.asarray(a @ a), av @ av, rtol=1e-12, atol=1e-12)
    native.flush()
    unit = library.gemm_unit("float64")
    loaded = native.STORE.find(unit.name)
    assert loaded is not None
    b = xp.asarray(av * 2)
    np.testing.assert_allclose(np.asarray((a @ b) + 1), av @ (av * 2) + 1, rtol=1e-12, atol=1e-12)
    p = xp.compile((a @ b) * 3).prepare()
    np.testing.assert_allclose(np.asarray(p()), av @ (av * 2) * 3, rtol=1e-12, atol=1e-12)
    assert native.STORE.find(unit.name) is loaded  # the same routine, never loaded twice
    text = "\n".join(PROGRAMS.ir_modules(p.program._schedule))
    assert 'declare void @"lazyarray_gemm_float64"' in text
    assert "define" not in "".join(ln for ln in text.splitlines() if "lazyarray_gemm" in ln)
    assert tiers.kernel_unit(tiers.kernel_abis(p.program._schedule)[0]).needs == (unit,)


def test_gemm_library_from_the_disk_cache_in_a_new_process(tmp_path):
    code = ("import numpy as np, lazyarray as xp; from lazyarray.backend import native; "
            "a = xp.asarray(np.eye(3) * 2); "
            "r = np.asarray(a @ a); assert (r == np.eye(3) * 4).all(); "
            "print(native.STORE.ready('lazyarray_gemm_float64')); native.flush()")
    env = dict(os.environ, LAZYARRAY_CACHE_DIR=str(tmp_path), LAZYARRAY_DISK_CACHE="1",
               LAZYARRAY_PREBUILD="0")
    runs = [subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                           check=True).stdout.split() for _ in range(2)]
    # first process: compiled in the background (the product ran on generic loops);
    # second: loaded from the disk cache at once
    assert runs[0] == ["False"] and runs[1] == ["True"]
