"""The background compile queue (backend/native.py, parallel.py, runtime.py): a unit
asked for on every run is queued once; until the native pool is loaded, runs neither read
the disk for it nor hand kernels split for it to the Python pool; a kernel split for the
pool runs whole when no worker is free."""
import numpy as np
import pytest

import lazyarray as xp
from lazyarray.backend import native, parallel, threads


def _idle_store() -> native.Store:
    store = native.Store()
    store._stopping = True  # no background thread: the queue is only looked at
    return store


def test_a_unit_asked_for_on_every_run_is_queued_once():
    store = _idle_store()
    unit = native.Unit("lazyarray_test_unit", ("blocks", "unit_ir", (("iota",),)), ("x",))
    for _ in range(100):
        assert store.get(unit, wait=False, priority=native.URGENT, disk=False) is None
    assert store._queue.qsize() == 1
    later = native.Unit("lazyarray_test_later", ("blocks", "unit_ir", (("iota",),)), ("y",))
    store.get(later, wait=False, priority=native.LATER, disk=False)
    for _ in range(100):  # moved up once, not once a call
        store.get(later, wait=False, priority=native.URGENT, disk=False)
    assert store._queue.qsize() == 3


def test_the_pool_unit_is_looked_for_on_disk_once(monkeypatch):
    seen = []

    def get(unit, wait=True, disk=True, **kw):
        seen.append(disk)
        return None  # still compiling
    monkeypatch.setattr(parallel, "_pool", None)
    monkeypatch.setattr(parallel, "_asked", False)
    monkeypatch.setattr(parallel, "available", lambda: True)
    monkeypatch.setattr(native, "get", get)
    assert [parallel.pool() for _ in range(5)] == [None] * 5
    assert seen == [True, False, False, False, False]


def _split_program(n: int):
    x = np.linspace(-2, 2, n)
    return x, xp.asarray(x)


def _check(x, a) -> None:
    got = np.asarray(xp.sin(a) * 2.5 - 1.0 + 0.0 * xp.cos(a))
    np.testing.assert_allclose(got, np.sin(x) * 2.5 - 1.0, rtol=1e-15, atol=1e-15)


def test_a_kernel_split_for_the_native_pool_runs_whole_until_it_is_loaded(monkeypatch):
    n = 4 * threads.NATIVE_MIN["math"]  # split for the native pool, not for the Python one
    assert n < threads.PYTHON_MIN["math"]
    x, a = _split_program(n)
    batches = []
    real_run = threads.run

    def run(calls):
        batches.append(len(calls))
        return real_run(calls)
    monkeypatch.setattr(threads, "run", run)
    monkeypatch.setattr(parallel, "pool", lambda wait=False: None)
    monkeypatch.setattr(threads, "num_threads", lambda: 2)
    monkeypatch.setattr(parallel, "available", lambda: True)
    _check(x, a)
    assert batches == []  # one call on this thread: neither thread pool
    long = xp.asarray(np.linspace(-2, 2, 3 * threads.SLICE["math"] // 2))
    float(xp.sum(xp.sin(long) * 2.0))  # large enough for the Python pool: split there
    assert batches and max(batches) == 2, batches


def test_a_kernel_runs_whole_when_no_worker_is_allowed(monkeypatch):
    pool = parallel.pool(wait=True)
    if pool is None or pool.workers < 1:
        pytest.skip("no native pool here")
    x, a = _split_program(4 * threads.NATIVE_MIN["math"])
    calls = []
    real_run = pool.run
    monkeypatch.setattr(pool, "run", lambda *args: calls.append(args) or real_run(*args))
    monkeypatch.setattr(pool, "adapt", False)  # the monitor leaves the allowance alone
    try:
        pool.allow(0)  # other processes keep every core busy
        _check(x, a)
        assert calls == []
        pool.allow(pool.workers)
        _check(x, a)
        assert calls  # split again once a worker is free
    finally:
        pool.allow(pool.workers)


def test_a_background_compile_whose_worker_dies_waits_for_a_new_worker(monkeypatch):
    """An LLVM call in this process cannot be abandoned at exit (LLVM running while the
    interpreter shuts down aborts it), so a background compile never runs here while
    a worker can be had: the worker dying under it means the next worker compiles it."""
    import threading
    import uuid

    from lazyarray.backend import blocks, worker
    pool = worker.pool()
    if pool is None or not pool.usable():
        pytest.skip("no compile worker here")
    # the process's own background compiles (the bundle's) finished first: a worker they
    # share with this test's store dies under them too, and their failures count
    native.flush()
    real = worker.Worker.compile
    killed = []

    def dies_once(self, builder, quick, timeout=worker.DEFAULT_TIMEOUT):
        if not killed:
            killed.append(self.proc.pid)
            self.proc.kill()  # mid-request, as an LLVM abort in the child would
        return real(self, builder, quick, timeout)
    monkeypatch.setattr(worker.Worker, "compile", dies_once)
    store = native.Store()
    here = []
    monkeypatch.setattr(store, "codegen", lambda: here.append(threading.current_thread().name))
    key = ("iota",)
    unit = native.Unit(f"lazyarray_test_{uuid.uuid4().hex}", ("blocks", "unit_ir", (key,)),
                       (blocks.symbol(key),))
    ready = threading.Event()
    assert store.get(unit, wait=False, on_ready=lambda a: ready.set(), disk=False) is None
    try:
        assert ready.wait(120), "the background compile did not finish"
    finally:
        store.stop()
    assert killed and here == []  # compiled by a second worker, not by this process
    assert store.stats.background == 1 and store.stats.compiles == 1
