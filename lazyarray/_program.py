"""Placeholders, programs and materialization: placeholder, compile/Program,
prepare/Prepared, trace, evaluate, compile_cache_info (jit: ``_jit.py``).

A Program is a snapshot of a recorded graph whose inputs are its
placeholders followed by the data leaves it captured.  ``prepare`` binds
input shapes and dtypes and compiles (through the process-wide cache); a
Prepared program runs with new values, rebinding captured constants
positionally, without compiling again.
"""
from __future__ import annotations

import operator
import sys
import weakref
from typing import Callable, NamedTuple, Optional, Sequence, Union

import numpy as np

from . import _dtypes as dt, _fusion, _live, _steps
from ._array_object import Array, signature
from ._errors import concretization_error, input_label
from ._listing import listing, op_name
from ._memory import check_allocation, check_allocation_once, check_shape
from .backend import dispatch, ir, runtime
from .backend.cache import PROGRAMS, gc_paused, keyed_walk, snapshot_of
from .backend.ir import NEVER, Dim, Node, Op, sym, toposort

ArrayOrArrays = Union[Array, Sequence[Array]]
_object_new = object.__new__
_DATA = Op.DATA

# Placeholders whose values live in another engine (lazyarray.dask's from_dask leaves):
# node -> a function computing the values of a list of root nodes there.
FOREIGN_LEAVES: "weakref.WeakKeyDictionary[Node, Callable]" = weakref.WeakKeyDictionary()


# --------------------------------------------------------------------------- placeholders

def placeholder(shape: Sequence[Union[int, str]], dtype: dt.DType = dt.float64,
                name: Optional[str] = None) -> Array:
    """An input without a value: a dtype and a shape whose entries are ints
    (concrete) or strings (named symbolic sizes; one name means one size).

    >>> import lazyarray as xp
    >>> x = xp.placeholder(("n",), xp.float64, name="x")
    >>> x.shape
    (None,)
    """
    dt.check_dtype(dtype)
    if isinstance(shape, (int, str)):
        shape = (shape,)
    if not isinstance(shape, (tuple, list)):
        raise TypeError(f"placeholder(): shape must be a tuple of ints and names, "
                        f"got {type(shape).__name__}")
    dims = []
    for d in shape:
        if isinstance(d, str):
            if not d.isidentifier():
                raise ValueError(f"placeholder(): symbolic size names must be identifiers, got {d!r}")
            dims.append(sym(d))
        elif isinstance(d, int) and not isinstance(d, bool) and d >= 0:
            dims.append(d)
        else:
            raise ValueError(f"placeholder(): shape entries must be non-negative ints or names, "
                             f"got {d!r}")
    if name is not None and not isinstance(name, str):
        raise TypeError(f"placeholder(): name must be a str, got {type(name).__name__}")
    check_shape(tuple(dims), "placeholder()")
    return Array._new(Node(Op.PLACEHOLDER, dtype, tuple(dims), (), name))


def placeholders_of(roots: list) -> list:
    """Names of the placeholders the graph under ``roots`` depends on."""
    return [n.arg or "<unnamed>" for n in toposort(roots) if n.op is Op.PLACEHOLDER]


# --------------------------------------------------------------------------- materialization

def materialize(arrays: Sequence[Array], what: str = "evaluate()") -> list:
    """Compute the values of ``arrays`` in one compiled program; returns numpy arrays.

    The program also computes the arrays' siblings (``_live``: the state a loop
    updated before reading its loss), unless that fails: then they stay lazy."""
    roots = [a._node for a in arrays]
    # one target that only its Array holds (no node of any graph does: it is inside no
    # other graph) leaves every other signature current when it gets its value: the next
    # array read then finds its program by signature, without a walk
    alone = len(roots) == 1 and sys.getrefcount(roots[0]) <= _ALONE
    _compute(roots, _live.candidates(roots) if _live.RECENT else (), what, alone)
    return [a._node.value for a in arrays]


def _alone() -> int:
    """References ``materialize`` counts for a target held by its Array only (the
    Array's, the list's, getrefcount's argument: measured, since Python versions
    differ)."""
    holder = Array._new(Node(Op.DATA, dt.float64, (), (), None, 0.0, None))
    roots = [holder._node]
    return sys.getrefcount(roots[0])


_ALONE = _alone()


