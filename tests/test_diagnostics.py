"""The compile log: each new program structure is reported with the tier it runs on and
the part of the structural key that differed from the nearest earlier program; compiles
and tier changes are reported as they happen."""
import logging
import os
import subprocess
import sys

import numpy as np
import pytest

import lazyarray as xp
from lazyarray import _diagnostics as diag

pytestmark = pytest.mark.usefixtures("whole_programs")  # the log lines of new programs: whole programs (no steps)


def key_of(outputs, *inputs):
    """The (graph key, outputs) pair the backend hands to the compile listeners."""
    prog = xp.compile(outputs, inputs=list(inputs))
    return prog._key, prog._outputs


def ph(shape=("n",), dtype=xp.float64):
    return xp.placeholder(shape, dtype, name="x")


def compile_records(caplog):
    """The log lines of new program structures (a cache miss each)."""
    return [r.getMessage() for r in caplog.records
            if r.name == "lazyarray" and r.getMessage().startswith("new program ")]


# --------------------------------------------------------------------------- explain()

def test_first_compile_has_nothing_to_compare_with():
    x = ph()
    assert "first program" in diag.explain(key_of(xp.sin(x), x), [])


@pytest.mark.parametrize("make_new, make_old, expected", [
    (lambda: xp.sin(ph(dtype=xp.float32)), lambda: xp.sin(ph()),
     "input 0: dtype float32 vs float64 before"),
    (lambda: xp.cos(ph()), lambda: xp.sin(ph()), "node 1: op cos vs sin before"),
    (lambda: xp.sum(ph((3, 4)), axis=1), lambda: xp.sum(ph((3, 4)), axis=0),
     "node 1 (sum): reduction axes (1,) vs (0,) before"),
    (lambda: xp.sum(ph((3, 4)), axis=0, keepdims=True), lambda: xp.sum(ph((3, 4)), axis=0),
     "node 1 (sum): keepdims True vs False before"),
    (lambda: xp.exp(ph((3, 4))), lambda: xp.exp(ph((3,))), "input 0: rank 2 vs 1 before"),
    (lambda: xp.exp(xp.sin(ph())), lambda: xp.exp(xp.cos(ph())), "node 1: op sin vs cos before"),
    (lambda: xp.cos(xp.sin(ph())), lambda: xp.sin(ph()), "graph has 3 nodes vs 2 before"),
    (lambda: xp.cumulative_sum(ph((2, 2)), axis=1), lambda: xp.cumulative_sum(ph((2, 2)), axis=0),
     "node 1 (cumulative_sum): scan axis 1 vs 0 before"),
    (lambda: ph() * 2.0, lambda: ph() * ph(),
     "node 1: a scalar (float64) vs an input (float64, rank 1) before"),
])
def test_explain_names_the_first_differing_part(make_new, make_old, expected):
    def key(make):
        y = make()
        return key_of(y, *[xp.Array._new(n) for n in _placeholders(y)])
    why = diag.explain(key(make_new), [("lazyarray_old", key(make_old))])
    assert why.startswith(expected), why
    assert "lazyarray_old" in why


def _placeholders(y):
    from lazyarray.backend.ir import Op, toposort
    return [n for n in toposort([y._node]) if n.op is Op.PLACEHOLDER]


def test_explain_compares_with_the_nearest_earlier_program():
    x = ph()
    y = xp.sum(xp.tanh(xp.exp(x) * 3.0))
    unrelated = key_of(xp.max(xp.abs(x)), x)
    x32 = ph(dtype=xp.float32)
    same_ops_f32 = key_of(xp.sum(xp.tanh(xp.exp(x32) * 3.0)), x32)
    why = diag.explain(key_of(y, x), [("unrelated", unrelated), ("f32", same_ops_f32),
                                      ("unrelated2", unrelated)])
    # every node's dtype differs from "f32", but its ops are the same: it is the nearest
    assert why.startswith("input 0: dtype float64 vs float32 before (compared with f32, "
                          "the nearest of 3 earlier programs; 6 of 6 nodes differ)"), why


def test_explain_says_when_no_earlier_program_is_similar():
    x = ph()
    why = diag.explain(key_of(xp.sum(xp.tanh(xp.exp(x))), x),
                       [("other", key_of(xp.max(xp.abs(x) * x), x))])
    assert why.startswith("a new graph structure: no earlier program is similar (other"), why


def test_explain_names_different_outputs():
    x = ph()
    a = xp.sin(x)
    b = xp.cos(a)
    why = diag.explain(key_of([a, b], x), [("one", key_of([b, a], x))])
    assert why.startswith("outputs are nodes (1, 2) vs (2, 1) before"), why


# --------------------------------------------------------------------------- the log

def test_loop_that_changes_dtype_logs_the_dtype(caplog):
    caplog.set_level(logging.INFO, logger="lazyarray")
    misses = xp.compile_cache_info().misses
    for dtype in (xp.float64, xp.float32):  # e.g. data loaded as float32 on one iteration
        x = xp.asarray(np.linspace(0, 1, 50), dtype=dtype)
        float(xp.sum(xp.atanh(xp.tanh(x * 0.5)) * xp.expm1(x) - 0.25))
    logs = compile_records(caplog)
    assert len(logs) == xp.compile_cache_info().misses - misses == 2
    assert "input 0: dtype float32 vs float64 before" in logs[1], logs[1]
    assert "runs on the interpreter" in logs[1]


