"""Every example of docs/guide.md and of the README runs, and prints what the text says.

A document is run the way a reader would run it: top to bottom in a fresh Python
process with an empty disk cache, so counts of compiles in the text are exact.  Each
``## `` section starts from a fresh namespace holding ``np`` and ``xp``; its ```python
blocks run in order.  A block with ``>>>`` lines is a doctest (output compared, with
ELLIPSIS and NORMALIZE_WHITESPACE); another block must run without raising.  A block
preceded by ``<!-- requires: graphviz -->`` runs only when the graphviz package and
Graphviz's ``dot`` program are installed, one preceded by ``<!-- requires: dask -->``
only when dask[distributed] is.

Run as a script (``python tests/test_docs.py FILE``) it prints the results as JSON.
"""
from __future__ import annotations

import doctest
import json
import logging
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
GUIDE = ROOT / "docs" / "guide.md"
README = ROOT / "README.md"
_FENCE = re.compile(r"^```(\w*)\s*$")
_REQUIRES = re.compile(r"<!--\s*requires:\s*([\w, ]+?)\s*-->")


def sections(path: Path) -> list:
    """[(title, [(line number, requirements, code, language)])] of a markdown file."""
    out = [("(preamble)", [])]
    lines = path.read_text().splitlines()
    i, requires = 0, set()
    while i < len(lines):
        line = lines[i]
        if line.startswith("## "):
            out.append((line[3:].strip(), []))
        elif m := _REQUIRES.search(line):
            requires = {r.strip() for r in m.group(1).split(",")}
        elif m := _FENCE.match(line):
            start, body = i + 1, []
            i += 1
            while i < len(lines) and not lines[i].startswith("```"):
                body.append(lines[i])
                i += 1
            out[-1][1].append((start + 1, requires, "\n".join(body) + "\n", m.group(1)))
            requires = set()
        elif line.strip():
            requires = set()
        i += 1
    return [(t, blocks) for t, blocks in out if any(b[3] == "python" for b in blocks)]


def _available(requirement: str) -> bool:
    if requirement == "graphviz":
        try:
            import graphviz  # noqa: F401
        except ImportError:
            return False
        return shutil.which("dot") is not None
    if requirement == "dask":
        try:
            import distributed  # noqa: F401
        except ImportError:
            return False
        return True
    raise ValueError(f"unknown requirement {requirement!r} in a document")


def run_document(path: Path) -> dict:
    """{section title: {"failures": [...], "skipped": [...], "blocks": n}} (in this process)."""
    import numpy as np

    import lazyarray as xp
    from helpers import load_building_blocks
    load_building_blocks()  # a machine that ran lazyarray before: small structures step
    logger = logging.getLogger("lazyarray")
    results = {}
    for title, blocks in sections(path):
        ns = {"np": np, "xp": xp, "__name__": "__docs__"}
        failures, skipped, ran = [], [], 0
        saved = (logger.level, list(logger.handlers))
        try:
            for line, requires, code, lang in blocks:
                if lang != "python":
                    continue
                where = f"{path.name}:{line}"
                missing = [r for r in sorted(requires) if not _available(r)]
                if missing:
                    skipped.append(f"{where} needs {', '.join(missing)}")
                    continue
                ran += 1
                failure = _run_block(code, ns, where, path, line)
                if failure:
                    failures.append(failure)
                    break  # later blocks of the section build on this one
        finally:
            logger.setLevel(saved[0])
            logger.handlers[:] = saved[1]
        results[title] = {"failures": failures, "skipped": skipped, "blocks": ran}
    return results


def _run_block(code: str, ns: dict, where: str, path: Path, line: int) -> str:
    """The failure report of one block ('' when it passes)."""
    if ">>>" not in code:
        try:
            exec(compile(code, where, "exec"), ns)
        except Exception as e:  # noqa: BLE001 - reported as the block's failure
            return f"{where}: {type(e).__name__}: {e}"
        return ""
    test = doctest.DocTestParser().get_doctest(code, ns, where, str(path), line - 1)
    report = []
    runner = doctest.DocTestRunner(
        optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    runner.run(test, out=report.append, clear_globs=False)
    ns.update(test.globs)  # the DocTest ran on a copy; later blocks build on its names
    return "".join(report)


@pytest.fixture(scope="module")
def document_results(tmp_path_factory):
    """Each document run once, in its own process with an empty disk cache."""
    done = {}

    def get(path: Path) -> dict:
        if path not in done:
            work = tmp_path_factory.mktemp(path.stem)
            env = dict(os.environ, LAZYARRAY_CACHE_DIR=str(work / "cache"))
            env.pop("LAZYARRAY_LOG", None)
            out = subprocess.run([sys.executable, __file__, str(path)], capture_output=True,
                                 text=True, cwd=work, env=env, timeout=300)
            assert out.returncode == 0, out.stderr
            done[path] = json.loads(out.stdout.strip().splitlines()[-1])
        return done[path]
    return get


@pytest.mark.parametrize("path, title", [(p, t) for p in (GUIDE, README)
                                         for t, _ in sections(p)],
                         ids=lambda v: v.name if isinstance(v, Path) else v)
def test_section_examples(document_results, path, title):
    result = document_results(path)[title]
    assert not result["failures"], "\n".join(result["failures"])
    assert result["blocks"] + len(result["skipped"]) > 0


def test_guide_examples_check_their_output():
    """Every example of the guide shows its output (doctest form), so none can pass blindly."""
    blocks = [(t, b) for t, bs in sections(GUIDE) for b in bs if b[3] == "python"]
    assert len(blocks) >= 20
    plain = [f"{GUIDE.name}:{b[0]} ({t})" for t, b in blocks if ">>>" not in b[2]]
    assert not plain, f"examples without >>> lines: {plain}"


def test_guide_shows_the_one_line_dot_call_for_the_seed_program():
    text = GUIDE.read_text()
    assert ">>> print(xp.to_dot(prog))" in text
    assert 'prog = xp.compile(xp.sum(xp.sin(x) * x**2), inputs=[x])' in text


def test_a_wrong_output_is_reported(tmp_path):
    doc = tmp_path / "doc.md"
    doc.write_text("# t\n\n## s\n\n```python\n>>> 1 + 1\n3\n```\n\n## ok\n\n```python\n"
                   ">>> xp.asarray([1.0]) * 2\nArray([2.], dtype=float64)\n```\n")
    results = run_document(doc)
    assert "Expected:\n    3\nGot:\n    2" in results["s"]["failures"][0]
    assert results["ok"] == {"failures": [], "skipped": [], "blocks": 1}


if __name__ == "__main__":
    print(json.dumps(run_document(Path(sys.argv[1]))))