def _compute(roots: list, maybe: Sequence, what: str, alone: bool = False,
             quick: Optional[tuple] = None) -> None:
    """Give the nodes ``roots`` their values, and those of ``maybe`` (``_live``
    candidates) that turn out to be siblings: by a signature's program if one ran
    before, else through a walk.  ``alone``: the one root is inside no other graph
    (``materialize``): its value alone leaves other signatures current.  ``quick``:
    (``_steps.quick``'s answer, the epoch before it) when the steps ran already
    (``_settled``)."""
    keyed = roots + list(maybe)
    steps = native = True  # (native: the walk's steps try the native ones first)
    if maybe:  # known with these candidates, or walked to tell which are siblings
        try:
            if _run_known(keyed):
                return
        except Exception:  # a sibling's error is raised when it is evaluated itself
            return _compute(roots, (), what)
    elif quick is None and _run_known(roots, alone):
        return
    elif len(roots) == 1:  # a new structure's steps, if they are all known: no walk
        if quick is None:
            epoch = ir.EPOCH
            done = _steps.quick(roots[0], _run_known, PROGRAMS.by_signature, _compute_one,
                                what)
            native = not _steps.tried_natively(roots[0])
        else:
            done, epoch = quick
            native = False  # (the native materialize ran them)
        if done:
            if alone:
                _quiet(epoch)
            return
        steps = done is False
    pending = []
    for n in roots:
        if n.value is None:
            if n not in pending:  # nodes compare by identity
                pending.append(n)
        elif n.op is Op.SCALAR and not isinstance(n.value, np.ndarray):
            n.value = np.asarray(n.value, dtype=n.dtype.np)
    if not pending:
        return
    asked = {id(n) for n in pending}
    try:
        # The collector waits while the graph is walked and planned and its program
        # remembered (everything but the native run): each collection would traverse the
        # whole live graph (a 10,000-op chain spent more time in collections than in
        # planning).
        with gc_paused():
            runner, inputs, scal, walk, live = _plan(pending, what, maybe, steps, native)
            _steps.handed_over()  # (planned whole: no step counts as this evaluation's)
            if runner is _STEPS:
                return
        if runner is None:
            return
        outs = runner(inputs, scal)
    except Exception:
        if all(id(n) in asked for n in pending):  # no sibling in it: the error is theirs
            raise
        # a sibling's error is raised when it is evaluated itself
        return _compute(roots, (), what)
    with gc_paused():
        nodes, values = walk or (None, None)
        if not live and nodes is not None:
            _remember(keyed, pending, runner, nodes, values)
        inside = not (alone and not live and len(pending) == 1 and pending[0] is roots[0])
        for n, v in zip(pending + [nodes[i] for i in live], outs):
            ir.evaluated(n, v, None, inside)


_STEPS = object()  # _plan's runner when the graph was evaluated in steps (_steps.py)


def _quiet(epoch: int) -> None:
    """Steps that gave a value to their root alone (``alone``: no node holds it), which
    grew ``ir.EPOCH`` by one from ``epoch``: the epoch it had, as ``ir.evaluated(...,
    inside=False)`` leaves it (the native steps grow it for every node they evaluate).
    Any other evaluation meanwhile (an intermediate, another thread's) made it grow more,
    and it stays.  (A signature another thread made at the grown epoch meanwhile is
    current again only once the epoch grows back: until then it walks; after, its program
    recomputes what it reads from its own leaves, and ``_remember`` admits no walked
    program whose inputs are not among them.)"""
    if ir.EPOCH == epoch + 1:
        ir.EPOCH = epoch


def _settled(root, key: int, ran, what: str, alone: bool, epoch: int) -> None:
    """``materialize``'s rest when the native one ran the steps of ``root``, a new
    structure (``key``), and they did not all run (``ran``: ``_steps.NATIVE``'s result;
    ``epoch``: ``ir.EPOCH`` before them)."""
    done = _steps.settle(root, key, ran, PROGRAMS.by_signature, _run_known, _compute_one, what)
    _compute([root], (), what, alone, (done, epoch))


def _compute_one(roots: list, what: str) -> None:
    _compute(roots, (), what)


def _run_known(roots: list, alone: bool = False) -> bool:
    """Run the program remembered for the structure of ``roots`` (``_remember``), if
    there is one and they are all unevaluated; False when there is none.  ``alone``: see
    ``_compute``."""
    if len(roots) == 1:
        n = roots[0]
        sig = n.sig
        if sig is not None and sig[2] == ir.EPOCH and n.value is None:
            fast = PROGRAMS.by_signature.get(sig[0])
            if fast is not None:  # a graph of this structure ran before: no walk
                ir.evaluated(n, fast[0](sig[1]), fast[1], not alone)
                return True
        return False
    joint = _joint_signature(roots)
    fast = joint and PROGRAMS.by_signature.get(joint[0])
    if not fast:
        return False
    run, leaf_ids, picks = fast[:3]
    for p, v, leaf in zip(picks, run(joint[1]), leaf_ids):
        ir.evaluated(roots[p], v, leaf)
    return True


