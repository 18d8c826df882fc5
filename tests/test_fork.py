"""A process forked after lazyarray has started its helpers (kernel thread pool,
compile worker, tiering and disk-cache threads) computes and exits normally."""
import os
import subprocess
import sys

import pytest

SCRIPT = """
import os, sys, numpy as np, lazyarray as xp
from lazyarray.backend import native
x = xp.asarray(np.linspace(0, 1, 1_000_000))  # large enough for the kernel thread pool
for _ in range(3):
    float(xp.sum(xp.sin(x) * x))  # threads, compile worker and thread, disk writer
pid = os.fork()
if pid == 0:
    got = [float(xp.sum(xp.tanh(x) * 3.0 + x)) for _ in range(3)]  # a new program
    native.flush()
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


HELD_DURING_FORK = """
import os, threading, time, numpy as np, lazyarray as xp
from llvmlite.binding import ffi
float(xp.sum(xp.asarray(np.ones(10))))  # the code generator exists
held = threading.Event()
def inside_llvm():  # as the tiering thread in the middle of an LLVM call
    with ffi.lib._lock:
        held.set()
        time.sleep(0.3)
t = threading.Thread(target=inside_llvm)
t.start()
held.wait()
pid = os.fork()
if pid == 0:
    v = float(xp.sum(xp.cos(xp.asarray(np.zeros(7)))))  # a compile in the child
    os._exit(0 if v == 7.0 else 3)
_, status = os.waitpid(pid, 0)
t.join()
print("child", os.waitstatus_to_exitcode(status))
"""


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
def test_a_fork_during_an_llvm_call_leaves_the_child_able_to_compile(tmp_path):
    """fork() waits for another thread's LLVM call: the child's copy of llvmlite's lock
    would otherwise stay held and its first compile hang."""
    env = dict(os.environ, LAZYARRAY_CACHE_DIR=str(tmp_path), LAZYARRAY_COMPILE_WORKER="0")
    out = subprocess.run([sys.executable, "-c", HELD_DURING_FORK], capture_output=True,
                         text=True, env=env, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["child", "0"]
