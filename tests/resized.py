"""Structures met again at other sizes: random graphs of several outputs over broadcasting
leaves, evaluated at one set of sizes and then, same structure (same ranks, other
sizes), at three more, each result against numpy's, evaluated implicitly and under ``jit``.

    python tests/resized.py --graphs 2000 --seed 0      # exits non-zero on a mismatch

Programs, schedules and program code are cached by structure, which holds ranks, not
sizes: whatever a schedule decided from the sizes of the graph it was made for must
still hold, or be checked, when another graph of that structure runs it (a join of two
kernels over equal sizes once ran over unequal ones, writing past a buffer).
``tests/test_resized.py`` runs a few hundred graphs in the default test run.
"""
from __future__ import annotations

import argparse
import sys
import warnings

import numpy as np

UNARY = ("sin", "exp", "abs", "neg", "sqrt_abs")
BINARY = ("+", "*", "-")
REDUCE = ("sum", "max", "min", "mean")
VIEWS = ("every_other", "transpose", "flip", "half", "drop_first")
SHAPING = ("flatten", "cumsum", "concat", "take", "where")


def draw_plan(rng, n_leaves: int) -> list:
    """Steps over earlier values: (kind, sources..., parameters)."""
    plan = []
    for _ in range(int(rng.integers(2, 8))):
        n = n_leaves + len(plan)
        kind = rng.choice(["un", "bin", "sc", "red", "view", "mm", "shape"],
                          p=[0.22, 0.26, 0.12, 0.1, 0.1, 0.08, 0.12])
        if kind == "un":
            plan.append(("un", int(rng.integers(0, n)), str(rng.choice(UNARY))))
        elif kind == "bin":
            plan.append(("bin", int(rng.integers(0, n)), int(rng.integers(0, n)),
                         str(rng.choice(BINARY))))
        elif kind == "sc":
            plan.append(("sc", int(rng.integers(0, n)), float(rng.normal()), float(rng.normal())))
        elif kind == "red":
            plan.append(("red", int(rng.integers(0, n)), int(rng.integers(0, 2)),
                         str(rng.choice(REDUCE))))
        elif kind == "view":
            plan.append(("view", int(rng.integers(0, n)), str(rng.choice(VIEWS))))
        elif kind == "mm":
            plan.append(("mm", int(rng.integers(0, n)), int(rng.integers(0, n))))
        else:
            plan.append(("shape", int(rng.integers(0, n)), int(rng.integers(0, n)),
                         str(rng.choice(SHAPING)), int(rng.integers(0, 1 << 30))))
    return plan


def outputs_of(plan: list, n_leaves: int) -> list:
    """The last value and about a third of the others."""
    n = n_leaves + len(plan)
    return sorted({n - 1} | {n_leaves + i for i in range(len(plan)) if (7 * i + len(plan)) % 3 == 0})


