"""Tiered compilation: quick machine code first, optimised code swapped in once a
program runs again, with the same results, no cache miss, and every runner and
native front door moved to the new code."""
import ctypes
import json
import os
import subprocess
import sys

import numpy as np
import pytest

import lazyarray as xp
from lazyarray.backend import tiering

from helpers import misses

pytestmark = pytest.mark.skipif(not tiering.enabled(), reason="LAZYARRAY_TIERED=0")


@pytest.fixture(autouse=True)
def no_pending_upgrades():
    tiering.flush()  # of earlier tests: the counts below are this test's


def upgrades() -> int:
    return xp.compile_cache_info().upgrades


def prepared(f, *values):
    phs = [xp.placeholder(v.shape, getattr(xp, v.dtype.name)) for v in values]
    return xp.compile(f(*phs), inputs=phs).prepare(*values)


EXPRESSIONS = [
    (lambda x: xp.sum(xp.sin(x) * x**2), np.float64),
    (lambda x: xp.cumulative_sum(xp.exp(-x * x), axis=1), np.float64),
    (lambda x: xp.tanh(x) * 3.0 - xp.sqrt(xp.abs(x)), np.float32),
    (lambda x: xp.max(x * x - 1.0, axis=0), np.float32),
    (lambda x: xp.exp(x * (1 + 2j)), np.complex128),
    (lambda x: xp.sum(x // 3 + x % 5), np.int64),
]


@pytest.mark.parametrize("k", range(len(EXPRESSIONS)))
def test_optimised_code_gives_the_same_bits(k):
    f, dtype = EXPRESSIONS[k]
    rng = np.random.default_rng(k)
    xv = rng.uniform(-3, 3, (37, 53)).astype(dtype) if dtype != np.int64 else \
        rng.integers(-100, 100, (37, 53))
    if dtype == np.complex128:
        xv = xv.real.astype(np.float64)
    p = prepared(f, xv)
    compiled = p._compiled
    first = np.asarray(p(xv))
    assert compiled.upgrade_job is not None  # quick code, not yet upgraded
    before, up = misses(), upgrades()
    second = np.asarray(p(xv))  # a second run asks for the optimised code
    tiering.flush()
    assert compiled.upgrade_job is None and compiled.retired
    assert upgrades() == up + 1 and misses() == before
    for _ in range(3):  # through the Python path, then the front door
        np.testing.assert_array_equal(np.asarray(p(xv)), first)
    np.testing.assert_array_equal(second, first)


def test_front_doors_move_to_the_new_code():
    xv = np.linspace(0, 1, 300)
    p = prepared(lambda x: xp.sum(xp.cos(x) * x), xv)
    want = float(p(xv))
    for _ in range(3):
        p(xv)
    runner = p._door_runner
    assert p._door is not None and runner is not None
    tiering.flush()
    entry = ctypes.cast(runner.only, ctypes.c_void_p).value
    words = [ref() for ref in runner.doors]
    assert words and all(w[0] == entry for w in words if w is not None)
    quick_entries = [ctypes.cast(cfuncs[0], ctypes.c_void_p).value
                     for cfuncs, *_ in p._compiled.retired]
    assert quick_entries and entry not in quick_entries
    assert float(p(xv)) == want


def test_implicit_evaluation_upgrades_its_runner():
    xv = np.linspace(0, 2, 500)
    a = xp.asarray(xv)
    vals = [float(xp.sum(xp.sin(a) * 0.5 + a)) for _ in range(3)]
    tiering.flush()
    vals += [float(xp.sum(xp.sin(a) * 0.5 + a)) for _ in range(3)]
    assert len(set(vals)) == 1


def test_a_program_run_once_is_not_compiled_again():
    up = upgrades()
    xv = np.linspace(0, 2, 77)
    float(xp.sum(xp.atan(xp.asarray(xv)) * 1.25))
    tiering.flush()
    assert upgrades() == up


PROGRAM = """
import json, sys, numpy as np, lazyarray as xp
from lazyarray.backend import tiering
x = xp.asarray(np.linspace(0, 2, 1000))
runs = int(sys.argv[1])
for _ in range(runs):
    v = float(xp.sum(xp.sin(x) * x ** 2))
tiering.flush()
from lazyarray.backend.cache import PROGRAMS
quick = [c.upgrade_job is not None for c, _ in PROGRAMS.code.data.values()]
print(json.dumps({"value": v, "quick": quick, **xp.compile_cache_info()._asdict()}))
"""


def run(cache_dir, runs: int, **env):
    environ = dict(os.environ, LAZYARRAY_CACHE_DIR=str(cache_dir), **env)
    out = subprocess.run([sys.executable, "-c", PROGRAM, str(runs)], capture_output=True,
                         text=True, env=environ, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_the_disk_cache_keeps_the_optimised_code(tmp_path):
    once = run(tmp_path, 1)
    assert once["misses"] == 1 and once["quick"] == [True]
    quick = run(tmp_path, 1)  # the quick code from the disk: still worth an upgrade
    assert quick["misses"] == 0 and quick["disk_hits"] == 1 and quick["quick"] == [True]
    twice = run(tmp_path, 2)
    assert twice["upgrades"] == 1 and twice["quick"] == [False]
    later = run(tmp_path, 1)  # the optimised code from the disk
    assert later["misses"] == 0 and later["disk_hits"] == 1 and later["quick"] == [False]
    assert once["value"] == quick["value"] == twice["value"] == later["value"]


def test_tiering_can_be_turned_off(tmp_path):
    info = run(tmp_path, 2, LAZYARRAY_TIERED="0")
    assert info["quick"] == [False] and info["upgrades"] == 0
