"""Pictures of recorded graphs: Graphviz DOT text, and SVG/PNG through the
optional ``graphviz`` package.

``to_dot(prog)`` (or ``prog.to_dot()``) gives the DOT text of a Program;
``to_dot(y)`` does the same for lazy arrays before they are evaluated.  Each
fused kernel of the program's schedule is a cluster holding the ops it
computes; the op it stores (its root) has a bold border, and a view read by
several kernels (index arithmetic in each) is dashed, outside.  Leaves are drawn
by kind: placeholders (blue), captured constants (grey cylinders) and
runtime scalars (yellow ellipses).  Outputs have a double border.

``render(obj, format="svg")`` runs Graphviz on that text and returns the
picture's bytes (and writes them to ``path`` when given); it needs the
``graphviz`` Python package and Graphviz's ``dot`` program.
"""
from __future__ import annotations

from typing import Optional, Sequence, Union

from ._array_object import Array
from ._listing import _dtype, _names, _params, _typed, op_name
from ._program import Program
from .backend.ir import Op, toposort

FORMATS = ("svg", "png", "pdf")

_PLACEHOLDER = 'shape=box, style="rounded,filled", fillcolor="#cfe2ff"'
_CONSTANT = 'shape=cylinder, style=filled, fillcolor="#e2e3e5"'
_SCALAR = 'shape=ellipse, style=filled, fillcolor="#fff3cd", fontsize=9'
_OP = 'shape=box, style="rounded,filled", fillcolor=white'
_SHARED = 'shape=box, style="rounded,dashed"'
_EXTERNAL = 'shape=component, style=filled, fillcolor="#f8d7da"'
_CLUSTER = 'style="rounded,filled", fillcolor="#eef7ee", color="#5a9e5a"'


def to_dot(obj: Union[Program, Array, Sequence[Array]]) -> str:
    """The graph of a Program, or of lazy arrays, as Graphviz DOT text.

    >>> import lazyarray as xp
    >>> x = xp.placeholder((1000,), name="x")
    >>> dot = xp.to_dot(xp.sum(xp.sin(x) * x**2))
    >>> dot.splitlines()[0], dot.count("subgraph cluster_")
    ('digraph lazyarray {', 1)
    """
    return _Dot(_program(obj)).text()


def render(obj: Union[Program, Array, Sequence[Array]], format: str = "svg",  # noqa: A002
           path: Optional[str] = None) -> bytes:
    """The picture of ``to_dot(obj)`` in ``format`` ("svg", "png" or "pdf"), as bytes;
    also written to ``path`` when one is given.

    Needs the ``graphviz`` Python package (``pip install graphviz``) and the
    Graphviz ``dot`` program on PATH.
    """
    if format not in FORMATS:
        raise ValueError(f"render(): format must be one of {', '.join(FORMATS)}, got {format!r}")
    try:
        import graphviz
    except ImportError:
        raise ImportError("lazyarray.render() needs the 'graphviz' Python package "
                          "(pip install graphviz) and the Graphviz 'dot' program; "
                          "lazyarray.to_dot() gives the DOT text without them") from None
    data = graphviz.Source(to_dot(obj)).pipe(format=format)
    if path is not None:
        with open(path, "wb") as f:
            f.write(data)
    return data


def _program(obj) -> Program:
    """A Program for ``obj``: itself, or the arrays' graph with its placeholders as inputs."""
    if isinstance(obj, Program):
        return obj
    arrays = [obj] if isinstance(obj, Array) else obj
    if not isinstance(arrays, (list, tuple)) or not arrays \
            or not all(isinstance(a, Array) for a in arrays):
        raise TypeError("to_dot(): expected a Program, an Array or a non-empty list/tuple of "
                        f"Arrays, got {type(obj).__name__}")
    nodes = toposort([a._node for a in arrays])
    inputs = [Array._new(n) for n in nodes if n.op is Op.PLACEHOLDER]
    return Program(obj if isinstance(obj, Array) else list(obj), inputs)


def _q(s: str) -> str:
    """A DOT string literal."""
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def _is_leaf(n) -> bool:
    return n.is_buffer or n.op in (Op.DATA, Op.SCALAR)