def _joint_signature(roots: list):
    """(key, leaves) naming the structure of several unevaluated, distinct nodes
    together, or None when one has no current signature: ``ir.signature`` of a node
    that would read them all (no such node is made; its op, None, is no real op's)."""
    epoch = ir.EPOCH
    for n in roots:
        sig = n.sig
        if sig is None or sig[2] != epoch or n.value is not None:
            return None
    if len({id(n) for n in roots}) != len(roots):
        return None
    sig = signature(None, None, (), tuple(roots), None)
    return None if sig is None else (sig[0], sig[1])


def _plan(pending: list, what: str, maybe: Sequence = (), steps: bool = True,
          native: bool = True) -> tuple:
    """(runner, inputs, packed scalars, the walk (nodes, values), positions of the nodes
    it also computes and keeps, ``_live``) for the nodes of ``pending`` still unevaluated
    (``pending`` is updated, the siblings among ``maybe`` appended); runner None when
    none is, ``_STEPS`` when they were evaluated in steps (``_steps.py``), which
    ``steps`` False rules out (as siblings joining do: their errors must stay theirs);
    ``native`` False: the native steps ran on this graph already (``_steps.run``)."""
    while pending:
        # Another thread may evaluate part of this graph meanwhile: the walk reads each
        # node's value once and everything below (key, inputs, the graph copy a cache
        # miss schedules) follows what it read.
        nodes, values, keys, outputs, phs = keyed_walk(pending)
        for i in outputs:
            if values[i] is not None:  # evaluated meanwhile: walk again without it
                pending[:] = [n for n, j in zip(pending, outputs) if values[j] is None]
                break
        else:
            more = _live.sharing(nodes, values, pending, maybe) if maybe and not phs else ()
            if not more:
                break
            pending.extend(more)  # walked again with them, once
            maybe, steps = (), False
    if not pending:
        return None, None, None, None, None
    if phs:
        engines = {FOREIGN_LEAVES.get(n) for n in phs}
        if len(engines) == 1 and None not in engines:  # all from one engine: computed there
            roots, (engine,) = list(pending), engines
            return (lambda inputs, scal: engine(roots)), None, None, None, ()
        raise concretization_error(what, [n.arg or "<unnamed>" for n in phs])
    live, held = _live.keep(nodes, values, keys[0], outputs)  # (marks states: before steps)
    if steps and _steps.wanted(nodes, (keys[0], outputs), PROGRAMS.has_schedule):
        done = _steps.run(nodes, (keys[0], outputs), pending, _run_known, _compute_one,
                          what, PROGRAMS.by_signature, native)
        if done:
            return _STEPS, None, None, None, ()
        if done is False:  # steps ran up to one not worth it: the rest is planned whole
            return _plan(pending, what, (), False)
    copy: list = []

    def snap() -> list:  # the graph's private copy: on a cache miss only, and once
        if not copy:
            copy.append(snapshot_of(nodes, values, keys[0]))
        return copy[0]
    if held:  # held nodes the program writes to memory anyway: kept for free
        wanted = outputs + tuple(live)
        sched = PROGRAMS.schedule(snap, wanted, keys[0])
        found = _live.buffered(nodes, held, sched)
        if found:  # the same kernels: not scheduled again
            PROGRAMS.add_outputs(sched, keys[0], wanted, tuple(found))
            live += found
    runner, made = PROGRAMS.runner(snap, outputs + tuple(live), keys, {})
    check_allocation_once(runner.allocs, what)
    sched = runner.schedule
    inputs = list(map(values.__getitem__, sched.buffers[:sched.n_inputs]))
    scal = runtime.pack_scalars(sched, nodes) if sched.scalars and not made else None
    return runner, inputs, scal, (nodes, values), live


_MAX_FAST = 2048  # entries of PROGRAMS.by_signature: (run(leaves) -> value(s), leaf id(s))


