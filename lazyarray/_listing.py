"""A readable listing of a Program, in the spirit of ``jax.make_jaxpr``::

    { lambda x:f64[1000] ; w:f64[1000] . let
        a:f64[1000] = sin x
        b:f64[1000] = multiply a w
        c:f64[] = sum[axes=(0,)] b
      in (c,) }

Placeholders come before the ``;``, captured constants after it.
"""
from __future__ import annotations

import itertools

from .backend.ir import REDUCE, Op


def op_name(n) -> str:
    """An op's name in listings: external functions by their own name."""
    return repr(n.arg) if n.op is Op.EXTERNAL else n.op.value

_SHORT = {"bool": "bool", "float32": "f32", "float64": "f64", "complex64": "c64",
          "complex128": "c128"}


def _dtype(d) -> str:
    return _SHORT.get(d.name) or d.name.replace("uint", "u").replace("int", "i")


def _typed(name: str, n) -> str:
    return f"{name}:{_dtype(n.dtype)}[{','.join(map(str, n.shape))}]"


def _names(taken: set):
    for k in itertools.count(1):
        for letters in itertools.product("abcdefghijklmnopqrstuvwxyz", repeat=k):
            s = "".join(letters)
            if s not in taken:
                yield s


def _params(n) -> str:
    if n.op in REDUCE:
        axes, keep = n.arg
        return f"[axes={axes}{', keepdims=True' if keep else ''}]"
    if n.op is Op.ASTYPE:
        return f"[dtype={_dtype(n.dtype)}]"
    if n.op in (Op.PERMUTE_DIMS, Op.EXPAND_DIMS, Op.SQUEEZE):
        return f"[axes={n.arg}]"
    if n.op in (Op.RESHAPE, Op.BROADCAST_TO):
        return f"[shape=({','.join(map(str, n.shape))})]"
    if n.op is Op.SLICE:
        parts = [str(it[1]) if it[0] == "i" else
                 ":".join("" if v is None else str(v) for v in it[1:3])
                 + ("" if it[3] == 1 else f":{it[3]}") for it in n.arg]
        return f"[{', '.join(parts)}]"
    return ""


def listing(nodes, placeholders, leaves, outputs) -> str:
    """The text of a program's graph: inputs with dtype[shape], one line per op, outputs."""
    names = {}
    taken = {p._node.arg for p in placeholders if p._node.arg}
    gen = _names(taken)
    for i, p in enumerate(placeholders):
        names[id(p._node)] = p._node.arg or f"in{i}"
    for k, leaf in enumerate(leaves[len(placeholders):]):
        names[id(leaf)] = f"c{k}"
    lines = []
    for n in nodes:
        if id(n) in names:
            continue
        if n.op is Op.SCALAR:
            names[id(n)] = f"{n.value!r}:{_dtype(n.dtype)}"
            continue
        name = next(gen)
        names[id(n)] = name
        args = " ".join(names[id(s)] for s in n.srcs)
        lines.append(f"    {_typed(name, n)} = {op_name(n)}{_params(n)} {args}")
    ins = " ".join(_typed(names[id(p._node)], p._node) for p in placeholders)
    consts = " ".join(_typed(names[id(c)], c) for c in leaves[len(placeholders):])
    head = "{ lambda " + ins + (" ; " + consts if consts else "") + ". let"
    outs = ", ".join(names[id(nodes[o])] for o in outputs)
    return "\n".join([head] + lines + [f"  in ({outs},) }}"])
