"""A process forked after lazyarray has started its helpers (kernel thread pool,
compile worker, tiering and disk-cache threads) computes and exits normally."""
import os
import subprocess
import sys

import pytest

SCRIPT = """
import os, sys, numpy as np, lazyarray as xp
from lazyarray.backend import tiering
x = xp.asarray(np.linspace(0, 1, 1_000_000))  # large enough for the kernel thread pool
for _ in range(3):
    float(xp.sum(xp.sin(x) * x))  # threads, compile worker, tiering, disk writer
pid = os.fork()
if pid == 0:
    got = [float(xp.sum(xp.tanh(x) * 3.0 + x)) for _ in range(3)]  # a new program
    tiering.flush()
    ok = len(set(got)) == 1 and abs(got[0] - float(np.sum(np.tanh(np.linspace(0, 1, 1_000_000)) * 3.0 + np.linspace(0, 1, 1_000_000)))) < 1e-6 * abs(got[0])
    sys.exit(0 if ok else 3)
_, status = os.waitpid(pid, 0)
print("child", os.waitstatus_to_exitcode(status), float(xp.sum(xp.exp(x))))
"""


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
def test_a_forked_child_computes_and_exits(tmp_path):
    env = dict(os.environ, LAZYARRAY_CACHE_DIR=str(tmp_path))
    out = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True,
                         env=env, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split()[:2] == ["child", "0"]