def _remember(roots: list, computed: list, runner, nodes: list, values: list) -> None:
    """Let the next graph of the structure of ``roots`` (one node, or several under
    their ``_joint_signature``) run ``runner``, which computed the nodes ``computed``
    among them, without a walk, if this graph had no evaluated node inside (all its
    buffers and scalars are leaves of its signature).  (A graph with nodes to keep,
    ``_live``, has one.)"""
    if len(roots) == 1:
        sig = roots[0].sig
        if sig is None or sig[2] != ir.EPOCH:
            return
        key, leaves = sig[0], sig[1]
    else:
        joint = _joint_signature(roots)
        if joint is None:
            return
        key, leaves = joint
    sched = runner.schedule
    where = {id(v): i for i, v in enumerate(leaves)}
    inputs = [where.get(id(values[j])) for j in sched.buffers[:sched.n_inputs]]
    scalars = [where.get(id(nodes[j].value)) for j in sched.scalars]
    if None in inputs or None in scalars:
        return
    fast = PROGRAMS.by_signature
    if len(fast) >= _MAX_FAST:
        fast.clear()
    dtypes = [nodes[j].dtype for j in sched.scalars]
    single = len(roots) == 1
    run = _leaf_runner(runner, tuple(inputs), tuple(zip(scalars, dtypes)), single)
    ids = tuple(ir.leaf_id(r.op, r.dtype, r.shape) for r in computed)
    if single:
        entry = fast[key] = (run, ids[0], _steps.direct(runner, inputs, scalars, dtypes))
        step = _steps.step_key(roots[0], leaves)
        if step is not None:  # (the same one-op program as a step's, found by the steps)
            fast[step] = entry
    else:  # which of roots the program computes (candidates that were no siblings: not)
        position = {id(r): i for i, r in enumerate(roots)}
        fast[key] = (run, ids, tuple(position[id(r)] for r in computed),
                     _steps.direct(runner, inputs, scalars, dtypes, several=True))


def _leaf_runner(runner, inputs: tuple, scalars: tuple, single: bool) -> Callable:
    """A function of a signature's leaves running ``runner`` on them (through its
    native front door once that is open) and returning its output (``single``) or
    outputs; ``scalars``: (leaf position, dtype)."""
    fallback = dispatch.FALLBACK
    args_of = _getter(inputs)  # (a step runs in a few microseconds: no Python loop here)
    if not scalars and single and len(runner.outputs) == 1:  # (else its door gives a tuple)
        def run(leaves: tuple):
            args = args_of(leaves)
            door = runner.door
            if door is not None:
                out = door(*args)
                if out is not fallback:
                    return out
            else:
                _door_for_steps(runner, False)
            return runner(args)[0]
        return run

    pack = runtime.scalar_packer([d for _, d in scalars]) if scalars else None
    scalars_of = _getter(tuple(i for i, _ in scalars))
    direct = single and len(runner.outputs) == 1  # (else its door gives a tuple)

    def run_with_scalars(leaves: tuple):
        args = args_of(leaves)
        scal = pack(scalars_of(leaves)) if pack is not None else None
        door = runner.door
        if direct and door is not None:
            out = door(*args, scal) if scal is not None else door(*args)
            if out is not fallback:
                return out
        elif direct:
            _door_for_steps(runner, scal is not None)
        outs = runner(args, scal)
        return outs[0] if single else outs
    return run_with_scalars


def _getter(positions: tuple) -> Callable[[tuple], tuple]:
    """The tuple of the items at ``positions`` of a tuple, picked in C."""
    if len(positions) >= 2:
        return operator.itemgetter(*positions)
    if positions:
        return operator.itemgetter(slice(positions[0], positions[0] + 1))
    return lambda leaves: ()


def _door_for_steps(runner, scal_arg: bool) -> None:
    """Open ``runner``'s front door at once (its trampoline read from disk now), not at
    a quiet moment, when steps run it a second time: more steps of it follow, likely (a
    chain's)."""
    if runner.runs >= 2 and not runner.door_asked and _steps.stepping():
        runner.open_door_now(scal_arg, True, True)


def evaluate(*arrays: Array):
    """Compute several arrays in one compiled program (shared subgraphs once).

    Returns the arrays themselves (a single array when given one), now holding
    values: from here on they act as data leaves.
    """
    for a in arrays:
        if not isinstance(a, Array):
            raise TypeError(f"evaluate() expects lazyarray Arrays, got {type(a).__name__}")
    materialize(arrays)
    return arrays[0] if len(arrays) == 1 else arrays


