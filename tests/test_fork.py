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


# The end of the two scripts below: fork while thread ``t`` holds something LLVM needs,
# compile in the child, report its exit code.
FORK_AND_COMPILE = """
pid = os.fork()
if pid == 0:
    v = float(xp.sum(xp.cos(xp.asarray(np.zeros(7)))))  # a compile in the child
    os._exit(0 if v == 7.0 else 3)
_, status = os.waitpid(pid, 0)
t.join()
print("child", os.waitstatus_to_exitcode(status))
"""


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
""" + FORK_AND_COMPILE


def _child_compiles(script: str, env: dict) -> None:
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         env=env, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["child", "0"]


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
def test_a_fork_during_an_llvm_call_leaves_the_child_able_to_compile(tmp_path):
    """fork() waits for another thread's LLVM call: the child's copy of llvmlite's lock
    would otherwise stay held and its first compile hang."""
    env = dict(os.environ, LAZYARRAY_CACHE_DIR=str(tmp_path), LAZYARRAY_COMPILE_WORKER="0")
    _child_compiles(HELD_DURING_FORK, env)


STARTING_LLVM = """
import os, threading, time, numpy as np, lazyarray as xp
from lazyarray.backend import llvm
real = llvm.Codegen.__init__
started = threading.Event()
def slow_start(self, *args, **kwargs):  # LLVM's start (about 24 ms) made long
    started.set()
    time.sleep(0.3)
    real(self, *args, **kwargs)
llvm.Codegen.__init__ = slow_start
t = threading.Thread(target=llvm.codegen)  # as the tiering thread's first compile
t.start()
started.wait()
""" + FORK_AND_COMPILE


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
def test_a_fork_while_another_thread_starts_llvm_leaves_the_child_able_to_compile(tmp_path):
    """fork() waits for the code generator another thread is creating: the child's copy
    of its creation lock would otherwise stay held (a hang found by tests/repeat_faults.py,
    fork-while-compiling, 1 in 540 runs at bcd4b0c)."""
    env = dict(os.environ, LAZYARRAY_CACHE_DIR=str(tmp_path), LAZYARRAY_COMPILE_WORKER="0",
               LAZYARRAY_PREBUILD="0")
    _child_compiles(STARTING_LLVM, env)


# The end of a parent's script: wait up to 60 s for child ``pid`` (``status`` None: hung).
WAIT_FOR_CHILD = """
end = time.monotonic() + 60
while time.monotonic() < end:
    done, status = os.waitpid(pid, os.WNOHANG)
    if done:
        break
    time.sleep(0.05)
else:
    os.kill(pid, 9)
    os.waitpid(pid, 0)
    status = None
"""


HELD_LOCKS = """
import gc, os, sys, threading, time, numpy as np, lazyarray as xp
from lazyarray.backend import cache, library, tiers
from lazyarray.backend.cache import PROGRAMS, _code_key, keyed_walk, snapshot_of
a = xp.asarray(np.linspace(0, 1, 100))
float(xp.sum(a * 2.0))
e = xp.sum(xp.cos(a) * 3.0)  # its program code is "being made" by another thread below
nodes, values, keys, outputs, _ = keyed_walk([e._node])
sched = PROGRAMS.schedule(snapshot_of(nodes, values, keys[0]), outputs, keys[0])
held, release = threading.Event(), threading.Event()
def another_thread():  # as an evaluation under way in another thread
    with PROGRAMS.lock, library._lock, tiers._lock, cache.gc_paused():
        PROGRAMS._inflight[_code_key(sched)] = threading.Event()
        held.set()
        release.wait()
t = threading.Thread(target=another_thread)
t.start()
held.wait()
pid = os.fork()
if pid == 0:
    want = float(np.sum(np.cos(np.linspace(0, 1, 100)) * 3.0))
    ok = abs(float(xp.sum(xp.cos(a) * 3.0)) - want) < 1e-12 * abs(want)  # the in-flight one
    ok = ok and float(xp.sum(xp.tanh(a) + 1.0)) > 0 and gc.isenabled()  # a new one
    os._exit(0 if ok else 3)
""" + WAIT_FOR_CHILD + """release.set()
t.join()
print("child", "hung" if status is None else os.waitstatus_to_exitcode(status))
"""


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
def test_a_fork_while_another_thread_evaluates_leaves_the_child_unblocked(tmp_path):
    """Locks, an in-flight program and a paused collector of a thread that does not exist in
    the child (issue 15, item 4: the child waited for ever on the cache's lock or on the
    in-flight entry)."""
    env = dict(os.environ, LAZYARRAY_CACHE_DIR=str(tmp_path))
    out = subprocess.run([sys.executable, "-c", HELD_LOCKS], capture_output=True, text=True,
                         env=env, timeout=180)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split()[:2] == ["child", "0"], out.stdout


FORK_AFTER_IMPORT = """
import os, sys, time, numpy as np, lazyarray as xp
pid = os.fork()  # at once: the thread mapping the building blocks may be importing
if pid == 0:
    os._exit(0 if float(xp.sum(xp.asarray(np.ones(5)) * 2.0)) == 10.0 else 3)
""" + WAIT_FOR_CHILD + """print("child", "hung" if status is None else os.waitstatus_to_exitcode(status))
"""


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
def test_a_child_forked_right_after_import_evaluates():
    """fork() waits for the preload thread: a module it was importing stayed locked in the
    child, whose first evaluation then waited for ever (9 and 40 of 10 and 40 runs, with
    and without the building blocks on disk, before the fix)."""
    for _ in range(3):
        out = subprocess.run([sys.executable, "-c", FORK_AFTER_IMPORT], capture_output=True,
                             text=True, env=dict(os.environ), timeout=120)
        assert out.returncode == 0, out.stderr
        assert out.stdout.split() == ["child", "0"]


FORK_AFTER_IMPORT_AT = """
import os, sys, time, numpy as np, lazyarray as xp
time.sleep(float(sys.argv[1]))  # a new machine: the sequencer's thread imports LLVM, compiles
pid = os.fork()
if pid == 0:
    os._exit(0 if float(xp.sum(xp.asarray(np.ones(5)) * 2.0)) == 10.0 else 3)
""" + WAIT_FOR_CHILD + """print("child", "hung" if status is None else os.waitstatus_to_exitcode(status))
"""


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
def test_a_child_forked_while_a_new_machine_starts_evaluates(tmp_path):
    """On an empty disk cache the import starts the sequencer's compile on a thread that
    imports modules before and after LLVM's start; fork() waits for those imports
    (threads.wait_for_imports), looking again once it holds LLVM's locks: 9 of 20 children
    forked 0-120 ms after the import hung when it looked only once."""
    for i, delay in enumerate(("0.005", "0.02", "0.03", "0.045", "0.06", "0.09")):
        env = dict(os.environ, LAZYARRAY_CACHE_DIR=str(tmp_path / str(i)))
        out = subprocess.run([sys.executable, "-c", FORK_AFTER_IMPORT_AT, delay],
                             capture_output=True, text=True, env=env, timeout=120)
        assert out.returncode == 0, out.stderr
        assert out.stdout.split() == ["child", "0"], (delay, out.stdout)
