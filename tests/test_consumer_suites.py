"""A short subset of each consumer's own test suite (scipy, scikit-learn, array-api-extra)
run on lazyarray and array-api-strict through ``conformance/consumers/run.py``: every test
of the subset that passes with array-api-strict must pass with lazyarray (apart from the
expected failures in ``conformance/consumers/<name>-xfails.txt``).

Each subset runs in its own pytest process (the consumer's conftest and lazyarray's plugin
for it), so this file takes a few seconds per consumer. A consumer that is not installed
(array-api-extra: its sdist's tests not unpacked, see ``conformance/README.md``) is
skipped. The full runs are ``conformance/consumers/run scipy|sklearn|xpx``.
"""
import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

RUN = Path(__file__).resolve().parents[1] / "conformance" / "consumers" / "run.py"
XPX_TESTS = os.environ.get("XPX_TESTS_DIR", "/work/consumer-src/array_api_extra-0.11.5/tests")

# (consumer, module that must be importable, --only, extra pytest arguments)
SUBSETS = [
    ("scipy", "scipy", "cluster", []),
    ("sklearn", "sklearn", "mixture,preprocessing", ["-k", "array_api"]),
    ("xpx", "array_api_extra", "test_at.py", []),
]


def _missing(consumer: str, module: str) -> str | None:
    needed = [module, "array_api_strict"] + (["typing_extensions"] if consumer == "xpx" else [])
    absent = [m for m in needed if importlib.util.find_spec(m) is None]
    if absent:
        return f"{', '.join(absent)} not installed"
    if consumer == "xpx" and not (Path(XPX_TESTS) / "main" / "conftest.py").is_file():
        return f"array-api-extra's sdist tests not found at {XPX_TESTS} (XPX_TESTS_DIR)"
    return None


@pytest.mark.parametrize("consumer, module, only, extra", SUBSETS, ids=[s[0] for s in SUBSETS])
def test_consumer_subset_passes_as_with_array_api_strict(consumer, module, only, extra,
                                                         tmp_path):
    reason = _missing(consumer, module)
    if reason:
        pytest.skip(reason)
    env = dict(os.environ, CONSUMER_OUT_DIR=str(tmp_path), XPX_TESTS_DIR=XPX_TESTS)
    proc = subprocess.run([sys.executable, str(RUN), consumer, "--only", only, *extra],
                          capture_output=True, text=True, env=env, timeout=600)
    out = proc.stdout + proc.stderr
    report = tmp_path / f"{consumer}-report.txt"
    detail = report.read_text() if report.is_file() else (tmp_path / f"{consumer}.log"
                                                           ).read_text()[-3000:]
    assert proc.returncode == 0, f"{out}\n{detail}"
    passed = re.search(r"^(\d+) passed, (\d+) failed$", out, re.M)
    assert passed and int(passed.group(1)) > 0, out  # the subset ran on lazyarray
    assert " 0 fail for lazyarray but pass for array-api-strict" in out, out


def _runner():
    sys.path.insert(0, str(RUN.parent))
    spec = importlib.util.spec_from_file_location("consumers_run", RUN)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_runner_pairs_a_test_across_backends():
    run = _runner()
    assert run.key_of("a.py::t[float64-lazyarray]") == run.key_of(
        "a.py::t[float64-array_api_strict]") == "a.py::t[float64-XP]"
    # scikit-learn's (namespace, device, dtype) ids
    assert run.key_of("a.py::t[lazyarray-None-float32]") == run.key_of(
        "a.py::t[array_api_strict-device1-float32]")
    # array-api-extra's strictest variant and other backends stay apart
    assert run.key_of("a.py::t[array_api_strictest]") == "a.py::t[array_api_strictest]"
    assert run._common.backend_of("a.py::t[array_api_strictest-x]") is None
    assert run._common.backend_of("a.py::t[x-lazyarray]") == "lazyarray"
    assert run._common.backend_of("a.py::t_lazyarray") is None
    records = {
        "a.py::t[lazyarray]": {"backend": "lazyarray", "outcome": "failed", "seconds": 1,
                               "message": "boom"},
        "a.py::t[array_api_strict]": {"backend": "array_api_strict", "outcome": "passed",
                                      "seconds": 1, "message": ""},
        "a.py::u[lazyarray]": {"backend": "lazyarray", "outcome": "failed", "seconds": 1,
                               "message": ""},
        "a.py::u[array_api_strict]": {"backend": "array_api_strict", "outcome": "failed",
                                      "seconds": 1, "message": ""},
        "a.py::v[lazyarray]": {"backend": "lazyarray", "outcome": "skipped", "seconds": 0,
                               "message": "Skipped: why"},
        "a.py::v[array_api_strict]": {"backend": "array_api_strict", "outcome": "passed",
                                      "seconds": 1, "message": ""},
    }
    cmp = run.compare(records)
    assert cmp["regressions"] == [("a.py::t[lazyarray]", "boom")]
    assert [n for n, _ in cmp["both"]] == ["a.py::u[lazyarray]"]
    assert cmp["lazy_skipped"] == [("a.py::v[lazyarray]", "Skipped: why")]


def test_expected_failures_need_a_reason(tmp_path):
    run = _runner()
    good = tmp_path / "good.txt"
    good.write_text("# comment\n\na.py::t[lazyarray]  # why it fails\n")
    assert run._common.read_xfails(good) == {"a.py::t[lazyarray]": "why it fails"}
    bad = tmp_path / "bad.txt"
    bad.write_text("a.py::t[lazyarray]\n")
    with pytest.raises(ValueError, match="needs a reason"):
        run._common.read_xfails(bad)


def test_runner_pairs_scikit_learns_estimator_checks():
    run = _runner()
    lz = ("tests/test_common.py::test_estimators[PCA()-check_array_api_input("
          "array_namespace=lazyarray,device=None,dtype_name=float64)]")
    st = ("tests/test_common.py::test_estimators[PCA()-check_array_api_input("
          "array_namespace=array_api_strict,device=CPU_DEVICE,dtype_name=float64)]")
    assert run.key_of(lz) == run.key_of(st) != lz
    assert run.key_of(lz.replace(",device=", ",device_name=")) == run.key_of(
        st.replace(",device=", ",device_name="))
    assert run._common.backend_of(lz) == "lazyarray"
    assert run._common.backend_of(st) == "array_api_strict"