class CacheInfo(NamedTuple):
    """Counters of the process-wide program and code caches (see ``compile_cache_info``)."""

    hits: int
    misses: int
    disk_hits: int
    entries: int
    compile_seconds: float
    upgrades: int = 0
    compiles: int = 0
    background_compiles: int = 0
    compile_waits: int = 0
    kernel_hits: int = 0
    kernel_misses: int = 0
    interpreted_runs: int = 0
    compiled_runs: int = 0
    step_evaluations: int = 0
    steps: int = 0
    fused_steps: int = 0
    reduced_steps: int = 0


def compile_cache_info() -> CacheInfo:
    """Counters of the caches and tiers (backend/tiers.py), all since the process began.

    * ``hits``, ``misses``: evaluations whose program structure was known, and new
      structures (a schedule and program code made: no LLVM work);
      ``entries``: program structures held.
    * ``compiles``: LLVM compiles of any unit (kernels, building blocks, trampolines),
      ``background_compiles`` of them on the background thread; ``compile_waits``:
      compiles a caller waited for, taking ``compile_seconds`` in all;
      ``disk_hits``: units loaded from the disk cache instead.
    * ``kernel_hits``, ``kernel_misses``: compiled kernels wanted that were already
      compiled (in memory or on disk, possibly by another program with the same
      kernel) or had to be compiled; ``upgrades``: compiled kernels installed into
      program code (the kernel stops being interpreted there).
    * ``interpreted_runs``, ``compiled_runs``: kernel runs per tier (the sequencer
      counts them, front-door calls included).
    * ``step_evaluations``: first evaluations of small structures that ran op by op
      (``_steps.py``), ``steps`` the nodes they ran, ``fused_steps`` of them in fused
      regions on the building blocks (``_fusion.py``) rather than as one-op programs,
      ``reduced_steps`` of them reductions run there too.

    >>> import lazyarray as xp
    >>> xp.compile_cache_info().misses >= 0
    True
    """
    counts = _steps.COUNTS
    return CacheInfo(**PROGRAMS.info(), step_evaluations=counts.evaluations,
                     steps=counts.steps, fused_steps=_fusion.fused_count(),
                     reduced_steps=_fusion.reduced_count())


# --------------------------------------------------------------------------- programs

def held_value(x) -> Optional[np.ndarray]:
    """The numpy value an Array already holds (a data leaf, a computed array, a prepared
    program's result); None when it must be computed or converted (``_as_value``)."""
    v = x._node.value
    return v if type(v) is np.ndarray else None


def _as_value(x, label: str) -> np.ndarray:
    """A bound input's value as a C-contiguous numpy array."""
    if isinstance(x, Array):
        if x._node.op is Op.PLACEHOLDER:
            raise TypeError(f"{label}: a placeholder has no value; pass data to run a program")
        return materialize([x], f"binding {label}")[0]
    from ._creation import asarray
    return asarray(x)._node.value


