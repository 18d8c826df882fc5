"""Long fuzz run: random expression graphs, lazyarray against numpy (see fuzzgraphs.py).

    python tests/fuzz.py --graphs 10000 --seed 0 [--jobs 2] [--show 5] [--views]
    python tests/fuzz.py --seed 0 --only 1234        # replay one graph, print its listing

Prints how many graphs ran, crashed and disagreed (with each reported graph's seed,
index and listing, enough to reproduce it) and exits non-zero on any crash or
disagreement.  Graph ``i`` of seed ``s`` is drawn from ``default_rng([s, i])``,
so one graph reproduces without running the others.  ``--views`` draws the views
mix (fuzzgraphs.VIEW_OPS: float32, strided and broadcast views over-represented).
The disk cache goes to a fresh temporary folder (unless LAZYARRAY_CACHE_DIR is set),
so every structure is compiled.
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from collections import Counter

os.environ.setdefault("LAZYARRAY_CACHE_DIR", tempfile.mkdtemp(prefix="lazyarray-fuzz-cache-"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import fuzzgraphs as fg  # noqa: E402


def run_one(args: tuple) -> tuple:
    import warnings
    warnings.simplefilter("ignore")  # numpy's and lazyarray's overflow/invalid warnings
    seed, index, depth, views = args
    try:
        graph = fg.graph_for(seed, index, depth, views)
    except Exception as e:  # noqa: BLE001 - a generator failure is reported, not hidden
        import traceback
        return index, "generator", f"{type(e).__name__}: {e}\n{traceback.format_exc()}", "", 0, 0, (), ""
    try:
        out = fg.run_graph(graph)
    except Exception as e:  # noqa: BLE001 - a harness failure is reported, not hidden
        import traceback
        out = fg.Outcome("harness", f"{type(e).__name__}: {e}\n{traceback.format_exc()}")
    listing = graph.listing() if out.status != "ok" else ""
    ops = tuple(s.text.split("(")[0] for s in graph.steps)
    return index, out.status, out.detail, listing, out.compared, out.undefined, ops, out.path


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--graphs", type=int, default=1000)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--start", type=int, default=0, help="first graph index")
    p.add_argument("--only", type=int, help="run and print graph number ONLY alone")
    p.add_argument("--jobs", type=int, default=1, help="worker processes")
    p.add_argument("--depth", type=int, default=8, help="most ops per graph")
    p.add_argument("--show", type=int, default=5, help="failures printed in full")
    p.add_argument("--views", action="store_true",
                   help="float32, strided and broadcast views over-represented")
    a = p.parse_args(argv)
    if a.only is not None:
        g = fg.graph_for(a.seed, a.only, a.depth, a.views)
        print(g.listing())
        out = fg.run_graph(g)
        print(out.status, out.path, out.detail)
        return 0 if out.status == "ok" else 1
    todo = [(a.seed, i, a.depth, a.views) for i in range(a.start, a.start + a.graphs)]
    t0 = time.time()
    counts, failures = Counter(), []
    compared = undefined = 0
    pool = None
    if a.jobs > 1:
        import multiprocessing as mp
        pool = mp.get_context("fork").Pool(a.jobs)
        results = pool.imap_unordered(run_one, todo, chunksize=8)
    else:
        results = map(run_one, todo)
    done = 0
    for r in results:
        index, status, detail, listing, c, u = r[:6]
        counts[status] += 1
        compared, undefined = compared + c, undefined + u
        if status != "ok":
            failures.append((index, status, detail, listing, r[7] if len(r) > 7 else ""))
        done += 1
        if done % 500 == 0:
            print(f"  {done} graphs, {len(failures)} failing, {time.time() - t0:.0f} s", flush=True)
    if pool is not None:
        pool.close()
        pool.join()
    failures.sort()
    for index, status, detail, listing, path in failures[:a.show]:
        print(f"--- seed {a.seed} graph {index}: {status} [{path}]  "
              f"(replay: python tests/fuzz.py --seed {a.seed} --only {index}"
              f"{' --views' if a.views else ''})")
        print(listing)
        print(detail.rstrip())
    if len(failures) > a.show:
        print(f"... and {len(failures) - a.show} more: graphs "
              + ", ".join(str(f[0]) for f in failures[a.show:a.show + 50]))
    took = time.time() - t0
    print(f"graphs: {a.graphs}  ok: {counts['ok']}  crashed: {counts['crash']}  "
          f"disagreed: {counts['mismatch']}  generator/harness errors: "
          f"{counts['generator'] + counts['harness']}  "
          f"(seed {a.seed}{', views mix' if a.views else ''}, {took:.0f} s)")
    print(f"output elements compared: {compared}, without a defined answer (skipped): {undefined}")
    return 0 if len(failures) == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
