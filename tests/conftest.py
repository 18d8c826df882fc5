"""Test session setup: a fresh disk cache folder, so every run exercises the
LLVM compile path rather than loading object code from an earlier run."""
import os
import tempfile

os.environ["LAZYARRAY_CACHE_DIR"] = tempfile.mkdtemp(prefix="lazyarray-test-cache-")
