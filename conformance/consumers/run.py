"""Run a consumer's own test suite on lazyarray and array-api-strict, and compare.

    python conformance/consumers/run.py {scipy,sklearn,xpx} [--only A,B] [--backends B,..]
                                        [pytest args...]

(``conformance/consumers/run`` is the same with the ``python`` on ``PATH``.) One pytest
process runs the consumer's tests with this folder's plugin for it, which adds lazyarray
to the consumer's backend mechanism and deselects every backend but the chosen ones
(default both). Afterwards the per-test records are compared by test id with the backend
left out: ``<name>-report.txt`` here lists the tests that fail for lazyarray but pass for
array-api-strict (the regressions), those that fail for both, and expected failures that
passed. The last line printed is ``N passed, N failed`` for lazyarray (failed counts
errors, not expected failures); the exit status is 1 when there is a regression or pytest
could not run, else 0.

Environment: ``TEST_TIMEOUT`` (seconds per test, default 120, needs pytest-timeout),
``XPX_TESTS_DIR`` (array-api-extra's sdist ``tests`` folder, default
``/work/consumer-src/array_api_extra-0.11.5/tests``), ``CONSUMER_OUT_DIR`` (where the log
and the report go, default this folder), ``RUN_BUDGET`` (seconds: stop pytest then and
report the tests run so far; default no limit), ``STRICT_API_VERSION`` (scipy only: the
standard array-api-strict runs at, default 2025.12 as lazyarray; empty keeps scipy's pin,
2024.12).
"""
from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import _common  # noqa: E402

SCIPY_SUBSET = ("special", "_lib", "cluster", "fft", "stats", "signal")
XPX_TESTS = "/work/consumer-src/array_api_extra-0.11.5/tests"


def _package_dir(name: str) -> Path:
    """Where an installed package lives (without importing it here)."""
    out = subprocess.run([sys.executable, "-c", f"import importlib.util as u; print("
                          f"u.find_spec({name!r}).submodule_search_locations[0])"],
                         capture_output=True, text=True)
    if out.returncode:
        raise SystemExit(f"run.py: {name} is not installed in {sys.executable}")
    return Path(out.stdout.strip())


def pytest_command(consumer: str, only: list[str]) -> tuple[list[str], Path]:
    """The pytest arguments (after ``-m pytest``) and the working directory."""
    if consumer == "scipy":
        root = _package_dir("scipy")
        subs = only or list(SCIPY_SUBSET)
        return (["-p", "scipy_backend", f"--rootdir={root}", "-m", "array_api_backends",
                 "--pyargs", *(f"scipy.{s}" for s in subs)], root.parent)
    if consumer == "sklearn":
        root = _package_dir("sklearn")
        targets = [f"sklearn.{s}" for s in only] or ["sklearn"]
        return (["-p", "sklearn_backend", f"--rootdir={root}", "--pyargs", *targets],
                root.parent)
    if consumer == "xpx":
        tests = Path(os.environ.get("XPX_TESTS_DIR", XPX_TESTS))
        if not (tests / "main" / "conftest.py").is_file():
            raise SystemExit(f"run.py: no array-api-extra tests at {tests} (set "
                             "XPX_TESTS_DIR; see conformance/README.md)")
        targets = [str(tests / "main" / s) for s in only] or [str(tests / "main")]
        return ["-p", "xpx_backend", f"--rootdir={tests.parent}", *targets], tests.parent
    raise SystemExit(f"run.py: unknown consumer {consumer!r}; expected scipy, sklearn "
                     "or xpx")


def environment(consumer: str, backends: str, results: Path) -> dict[str, str]:
    env = dict(os.environ)
    env.pop("OPENBLAS_CORETYPE", None)
    env.update({
        "SCIPY_ARRAY_API": "1",          # scipy reads it at import; scikit-learn needs it
        "OPENBLAS_NUM_THREADS": "1",     # BLAS threads are not coordinated with ours
        "PYTHONPATH": os.pathsep.join(filter(None, [str(HERE), env.get("PYTHONPATH")])),
        "CONSUMER_BACKENDS": backends,
        "CONSUMER_XFAILS": str(HERE / f"{consumer}-xfails.txt"),
        "CONSUMER_RESULTS": str(results),
    })
    return env


def key_of(nodeid: str) -> str:
    """A test id with its backend parameter (and scikit-learn's device) left out, so the
    same test on two backends has one key."""
    head, sep, params = nodeid.rpartition("[")
    if not sep:
        return nodeid
    params = re.sub(r"(?<=[\[=-])(lazyarray|array_api_strict)"
                    r"((-|,device=|,device_name=)(None|CPU_DEVICE|device1))?(?=[\],)-])", "XP", "[" + params)
    return head + params


def summarize(records: dict[str, dict]) -> dict[str, Counter]:
    counts: dict[str, Counter] = {}
    for rec in records.values():
        c = counts.setdefault(rec["backend"], Counter())
        c[rec["outcome"] or "passed"] += 1
        c["seconds"] += rec["seconds"]
    return counts


FAILED = ("failed", "error")