class Program:
    """A recorded graph with ordered inputs: placeholders, then captured data leaves.

    >>> import lazyarray as xp
    >>> x = xp.placeholder((3,), name="x")
    >>> prog = xp.compile(xp.sum(xp.sin(x) * x**2), inputs=[x])
    >>> prog.ops
    ('sin', 'multiply', 'multiply', 'sum')
    """

    def __init__(self, outputs: ArrayOrArrays, inputs: Sequence[Array]) -> None:
        self._single = isinstance(outputs, Array)
        if not self._single and not isinstance(outputs, (list, tuple)):
            raise TypeError("compile(): outputs must be an Array or a non-empty list/tuple of "
                            f"Arrays, got {type(outputs).__name__}")
        outs = [outputs] if self._single else list(outputs)
        if not outs or not all(isinstance(o, Array) for o in outs):
            raise TypeError("compile(): outputs must be an Array or a non-empty list/tuple of Arrays")
        self._placeholders = _check_inputs(inputs)
        # A snapshot: evaluating an intermediate array later must not change this program.
        walked, values, keys, self._outputs, phs = keyed_walk([o._node for o in outs])
        self._nodes = nodes = snapshot_of(walked, values, keys[0])
        ph_ids = {id(p._node) for p in self._placeholders}
        missing = [n.arg or "<unnamed>" for n in phs if id(n) not in ph_ids]
        if missing:
            raise ValueError(f"compile(): the outputs depend on placeholder(s) "
                             f"{', '.join(map(repr, missing))} missing from inputs")
        captured = [n for n in nodes if n.is_buffer and n.op is not Op.PLACEHOLDER]
        self._leaves = [p._node for p in self._placeholders] + captured
        self.inputs = tuple(self._placeholders) + tuple(Array._new(n) for n in captured)
        self.ops = tuple(op_name(n) for n in nodes
                         if not n.is_buffer and n.op not in (Op.DATA, Op.SCALAR))
        self._key = keys[0]
        self._schedule = PROGRAMS.schedule(nodes, self._outputs, self._key)
        leaf_pos = {id(n): i for i, n in enumerate(self._leaves)}
        self._slot_leaf = [leaf_pos[id(nodes[j])] for j in self._schedule.buffers[:self._schedule.n_inputs]]
        self._scalars = runtime.pack_scalars(self._schedule, nodes)

    def input_index(self, leaf: Array) -> int:
        """Position of a placeholder or captured data leaf in ``inputs``."""
        for i, n in enumerate(self._leaves):
            if n is leaf._node:
                return i
        raise ValueError("input_index(): that array is not an input of this program")

    def prepare(self, *args, compile: bool = True) -> "Prepared":  # noqa: A002
        """Specialise to the shapes/dtypes of ``args`` and compile (cached).

        ``args``: a value or a placeholder (a shape/dtype spec) per placeholder,
        then optionally values for captured constants.  With ``compile=False`` the
        program starts on the interpreter and its kernels are compiled in the
        background once it runs again, as for implicit evaluation (``LAZYARRAY_TIER``
        can override both, see backend/tiers.py).
        """
        specs = self._check_args(args, allow_specs=True)
        shapes = tuple(s[0] for s in specs[:len(self._placeholders)])
        self._env(list(shapes))
        exe = PROGRAMS.executable(self._nodes, self._outputs, self._key)
        if compile:
            exe.program.compile(wait=True)
        prepared = Prepared(self, exe)
        prepared._runner(shapes)
        return prepared

    def __call__(self, *args):
        """``prepare`` (cached) and run; on dask arrays, the lazy dask array(s) computed
        blockwise by this program's kernels (``lazyarray.dask.to_dask``)."""
        if "dask.array" in sys.modules and _any_dask(args):
            from .dask import to_dask
            return to_dask(self, *args)
        return self.prepare(*args)(*args)

    def _check_args(self, args: tuple, allow_specs: bool) -> list:
        """(shape, value or None) per leaf input, checked against the program's leaves."""
        n_ph, n_all = len(self._placeholders), len(self._leaves)
        if not n_ph <= len(args) <= n_all:
            names = ", ".join(repr(p._node.arg) for p in self._placeholders)
            raise ValueError(f"expected {n_ph} input(s) for placeholders ({names}) and up to "
                             f"{n_all - n_ph} captured constant(s), got {len(args)}")
        out = []
        for i, leaf in enumerate(self._leaves):
            label = input_label(i, leaf.arg if leaf.op is Op.PLACEHOLDER else "captured constant")
            if i >= len(args):
                out.append((leaf.shape, leaf.value))
                continue
            a = args[i]
            if allow_specs and isinstance(a, Array) and a._node.op is Op.PLACEHOLDER:
                shape, dtype, value = a._node.shape, a.dtype, None
            else:
                value = _as_value(a, label)
                shape, dtype = value.shape, dt.from_numpy(value.dtype)
            if dtype is not leaf.dtype:
                raise ValueError(f"{label}: dtype mismatch: expected {leaf.dtype}, got {dtype}")
            if len(shape) != len(leaf.shape):
                raise ValueError(f"{label}: rank mismatch: expected shape {_fmt(leaf.shape)}, "
                                 f"got {_fmt(shape)}")
            if leaf.op is not Op.PLACEHOLDER and tuple(shape) != leaf.shape:
                raise ValueError(f"{label}: shape mismatch for a captured constant: expected "
                                 f"{_fmt(leaf.shape)}, got {_fmt(shape)}")
            out.append((tuple(shape), value))
        return out

    def _env(self, shapes: list) -> dict:
        """Sizes of the named dims, checking every placeholder's shape."""
        env: dict = {}
        where: dict = {}
        for i, p in enumerate(self._placeholders):
            label = input_label(i, p._node.arg)
            if len(shapes[i]) != len(p._node.shape):  # Prepared's fast path checks dtypes only
                raise ValueError(f"{label}: rank mismatch: expected shape {_fmt(p._node.shape)}, "
                                 f"got {_fmt(shapes[i])}")
            for ax, (want, got) in enumerate(zip(p._node.shape, shapes[i])):
                if isinstance(got, Dim):
                    raise ValueError(f"{label}: prepare() needs concrete sizes, got symbolic "
                                     f"{_fmt(shapes[i])}")
                if isinstance(want, int):
                    if want != got:
                        raise ValueError(f"{label}: binding shape mismatch for concrete-shape "
                                         f"placeholder: expected {_fmt(p._node.shape)}, "
                                         f"got {_fmt(shapes[i])}")
                    continue
                name = want.args[0]
                if name in env and env[name] != got:
                    raise ValueError(f"{label}: inconsistent sizes for symbolic dim {name!r}: "
                                     f"{got} here, {env[name]} from {where[name]}")
                env.setdefault(name, got)
                where.setdefault(name, label)
        return env

    def __repr__(self) -> str:
        return listing(self._nodes, self._placeholders, self._leaves, self._outputs)

    def lowered_ir(self) -> str:
        """The LLVM IR of this program's compiled kernels before optimisation (a module
        per kernel, each a unit of its own: see backend/tiers.py)."""
        return "\n".join(PROGRAMS.ir_modules(self._schedule))

    def optimized_ir(self) -> str:
        """The LLVM IR of its kernels after the optimisation pipeline."""
        from .backend.llvm import codegen
        gen = codegen()
        return "\n".join(str(gen.optimize(m)[0]) for m in PROGRAMS.ir_modules(self._schedule))

    def asm(self) -> str:
        """The native assembly of its kernels."""
        from .backend.llvm import codegen
        gen = codegen()
        return "\n".join(gen.asm(str(gen.optimize(m)[0]))
                         for m in PROGRAMS.ir_modules(self._schedule))

    def to_dot(self) -> str:
        """The graph as Graphviz DOT text, fused kernels as clusters (see ``lazyarray.to_dot``)."""
        from ._graphviz import to_dot
        return to_dot(self)