class _Dot:
    """Builds the DOT text of one Program."""

    def __init__(self, prog: Program) -> None:
        self.nodes = prog._nodes
        self.sched = prog._schedule
        self.roots = sorted(self.sched.materialized - self.sched.unwritten)
        self.outputs = {o: k for k, o in reversed(list(enumerate(prog._outputs)))}
        self.names = self._name_nodes(prog)
        self.kernels = self._kernels_by_root()
        self.lead = self._leads()
        self.owner = self._owners()

    def _name_nodes(self, prog: Program) -> dict:
        """Listing names: placeholders by name, constants c0, c1, ..., ops a, b, ..."""
        names, n_ph = {}, len(prog._placeholders)
        for i, leaf in enumerate(prog._leaves):
            names[id(leaf)] = (leaf.arg or f"in{i}") if i < n_ph else f"c{i - n_ph}"
        gen = _names({leaf.arg for leaf in prog._leaves[:n_ph] if leaf.arg})
        for n in self.nodes:
            if id(n) not in names and not _is_leaf(n):
                names[id(n)] = next(gen)
        return names

    def _owners(self) -> dict:
        """Kernel root of each fused node: the one root whose kernel computes it.

        Walks down from every root through nodes that are neither leaves nor
        roots.  A node reached from several roots (a view of a buffer read by
        two kernels) belongs to no single cluster.
        """
        index = {id(n): i for i, n in enumerate(self.nodes)}
        roots = set(self.roots)
        reached: dict = {}
        for r in self.roots:
            stack, seen = [r], set()
            while stack:
                j = stack.pop()
                if j in seen:
                    continue
                seen.add(j)
                reached.setdefault(j, set()).add(self.lead[r])
                for s in self.nodes[j].srcs:
                    k = index[id(s)]
                    if k not in roots and not _is_leaf(s):
                        stack.append(k)
        self.shared = {j: len(rs) for j, rs in reached.items() if len(rs) > 1}
        return {j: next(iter(rs)) for j, rs in reached.items() if len(rs) == 1}

    def text(self) -> str:
        lines = ["digraph lazyarray {",
                 '  graph [fontname="Helvetica", fontsize=10, labeljust=l];',
                 '  node [fontname="Helvetica", fontsize=10];',
                 '  edge [fontname="Helvetica", fontsize=8, color="#555555"];']
        members: dict = {r: [] for r in self.roots}
        for i, n in enumerate(self.nodes):
            if i in self.owner and n.op is not Op.EXTERNAL:
                members[self.owner[i]].append(i)
            else:
                lines.append("  " + self._node(i))
        kernels, clusters = self.kernels, {}
        for r in self.roots:
            if self.nodes[r].op is not Op.EXTERNAL:
                clusters.setdefault(self.lead[r], []).append(r)
        for r, roots in clusters.items():
            nodes = [i for q in roots for i in members.get(q, ())]
            lines.append(f"  subgraph cluster_{r} {{")
            lines.append(f"    graph [{_CLUSTER}, label={_q(self._cluster_label(r, kernels[r]))}];")
            lines.extend("    " + self._node(i) for i in sorted(nodes))
            lines.append("  }")
        lines.extend("  " + e for e in self._edges())
        lines.append("}")
        return "\n".join(lines) + "\n"

    def _leads(self) -> dict:
        """Each root's cluster: the root a kernel writing several buffers stores last
        stands for the others it writes (one cluster); any other root for itself."""
        lead = {}
        for r in self.roots:
            ks = self.kernels[r]
            joined = len(ks) == 1 and ks[0][1].outs
            lead[r] = self.sched.buffers[ks[0][1].store.buf] if joined else r
        return lead

    def _kernels_by_root(self) -> dict:
        out: dict = {r: [] for r in self.roots}
        for k, kern in enumerate(self.sched.kernels):  # a kernel may write several roots
            for slot in [kern.store.buf] + [kern.loads[j].buf for _, j in kern.outs]:
                out[self.sched.buffers[slot]].append((k, kern))
        return out

    def _cluster_label(self, root: int, kernels: list) -> str:
        nums = [k for k, _ in kernels]
        head = (f"kernel {nums[0]}" if len(nums) == 1
                else f"kernels {nums[0]}-{nums[-1]} (one buffer)")
        kern = kernels[0][1]
        if kern.matmul:
            kind = "matmul loop nest"
        elif kern.scan:
            kind = "scan"
        elif kern.reduce is not None:
            kind = f"reduction over {kern.n_red} ax{'is' if kern.n_red == 1 else 'es'}"
        else:
            kind = f"elementwise, {kern.n_out}-d loop"
            if kern.outs:
                kind += f", writes {len(kern.outs) + 1} buffers"
        return f"{head}: {kind}"

    def _node(self, i: int) -> str:
        n = self.nodes[i]
        if n.op is Op.SCALAR:
            label, style = f"{n.value!r}\n{_dtype(n.dtype)} scalar", _SCALAR
        elif n.op is Op.PLACEHOLDER:
            label, style = f"{_typed(self.names[id(n)], n)}\nplaceholder", _PLACEHOLDER
        elif _is_leaf(n):
            label, style = f"{_typed(self.names[id(n)], n)}\ncaptured constant", _CONSTANT
        else:
            name = self.names[id(n)]
            shape = ",".join(map(str, n.shape))
            label = f"{name} = {op_name(n)}{_params(n)}\n{_dtype(n.dtype)}[{shape}]"
            style = _OP
            if n.op is Op.EXTERNAL:
                label, style = label + "\nnumpy call", _EXTERNAL
            elif i in self.shared:  # recomputed (a view: index arithmetic) in each reader
                label += f"\nin {self.shared[i]} kernels"
                style = _SHARED
            if i in self.sched.materialized and i not in self.sched.unwritten:
                style += ", penwidth=2"
        if i in self.outputs:
            label += f"\noutput {self.outputs[i]}"
            style += ", peripheries=2"
        return f"n{i} [{style}, label={_q(label)}];"

    def _edges(self) -> list:
        index = {id(n): i for i, n in enumerate(self.nodes)}
        edges = []
        for i, n in enumerate(self.nodes):
            if _is_leaf(n):
                continue
            many = len(n.srcs) > 1
            for pos, s in enumerate(n.srcs):
                attrs = f" [label={_q(str(pos))}]" if many else ""
                edges.append(f"n{index[id(s)]} -> n{i}{attrs};")
        return edges
