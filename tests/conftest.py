"""Test session setup: a fresh disk cache folder, so every run exercises the
LLVM compile path rather than loading object code from an earlier run; removed when
the session ends (tens of megabytes of object code per run otherwise stay in /tmp)."""
import os
import shutil
import tempfile

_CACHE = tempfile.mkdtemp(prefix="lazyarray-test-cache-")
os.environ["LAZYARRAY_CACHE_DIR"] = _CACHE


def pytest_sessionstart(session) -> None:
    """The building blocks loaded before the first test (``helpers.load_building_blocks``)."""
    from helpers import load_building_blocks
    load_building_blocks()


def pytest_unconfigure(config) -> None:
    from lazyarray.backend import native
    native.flush()  # no background compile writes into the folder as it goes
    shutil.rmtree(_CACHE, ignore_errors=True)


import pytest  # noqa: E402


@pytest.fixture
def whole_programs(monkeypatch):
    """Every evaluation plans its whole program, the first of a small structure too (no
    steps, lazyarray/_steps.py): for tests of programs, tiers and their counters."""
    monkeypatch.setenv("LAZYARRAY_STEPS", "0")
