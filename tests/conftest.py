"""Test session setup: a fresh disk cache folder, so every run exercises the
LLVM compile path rather than loading object code from an earlier run; removed when
the session ends (tens of megabytes of object code per run otherwise stay in /tmp)."""
import os
import shutil
import tempfile

_CACHE = tempfile.mkdtemp(prefix="lazyarray-test-cache-")
os.environ["LAZYARRAY_CACHE_DIR"] = _CACHE


def pytest_unconfigure(config) -> None:
    from lazyarray.backend import native
    native.flush()  # no background compile writes into the folder as it goes
    shutil.rmtree(_CACHE, ignore_errors=True)