def _any_dask(args: tuple) -> bool:
    da = sys.modules["dask.array"]
    return any(isinstance(a, da.Array) for a in args)


def _fmt(shape) -> str:
    inner = ", ".join(map(repr, shape))
    return f"({inner},)" if len(shape) == 1 else f"({inner})"


def _check_inputs(inputs) -> list:
    if isinstance(inputs, Array):
        inputs = [inputs]
    inputs = list(inputs)
    seen = set()
    for i, p in enumerate(inputs):
        if not isinstance(p, Array) or p._node.op is not Op.PLACEHOLDER:
            raise TypeError(f"compile(): inputs[{i}] must be a placeholder "
                            f"(lazyarray.placeholder), got {type(p).__name__}")
        if id(p._node) in seen:
            raise ValueError(f"compile(): placeholder {p._node.arg!r} is listed twice in inputs")
        seen.add(id(p._node))
    return inputs


def _plain(flags) -> bool:
    """Laid out as kernels read it: C-contiguous and aligned."""
    return flags.c_contiguous and flags.aligned


class Prepared:
    """A program specialised to input shapes and compiled; call it with values."""

    def __init__(self, program: Program, exe) -> None:
        self.program = program
        self._program = exe.program  # keeps its program code alive
        self._runners: dict = {}
        n_ph = len(program._placeholders)
        self._n_ph = n_ph
        self._np_dtypes = tuple(p.dtype.np for p in program._placeholders)
        self._constants = tuple(leaf.value for leaf in program._leaves[n_ph:])
        slots = program._slot_leaf
        self._slots = None if slots == list(range(len(program._leaves))) else slots
        self._out_dtypes = [program._nodes[i].dtype for i in program._outputs]
        self._door = self._door_runner = self._last = None  # see _open_door

    def _runner(self, shapes: tuple) -> runtime.Runner:
        r = self._runners.get(shapes)
        if r is None:
            p = self.program
            env = p._env(list(shapes))
            try:
                bound = runtime.bind(p._schedule, p._nodes, env)
            except OverflowError:  # a symbolic size past int64, e.g. n * a huge repeat count
                raise ValueError(f"with sizes {env} an array of this program would be larger "
                                 "than the largest possible size (2**63 - 1)") from None
            r = runtime.Runner(self._program, p._schedule, bound, p._scalars)
            check_allocation(r.allocs, f"running this program with sizes {env}")
            if len(self._runners) >= 64:
                self._runners.clear()
            self._runners[shapes] = r
        return r

    def _values(self, args: tuple) -> tuple:
        """Values per leaf input; C-contiguous numpy arrays of the right dtype for the
        placeholders (and no constants) skip every conversion."""
        if len(args) == self._n_ph:
            for a, d in zip(args, self._np_dtypes):
                if type(a) is not np.ndarray or a.dtype != d or not _plain(a.flags):
                    break
            else:
                return args + self._constants
        if "dask.array" in sys.modules and _any_dask(args):
            return None  # computed blockwise on Dask instead (see __call__)
        return tuple(s[1] for s in self.program._check_args(args, allow_specs=False))

    def __call__(self, *args):
        """Run with values for the placeholders, then optionally for captured constants;
        on dask arrays, the lazy dask array(s) computed blockwise by this program's
        kernels, as ``Program.__call__``."""
        door = self._door
        if door is not None:
            out = door(*args)
            if out is not dispatch.FALLBACK:  # the outputs of the shapes the door was made for
                kinds = self._door_out or self._door_outputs(out)
                if self.program._single:
                    return _known_result(out, kinds[0])
                return tuple(map(_known_result, out, kinds))
        values = self._values(args)
        if values is None:
            from .dask import to_dask
            return to_dask(self.program, *args)
        n = self._n_ph
        shapes = (values[0].shape,) if n == 1 else tuple([v.shape for v in values[:n]])
        runner = self._runners.get(shapes) or self._runner(shapes)
        slots = self._slots
        outs = runner(values if slots is None else [values[k] for k in slots])
        if len(args) == n and runner is not self._door_runner:
            self._open_door(runner, shapes)
        if self.program._single:
            return _result(outs[0], self._out_dtypes[0])
        return tuple([_result(o, d) for o, d in zip(outs, self._out_dtypes)])

    def _open_door(self, runner, shapes: tuple) -> None:
        """Use the native front door of ``runner`` from its second run in a row on
        (a first run may be the only one: the trampoline is not compiled for it).
        ``shapes``: the placeholders' shapes ``runner`` was bound to."""
        if runner is not self._last:
            self._last = runner
            return
        n = self._n_ph
        sources = [k if k < n else self._constants[k - n] for k in self.program._slot_leaf]
        # a parameter the function ignores is still checked (dtype, shape), as the
        # Python path's runner key does: without it the door was not made at all and
        # every call took the Python path (a jitted a + 1 with a second parameter: 2.2 ->
        # 5.7 us)
        used = {k for k in self.program._slot_leaf if k < n}
        unused = {i: (self._np_dtypes[i], shapes[i]) for i in range(n) if i not in used}
        self._door_runner = runner
        self._door_out = None  # its outputs' dtypes and leaf ids, from its first run

        def opened(door) -> None:  # now, or once the trampoline is compiled
            self._door = door
        dispatch.front_door(runner, sources, n, on_open=opened, unused=unused,
                            several=not self.program._single)

    def _door_outputs(self, out) -> tuple:
        outs = (out,) if self.program._single else out
        self._door_out = tuple([(d, ir.leaf_id(_DATA, d, o.shape))
                                for o, d in zip(outs, self._out_dtypes)])
        return self._door_out


