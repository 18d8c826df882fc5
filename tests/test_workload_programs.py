"""The workload suite's programs (benchmarks/_programs.py) give numpy's results under
lazyarray, implicit and jit, at a tiny size.  No timing: the suite itself measures."""
import os
import sys

import numpy as np
import pytest

import lazyarray as xp

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from benchmarks import _programs as P  # noqa: E402

RTOL = 1e-9


def _outputs(r):
    return tuple(np.asarray(o) for o in (r if isinstance(r, (tuple, list)) else (r,)))


def _same(got, ref):
    got, ref = _outputs(got), _outputs(ref)
    assert len(got) == len(ref)
    for g, r in zip(got, ref):
        assert g.shape == r.shape and g.dtype == r.dtype
        np.testing.assert_allclose(g, r, rtol=RTOL, atol=RTOL * max(1.0, float(np.max(np.abs(r)))))


PLAIN = [p for p in P.PROGRAMS if not p.loop]
LOOPS = [p for p in P.PROGRAMS if p.loop]


@pytest.mark.parametrize("prog", PLAIN, ids=lambda p: p.name)
def test_program_matches_numpy(prog):
    vals = prog.inputs("tiny")
    ref = prog.fn(np, *vals)
    _same(prog.fn(xp, *[xp.asarray(v) for v in vals]), ref)
    _same(xp.jit(lambda *a: prog.fn(xp, *a))(*vals), ref)


@pytest.mark.parametrize("prog", LOOPS, ids=lambda p: p.name)
def test_loop_matches_numpy(prog):
    x, y, w0 = prog.inputs("tiny")
    ref = P.run_loop(lambda w: prog.fn(np, x, y, w), w0, 5)
    lx, ly = xp.asarray(x), xp.asarray(y)
    _same(P.run_loop(lambda w: prog.fn(xp, lx, ly, w), xp.asarray(w0), 5), ref)
    jf = xp.jit(lambda a, b, w: prog.fn(xp, a, b, w))
    _same(P.run_loop(lambda w: jf(x, y, w), w0, 5), ref)


def test_numexpr_versions_match_numpy():
    ne = pytest.importorskip("numexpr")
    for prog in PLAIN:
        if prog.numexpr is not None:
            vals = prog.inputs("tiny")
            _same(prog.numexpr(ne, *vals), prog.fn(np, *vals))
