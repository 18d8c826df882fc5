"""The building-block library on a new machine (backend/library.py)."""
import json
import os
import subprocess
import sys

NEW_MACHINE = r"""
import json
import numpy as np
import lazyarray as xp
from lazyarray.backend import native
events = []
native.STORE.stats.log.append(lambda event, name, seconds: events.append([event, name]))
x = np.linspace(0.5, 1.5, 1000)
a = xp.asarray(x)
first = np.asarray((a * 2.5 + 1.0) / 3.0 - a * a)
second = np.asarray((a * 2.5 + 1.0) / 3.0 - a * a + 7.0)
third = np.asarray(xp.exp(a) - 1.0)
ok = [bool(np.array_equal(first, (x * 2.5 + 1.0) / 3.0 - x * x)),
      bool(np.array_equal(second, (x * 2.5 + 1.0) / 3.0 - x * x + 7.0)),
      bool(np.allclose(third, np.exp(x) - 1.0, rtol=1e-15, atol=0))]
print(json.dumps([ok, events]))
"""


def test_a_new_machine_compiles_a_programs_missing_primitives_as_one_unit(tmp_path):
    env = dict(os.environ, LAZYARRAY_CACHE_DIR=str(tmp_path), LAZYARRAY_PREBUILD="0",
               LAZYARRAY_PRELOAD="0", LAZYARRAY_COMPILE_WORKER="0")
    out = subprocess.run([sys.executable, "-c", NEW_MACHINE], env=env, capture_output=True,
                         text=True, timeout=120, check=True).stdout
    ok, events = json.loads(out.strip().splitlines()[-1])
    assert ok == [True, True, True]
    compiled = [name for event, name in events if event == "compiled"]
    blocks = [name for name in compiled if name.startswith("lzb_")]
    # the first program's five primitives in one unit; the second needs none; the third
    # one (exp), compiled alone
    assert len(blocks) == 2, compiled
    assert blocks[0].startswith("lzb_batch_") and blocks[0].endswith("~quick")
    assert blocks[1] == "lzb_ew_exp_float64_float64~quick"
    assert "lazyarray_run~quick" in compiled


def test_prebuild_queues_the_bundle_and_every_gemm_routine(monkeypatch):
    """``library.prebuild`` (what ``python -m lazyarray`` runs on a new machine) asks for
    the bundle and the GEMM routine of each dtype without waiting: a machine that only
    runs short processes gets them from the setup job, not never."""
    from lazyarray.backend import library, native
    from lazyarray.backend.schedule import GEMM_DTYPES
    asked = []

    def get(unit, wait=True, priority=native.URGENT, on_ready=None, queue=True, disk=True):
        asked.append((unit.name, wait, queue))
        return None
    monkeypatch.setattr(native, "get", get)
    monkeypatch.setattr(library, "_bundle_state", None)
    monkeypatch.setattr(library, "prebuilding", lambda: True)
    library.prebuild()
    names = {name for name, _, _ in asked}
    assert library.bundle_unit().name in names
    assert {library.gemm_unit(d).name for d in GEMM_DTYPES} <= names
    assert all(not wait and queue for _, wait, queue in asked), asked
    assert not library.prebuilt()  # asked for, not loaded: the setup job says so


LINALG_LATER = r"""
import sys, time
import numpy as np
import lazyarray as xp
from lazyarray.backend import library, native
busy = sys.argv[1] == "busy"
later = ("lazyarray.linalg", "lazyarray.backend.warmup")
if busy:  # a program made at once: the work waits for a quiet moment (an hour here)
    native.QUIET = 3600.0
    float(xp.sum(xp.asarray(np.ones(8)) * 2.0))
    library._preloading.join()
    time.sleep(0.1)
    early = [m in sys.modules for m in later]
else:
    early = [False, False]
if library._preloading is not None:  # (None: LAZYARRAY_PRELOAD=0)
    library._preloading.join()
before = xp.compile_cache_info()
native.flush()  # (waits for the calls handed to the quiet moment too)
warm = sys.modules.get("lazyarray.backend.warmup")
print(early, [m in sys.modules for m in later], warm.RUNS[0] if warm else 0,
      xp.compile_cache_info() == before)
"""


def test_linalg_and_the_planners_warm_up_run_at_a_quiet_moment_after_the_preload():
    """scikit-learn's first PCA, Ridge or LDA fit reaches for ``xp.linalg``, and every
    first fit plans cold: the import and the planner's warm-up run on the background
    thread once the program is quiet, not inside the fit, and change no counter; a
    process making programs at once is not slowed by them meanwhile."""
    env = dict(os.environ)  # (the building blocks on disk, as after the setup job)
    env.pop("LAZYARRAY_PRELOAD", None)
    for mode in ("quiet", "busy"):
        out = subprocess.run([sys.executable, "-c", LINALG_LATER, mode], env=env,
                             capture_output=True, text=True, timeout=300, check=True).stdout
        assert out.strip() == "[False, False] [True, True] 1 True", mode
    env["LAZYARRAY_PRELOAD"] = "0"
    out = subprocess.run([sys.executable, "-c", LINALG_LATER, "quiet"], env=env,
                         capture_output=True, text=True, timeout=300, check=True).stdout
    # (the recording unit is loaded by the flush then: counters move, not by this work)
    assert out.startswith("[False, False] [False, False] 0 ")