def build(lib, leaves: list, plan: list) -> list:
    """The plan's outputs computed by ``lib`` (numpy or lazyarray) from ``leaves``."""
    vals = list(leaves)
    for step in plan:
        kind, v = step[0], vals[step[1]]
        if kind == "un":
            f = step[2]
            vals.append(lib.sin(v) if f == "sin" else
                        lib.exp(lib.clip(v, -5.0, 5.0)) if f == "exp" else
                        lib.abs(v) if f == "abs" else
                        -v if f == "neg" else lib.sqrt(lib.abs(v)))
        elif kind == "bin":
            w = vals[step[2]]
            vals.append(v + w if step[3] == "+" else v * w if step[3] == "*" else v - w)
        elif kind == "sc":
            vals.append(v * step[2] + step[3])
        elif kind == "view":
            f = step[2]
            vals.append(v if v.ndim == 0 else
                        v[::2] if f == "every_other" or v.ndim < 2 and f == "transpose" else
                        v[:(v.shape[0] + 1) // 2] if f == "half" else  # a bound per size
                        v[1:] if f == "drop_first" else
                        v.T if f == "transpose" else lib.flip(v, axis=0))
        elif kind == "mm":  # numpy's ValueError for ranks or sizes that do not fit: skipped
            vals.append(lib.matmul(v, vals[step[2]]))
        elif kind == "shape":
            vals.append(_shaping(lib, v, vals[step[2]], step[3], step[4]))
        else:
            vals.append(getattr(lib, step[3])(v, axis=step[2] % v.ndim) if v.ndim else v)
    return [vals[i] for i in outputs_of(plan, len(leaves))]


def _shaping(lib, v, w, f: str, salt: int):
    """Ops whose sizes come from their inputs' in other ways than elementwise ones'."""
    if v.ndim == 0:
        return v
    if f == "flatten":
        return lib.reshape(v, (-1,))
    if f == "cumsum":
        return lib.cumulative_sum(v, axis=v.ndim - 1)
    if f == "concat":  # ValueError (numpy's) unless the other axes fit: skipped
        return lib.concat([v, w], axis=0) if lib is not np else np.concatenate([v, w], axis=0)
    if f == "take":  # indices from the size at hand (every size has its own)
        n = v.shape[0]
        idx = np.arange(n)[::-1] if salt % 2 else (np.arange(n) * (salt % 7 + 1)) % n
        return lib.take(v, lib.asarray(idx) if lib is not np else idx, axis=0)
    return lib.where(v > 0.1, v, w)  # ValueError unless they broadcast: skipped


def draw_shapes(rng, ranks: list) -> list:
    """Shapes of the given ranks, sizes often shared between leaves (so that they
    broadcast, and kernels over equal sizes can join)."""
    common = [int(rng.choice([1, 2, 3, 5, 8, 64, 257, 1000])) for _ in range(3)]
    return [tuple(common[(i + int(rng.integers(0, 3))) % 3] if rng.random() < 0.7
                  else int(rng.choice([1, 4, 7, 300])) for i in range(r)) for r in ranks]


def check_graph(seed: int, index: int, xp, sizes: int = 4) -> list:
    """Problems (text) of graph ``index`` of ``seed`` run at ``sizes`` sets of sizes."""
    rng = np.random.default_rng([seed, index])
    ranks = [int(rng.integers(1, 3)) for _ in range(int(rng.integers(2, 4)))]
    plan = draw_plan(rng, len(ranks))
    problems = []
    jitted = xp.jit(lambda *leaves: tuple(build(xp, list(leaves), plan)))
    for trial in range(sizes):
        shapes = draw_shapes(rng, ranks)
        leaves = [rng.normal(size=s) for s in shapes]
        try:
            want = build(np, leaves, plan)
        except ValueError:
            continue  # shapes numpy does not broadcast: lazyarray must refuse them too
        where = f"graph {index} of seed {seed}, sizes {trial} {shapes}, plan {plan}"
        for how in ("implicit", "jit"):
            try:
                if how == "jit":
                    got = [np.asarray(o) for o in jitted(*leaves)]
                else:
                    outs = build(xp, [xp.asarray(v) for v in leaves], plan)
                    got = [np.asarray(o) for o in (xp.evaluate(*outs) if len(outs) > 1 else outs)]
            except Exception as e:  # noqa: BLE001 - reported, with the graph to replay it
                problems.append(f"{where}, {how}: raised {type(e).__name__}: {e}")
                continue
            for w, g in zip(want, got):
                scale = float(np.max(np.abs(w), initial=1.0, where=np.isfinite(w)))
                if w.shape != g.shape or not np.allclose(g, w, rtol=1e-12, atol=1e-12 * scale,
                                                         equal_nan=True):
                    problems.append(f"{where}, {how}: differs from numpy")
                    break
    return problems


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--graphs", type=int, default=1000)
    p.add_argument("--seed", type=int, default=0)
    a = p.parse_args(argv)
    warnings.simplefilter("ignore")  # overflow and invalid-value warnings of both sides
    import lazyarray as xp
    problems = []
    for i in range(a.graphs):
        problems += check_graph(a.seed, i, xp)
    for line in problems[:20]:
        print(line)
    print(f"seed {a.seed}: {a.graphs} graphs, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
