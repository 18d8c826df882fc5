"""What the three consumer plugins share: which backends run, the expected-failures file,
and one record per test (outcome and time) that ``run.py`` compares afterwards.

Each consumer's plugin (``scipy_backend.py``, ``sklearn_backend.py``, ``xpx_backend.py``)
adds lazyarray to that consumer's own backend mechanism and calls :func:`install` with a
function that names the backend of a test id. Nothing of the consumers' code is copied here.

Environment (set by ``run.py``):

- ``CONSUMER_BACKENDS``: comma-separated backends to keep (default
  ``lazyarray,array_api_strict``); tests of other backends, and tests that run on no
  backend, are deselected, so a run is the consumer's array API tests on these backends.
- ``CONSUMER_XFAILS``: the expected-failures file (``<nodeid>  # reason`` per line).
- ``CONSUMER_RESULTS``: where to write the per-test records (JSON).
"""
from __future__ import annotations

import json
import os
import re
from collections.abc import Callable
from pathlib import Path

import pytest

LAZYARRAY = "lazyarray"
STRICT = "array_api_strict"
DEFAULT_BACKENDS = (LAZYARRAY, STRICT)

BackendOf = Callable[[str], "str | None"]


def selected_backends() -> tuple[str, ...]:
    """The backends this run keeps, from ``CONSUMER_BACKENDS``."""
    raw = os.environ.get("CONSUMER_BACKENDS", "")
    names = tuple(n.strip() for n in raw.split(",") if n.strip())
    return names or DEFAULT_BACKENDS


def read_xfails(path: str | os.PathLike | None) -> dict[str, str]:
    """``{nodeid: reason}`` from an expected-failures file.

    One test id per line followed by ``#`` and its reason; blank lines and lines that
    start with ``#`` are comments. An entry without a reason is an error: every expected
    failure must say why it is expected."""
    if not path or not Path(path).is_file():
        return {}
    entries: dict[str, str] = {}
    for lineno, line in enumerate(Path(path).read_text().splitlines(), 1):
        text = line.strip()
        if not text or text.startswith("#"):
            continue
        nodeid, sep, reason = text.partition(" #")
        if not sep or not reason.strip():
            raise ValueError(f"{path}:{lineno}: an expected failure needs a reason "
                             f"('<test id>  # why'), got {text!r}")
        entries[nodeid.strip()] = reason.strip()
    return entries


# A backend is one parameter id in a test id's brackets: between "[", "-" (ids joined by
# pytest) or "=" (scikit-learn's estimator checks: ``check_x(array_namespace=lazyarray,
# device=None)``) and "]", "-", "," or ")". ``array_api_strictest`` is not ``array_api_strict``.
_BACKEND = re.compile(r"(?<=[\[=-])(lazyarray|array_api_strict)(?=[\],)-])")


def backend_of(nodeid: str) -> str | None:
    """The backend a test id names (``test_x[float64-lazyarray]`` -> ``lazyarray``), or
    None."""
    if not nodeid.endswith("]"):
        return None
    m = _BACKEND.search(nodeid, nodeid.find("["))
    return m.group(1) if m else None


class Recorder:
    """A pytest plugin object: deselects tests of other backends, marks expected
    failures, and records each test's outcome and time."""

    def __init__(self, backend_of: BackendOf, backends: tuple[str, ...],
                 xfails: dict[str, str], results_path: str | None) -> None:
        self.backend_of = backend_of
        self.backends = backends
        self.xfails = xfails
        self.results_path = results_path
        self.records: dict[str, dict] = {}

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, config: pytest.Config, items: list) -> None:
        keep, drop = [], []
        for item in items:
            (keep if self.backend_of(item.nodeid) in self.backends else drop).append(item)
        if drop:
            config.hook.pytest_deselected(items=drop)
            items[:] = keep
        for item in keep:
            reason = self.xfails.get(item.nodeid)
            if reason is not None:
                # Not strict: a listed test that starts passing is reported (as xpassed)
                # by run.py, which asks for the entry to be removed.
                item.add_marker(pytest.mark.xfail(reason=reason, strict=False))

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        rec = self.records.setdefault(report.nodeid, {
            "backend": self.backend_of(report.nodeid), "outcome": None, "seconds": 0.0,
            "message": "", "listed": report.nodeid in self.xfails})
        rec["seconds"] += report.duration
        rec["outcome"] = _merge(rec["outcome"], _outcome(report))
        if report.failed and not rec["message"]:
            rec["message"] = _first_line(report)
        elif report.skipped and not rec["message"] and isinstance(report.longrepr, tuple):
            rec["message"] = str(report.longrepr[-1])[:300]  # (path, line, "Skipped: why")
        if report.when == "teardown" and self.results_path:
            # One JSON line per finished test, written at once: a run stopped early (its
            # time budget, Ctrl-C) still leaves the records of the tests it ran.
            with open(self.results_path, "a") as f:
                f.write(json.dumps(dict(rec, nodeid=report.nodeid)) + "\n")


def _outcome(report: pytest.TestReport) -> str:
    """One phase's outcome: passed, failed, error (setup/teardown), skipped, xfailed,
    xpassed."""
    if hasattr(report, "wasxfail"):
        return "xpassed" if report.passed else "xfailed"
    if report.failed:
        return "failed" if report.when == "call" else "error"
    if report.skipped:
        return "skipped"
    return "passed" if report.when == "call" else ""


_RANK = {"": 0, "passed": 1, "skipped": 2, "xpassed": 3, "xfailed": 4, "failed": 5,
         "error": 6}


def _merge(old: str | None, new: str) -> str:
    """A test's outcome over its phases: the worst one (a teardown error after a pass is
    an error)."""
    old = old or ""
    return new if _RANK[new] > _RANK[old] else old


_EXC_LINE = re.compile(r"^E\s+(.*)$", re.M)


def _first_line(report: pytest.TestReport) -> str:
    """The first ``E   ...`` line of a failure, for the report."""
    text = str(report.longrepr or "")
    m = _EXC_LINE.search(text)
    return (m.group(1) if m else text.strip().splitlines()[-1] if text.strip() else "")[:300]


def install(config: pytest.Config, backend_of: BackendOf) -> Recorder:
    """Register the recorder for this run (called from a plugin's ``pytest_configure``)."""
    rec = Recorder(backend_of, selected_backends(), read_xfails(os.environ.get(
        "CONSUMER_XFAILS")), os.environ.get("CONSUMER_RESULTS"))
    config.pluginmanager.register(rec, "consumer-recorder")
    return rec
