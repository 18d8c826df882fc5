"""A process exits when its work is done: no background compile starts once the
interpreter is exiting, the compile workers are stopped without waiting for them, and
lazyarray can be imported and used inside an atexit hook."""
import os
import subprocess
import sys

# an exit hook of the user's that takes a while (the first to run: registered last)
SHORT = ("import atexit, time, lazyarray as xp\n"
         "print(float(xp.sum(xp.sin(xp.linspace(0, 2, 1000)) * 2.0)))\n"
         "atexit.register(time.sleep, 0.3)\n")

LATE = """
import atexit, threading  # threading imported: its shutdown runs before the atexit hooks
def late():
    import numpy as np, lazyarray as xp
    print("late", float(xp.sum(xp.asarray(np.arange(4.0)) * 2.0)))
atexit.register(late)
print("main")
"""


def run(script, cache):
    env = dict(os.environ, LAZYARRAY_CACHE_DIR=str(cache), LAZYARRAY_LOG="compile")
    return subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          env=env, timeout=120)


def test_a_short_process_on_a_new_machine_starts_no_compile_at_exit(tmp_path):
    # The bundle and the recorder are queued for a quiet moment; the exit hooks (the
    # compile worker's among them, or the user's) used to give them one, and the process
    # then waited for them (3-10 s), or stored the bundle.
    for _ in range(2):
        out = run(SHORT, tmp_path / "cache")
        assert out.returncode == 0, out.stderr
        assert out.stdout.strip() == "1415.6395146159225"
        assert "in the background" not in out.stderr, out.stderr
    second = run(SHORT, tmp_path / "cache")
    assert "loaded lazyarray_blocks" not in second.stderr, second.stderr


def test_lazyarray_imported_in_an_atexit_hook(tmp_path):
    out = run(LATE, tmp_path)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["main", "late", "12.0"]