def compare(records: dict[str, dict]) -> dict[str, list[tuple[str, str]]]:
    """Tests by how lazyarray and array-api-strict did, keyed as lazyarray's test id."""
    by_key: dict[str, dict[str, dict]] = {}
    for nodeid, rec in records.items():
        by_key.setdefault(key_of(nodeid), {})[rec["backend"]] = dict(rec, nodeid=nodeid)
    out: dict[str, list[tuple[str, str]]] = {"regressions": [], "both": [], "xpassed": [],
                                             "strict_only": [], "strict_skipped": [],
                                             "lazy_skipped": []}
    for key, recs in sorted(by_key.items()):
        lz, st = recs.get(_common.LAZYARRAY), recs.get(_common.STRICT)
        if lz and lz["outcome"] == "xpassed" and lz.get("listed"):
            out["xpassed"].append((lz["nodeid"], ""))
        if lz and lz["outcome"] in FAILED:
            kind = ("both" if st and st["outcome"] in FAILED + ("xfailed",) else
                    "regressions" if st and st["outcome"] == "passed" else
                    "strict_skipped")
            if kind:
                out[kind].append((lz["nodeid"], lz["message"]))
        if st and st["outcome"] in FAILED and lz and lz["outcome"] in ("passed", "xpassed"):
            out["strict_only"].append((st["nodeid"], st["message"]))
        if lz and lz["outcome"] == "skipped" and st and st["outcome"] == "passed":
            out["lazy_skipped"].append((lz["nodeid"], lz["message"]))
    return out


def line(counts: Counter) -> str:
    parts = [f"{counts[k]} {k}" for k in ("passed", "failed", "error", "skipped",
                                          "xfailed", "xpassed") if counts[k] or k in
             ("passed", "failed")]
    return ", ".join(parts) + f" (test time {counts['seconds']:.0f} s)"


def write_report(path: Path, consumer: str, cmp: dict, counts: dict, wall: float) -> None:
    titles = {"regressions": "fail for lazyarray, pass for array-api-strict",
              "both": "fail for lazyarray and for array-api-strict",
              "xpassed": "listed as expected failures but passed: remove them from "
                         f"{consumer}-xfails.txt",
              "strict_only": "fail for array-api-strict, pass for lazyarray",
              "strict_skipped": "fail for lazyarray, skipped for (or not run on) "
                                "array-api-strict",
              "lazy_skipped": "skipped for lazyarray, pass for array-api-strict"}
    with path.open("w") as f:
        f.write(f"# {consumer}: {time.strftime('%Y-%m-%d %H:%M:%S %Z')}, wall {wall:.0f} s\n")
        for backend, c in sorted(counts.items(), key=lambda kv: str(kv[0])):
            f.write(f"# {backend}: {line(c)}\n")
        for kind, title in titles.items():
            f.write(f"\n## {title} ({len(cmp[kind])})\n")
            for nodeid, msg in cmp[kind]:
                f.write(f"{nodeid}\n" + (f"    {msg}\n" if msg else ""))


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("consumer", choices=("scipy", "sklearn", "xpx"))
    ap.add_argument("--only", default="", help="comma-separated subpackages (scipy, "
                    "sklearn) or test files (xpx) instead of the default set")
    ap.add_argument("--backends", default=",".join(_common.DEFAULT_BACKENDS))
    args, extra = ap.parse_known_args(argv)
    only = [s for s in args.only.split(",") if s]
    pyargs, cwd = pytest_command(args.consumer, only)
    with tempfile.TemporaryDirectory() as tmp:
        results = Path(tmp) / "results.json"
        cmd = [sys.executable, "-m", "pytest", *pyargs, "-q", "-p", "no:cacheprovider",
               "--tb=short", *_timeout_args(), *extra]
        out_dir = Path(os.environ.get("CONSUMER_OUT_DIR", HERE))
        log = out_dir / f"{args.consumer}.log"
        print("run.py:", " ".join(cmd), f"(log: {log})", flush=True)
        t0 = time.monotonic()
        budget = float(os.environ.get("RUN_BUDGET", "0")) or None
        with log.open("w") as f:
            proc = subprocess.Popen(cmd, cwd=cwd, stdout=f, stderr=subprocess.STDOUT,
                                    env=environment(args.consumer, args.backends, results))
            try:
                rc = proc.wait(timeout=budget)
            except subprocess.TimeoutExpired:
                proc.terminate()
                rc = proc.wait()
                print(f"run.py: stopped after the time budget of {budget:.0f} s "
                      "(RUN_BUDGET); the counts are of the tests run until then")
        wall = time.monotonic() - t0
        if rc not in (0, 1, 5):
            print(f"run.py: pytest exited with status {rc} (collection errors or an "
                  f"internal error); see {log}")
        if not results.is_file():
            print(f"run.py: pytest wrote no results (exit {rc}); see {log}")
            print("0 passed, 0 failed")
            return 1
        records = {}
        for text in results.read_text().splitlines():
            rec = json.loads(text)
            records[rec.pop("nodeid")] = rec
    counts = summarize(records)
    cmp = compare(records)
    report = out_dir / f"{args.consumer}-report.txt"
    write_report(report, args.consumer, cmp, counts, wall)
    for backend in args.backends.split(","):
        print(f"{args.consumer} {backend}: {line(counts.get(backend, Counter()))}")
    print(f"wall time {wall:.0f} s; {len(cmp['regressions'])} fail for lazyarray but pass "
          f"for array-api-strict, {len(cmp['strict_skipped'])} fail for lazyarray and are "
          f"skipped for it, {len(cmp['lazy_skipped'])} skipped for lazyarray but pass for "
          f"array-api-strict, {len(cmp['xpassed'])} expected failures passed "
          f"(see {report})")
    lz = counts.get(_common.LAZYARRAY, Counter())
    print(f"{lz['passed']} passed, {lz['failed'] + lz['error']} failed")
    return 1 if cmp["regressions"] or cmp["strict_skipped"] or rc not in (0, 1, 5) else 0


def _timeout_args() -> list[str]:
    try:
        import pytest_timeout  # noqa: F401
    except ImportError:
        return []
    return [f"--timeout={os.environ.get('TEST_TIMEOUT', '120')}"]


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