def _known_result(value: np.ndarray, kind: tuple) -> Array:
    """``_result(value, dtype)`` with its (dtype, leaf id) known."""
    a = _object_new(Array)
    a._node = Node(_DATA, kind[0], value.shape, (), None, value, (kind[1], (value,), NEVER))
    return a


def _result(value: np.ndarray, dtype) -> Array:
    """``data_leaf(value, dtype)``: a program's output (a front door's result)."""
    return _known_result(value, (dtype, ir.leaf_id(_DATA, dtype, value.shape)))


def compile(outputs: ArrayOrArrays, inputs: Sequence[Array] = ()) -> Program:  # noqa: A001
    """A Program computing ``outputs`` from the placeholders ``inputs``.

    Data leaves the outputs depend on are captured as further inputs, after
    the placeholders, in first-use order.
    """
    return Program(outputs, inputs)


def trace(f: Callable, *placeholders: Array) -> Program:
    """The Program of ``f`` called on ``placeholders`` (what ``jax.make_jaxpr`` shows)."""
    return Program(f(*map(_fresh_handle, placeholders)), list(placeholders))


def _fresh_handle(p):
    """A new Array on the same node: ``f`` may assign into its argument
    (``x[i] = v`` rebinds that handle), while the program's input must stay
    the placeholder."""
    return Array._new(p._node) if isinstance(p, Array) else p