def test_loop_with_a_new_reduction_axis_each_iteration_logs_the_axes(caplog):
    caplog.set_level(logging.INFO, logger="lazyarray")
    a = xp.asarray(np.arange(24.0).reshape(2, 3, 4))
    for axes in ((0, 1), (0, 2), (0, 1, 2)):  # two reduced axes share code; three do not
        xp.sum(xp.log1p(xp.cosh(a) * a), axis=axes).tolist()
    logs = compile_records(caplog)
    assert len(logs) == 2
    assert "node 4 (sum): reduction axes (0, 1, 2) vs (0, 1) before" in logs[1], logs


def test_loop_that_grows_a_graph_logs_its_size(caplog):
    caplog.set_level(logging.INFO, logger="lazyarray")
    for i in range(3):  # nobody holds the chain's links: each iteration's graph is longer
        acc = xp.zeros(3)
        for j in range(i + 1):
            acc = acc + xp.trunc(xp.asarray([1.5, 2.5, 3.5]) * j)
        float(xp.sum(acc))
    logs = compile_records(caplog)
    assert len(logs) == 3
    assert "cache miss: graph has 12 nodes vs 7 before; first difference: node 6" in logs[1]
    assert "cache miss: graph has 17 nodes vs 12 before" in logs[2]


def test_loop_that_changes_rank_logs_the_rank(caplog):
    caplog.set_level(logging.INFO, logger="lazyarray")
    for k in (1, 2):
        xp.max(xp.sinh(xp.ones((3,) * k)) - xp.asinh(xp.ones((3,) * k))).tolist()
    logs = compile_records(caplog)
    assert len(logs) == 2
    assert "input 0: rank 2 vs 1 before" in logs[1], logs


def test_new_sizes_and_data_do_not_compile_or_log(caplog):
    def f(n):
        x = xp.asarray(np.random.default_rng(n).random(n))
        return float(xp.sum(xp.atan(x) * xp.acosh(x + 1.0)))
    f(5)  # compiled here, or earlier
    caplog.set_level(logging.INFO, logger="lazyarray")
    misses = xp.compile_cache_info().misses
    for n in (10, 20, 30):
        f(n)
    assert xp.compile_cache_info().misses == misses
    assert not compile_records(caplog)


def test_nothing_is_logged_below_info(caplog):
    caplog.set_level(logging.WARNING, logger="lazyarray")
    float(xp.sum(xp.log2(xp.asarray([1.0, 2.0]) + 7.0) * xp.sign(xp.asarray([3.0, 1.0]))))
    assert not [r for r in caplog.records if r.name == "lazyarray"]


def test_a_failing_explanation_never_breaks_the_compile(caplog, monkeypatch):
    caplog.set_level(logging.INFO, logger="lazyarray")

    def broken(key, earlier):
        raise RuntimeError("boom")
    monkeypatch.setattr(diag, "explain", broken)
    v = float(xp.sum(xp.log10(xp.asarray([1.0, 10.0]) + 9.0) * 3.0 - 1.0))
    assert v == pytest.approx((1.0 + np.log10(19.0)) * 3 - 2)
    (warning,) = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert "could not explain" in warning.getMessage() and "boom" in warning.getMessage()


SCRIPT = "import lazyarray as xp; print(float(xp.sum(xp.sin(xp.linspace(0, 2, 1000)) * 2.0)))"


def run(env, script=SCRIPT):
    environ = dict(os.environ, **env)
    return subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          env=environ, timeout=120)


def test_a_program_that_runs_again_logs_its_tiers(caplog):
    from lazyarray.backend import native
    caplog.set_level(logging.INFO, logger="lazyarray")
    a = xp.asarray(np.linspace(0, 1, 30))
    for _ in range(3):
        float(xp.sum(xp.tanh(xp.expm1(a) * 0.3) - xp.log1p(a * 0.7)))
    native.flush()
    text = "\n".join(r.getMessage() for r in caplog.records if r.name == "lazyarray")
    assert "runs on the interpreter" in text
    assert "ran again: compiling its 1 kernel(s) in the background" in text, text
    assert "runs compiled code now (every kernel installed)" in text, text


def test_environment_switch_logs_compiles_and_disk_loads_to_stderr(tmp_path):
    env = {"LAZYARRAY_LOG": "compile", "LAZYARRAY_CACHE_DIR": str(tmp_path)}
    first = run(env)
    assert first.returncode == 0, first.stderr
    assert "lazyarray: new program lazyarray_" in first.stderr
    assert "runs on the interpreter" in first.stderr
    assert "first program in this process" in first.stderr
    assert "lazyarray: compiled lzb_" in first.stderr  # its building blocks, once per machine
    second = run(env)
    assert "lazyarray: loaded lzb_" in second.stderr
    assert "from the disk cache" in second.stderr
    assert "compiled lzb_" not in second.stderr.split("new program")[0]
    quiet = run({"LAZYARRAY_LOG": "", "LAZYARRAY_CACHE_DIR": str(tmp_path / "other")})
    assert quiet.returncode == 0 and "lazyarray:" not in quiet.stderr


def test_unknown_log_topic_warns(tmp_path):
    out = run({"LAZYARRAY_LOG": "compiles", "LAZYARRAY_CACHE_DIR": str(tmp_path)},
              script="import lazyarray")
    assert out.returncode == 0
    assert "LAZYARRAY_LOG: unknown topic(s) 'compiles'; known: compile" in out.stderr
