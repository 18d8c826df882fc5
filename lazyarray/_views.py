"""Basic-index views write through, as numpy's do.

``v = a[0, :, :]`` (ints, slices, ``...``, ``None``) and ``permute_dims(a, axes)`` (``a.T``,
``a.mT``) are *views*: ``v[i] = w``, a mask or
index-array assignment into ``v`` and ``v += w`` also change ``a`` (and the base of ``a``
when ``a`` is itself such a view), and a write into ``a`` changes every live view of it.
Consumers rely on this: scikit-learn's GaussianMixture adds its regularisation to the
diagonal of ``covariances[k, :, :]`` through such a view.

Arrays still never share memory: every write rebinds the arrays involved to new graph
nodes. A view remembers its base array and its index (``_view_of``); a base keeps weak
references to its views (``_views``). A write goes up to the root base (each base is
rebound to its old node with the view's region replaced) and then down again (each live
view is rebound to the slice of its new base), so views and bases always agree.
Integer-array and boolean-mask indexing, like numpy's, make copies, not views.
"""
from __future__ import annotations

import weakref

from ._array_object import Array
from .backend.ir import Node

# Slot descriptors read directly: an unset slot raises AttributeError without going
# through Array.__getattr__ (which builds an error message).
_VIEW_OF = Array._view_of
_VIEWS = Array._views


def _get(slot, x: Array):
    try:
        return slot.__get__(x, Array)
    except AttributeError:
        return None


def track(base: Array, key, view: Array) -> Array:
    """Record that ``view`` is ``base[key]`` (a basic index) and return it."""
    return _link(base, ("index", key), view)


def track_permuted(base: Array, axes: tuple, view: Array) -> Array:
    """Record that ``view`` is ``permute_dims(base, axes)`` (``.T``, ``mT`` and swapped
    axes too: numpy's transposes are views, and scipy.signal's overlap-add adds into one)
    and return it."""
    return _link(base, ("permute", axes), view)


def _link(base: Array, how: tuple, view: Array) -> Array:
    view._view_of = (base, how)
    views = _get(_VIEWS, base)
    if views is None:
        base._views = [weakref.ref(view)]
        return view
    views.append(weakref.ref(view))
    if len(views) >= 16 and len(views) & (len(views) - 1) == 0:
        # Views taken in a loop die young: drop the dead ones at each power of two, so
        # the list stays within twice the live views.
        views[:] = [r for r in views if r() is not None]
    return view


def rebind(x: Array, node: Node) -> None:
    """Make ``x`` the array of ``node`` after a write into it, and carry the write to
    the bases ``x`` is a view of and to every live view of them."""
    x._node = node
    root = x
    while (link := _get(_VIEW_OF, root)) is not None:
        base, key = link
        base._node = _region_replaced(base, key, root)
        root = base
    _refresh(root)


def _region_replaced(base: Array, how: tuple, view: Array) -> Node:
    """The node of ``base`` with the part ``view`` shows of it replaced by ``view``."""
    kind, arg = how
    if kind == "index":
        from ._indexing import basic_update
        return basic_update(base, arg, view)
    from ._manipulation import permute_dims
    inverse = tuple(sorted(range(len(arg)), key=arg.__getitem__))
    return permute_dims(view, inverse)._node


def _view_node(base: Array, how: tuple) -> Node:
    """The node of the view ``how`` of ``base`` now."""
    kind, arg = how
    if kind == "index":
        from ._indexing import basic_view_node
        return basic_view_node(base, arg)
    from .backend.ir import Op
    node = base._node
    return Node(Op.PERMUTE_DIMS, node.dtype, tuple(node.shape[a] for a in arg), (node,), arg)


def _refresh(base: Array) -> None:
    """Rebind every live view of ``base`` (and theirs) to its slice of ``base``."""
    views = _get(_VIEWS, base)
    if not views:
        return
    alive = []
    for ref in views:
        v = ref()
        if v is None:
            continue
        alive.append(ref)
        v._node = _view_node(base, _VIEW_OF.__get__(v, Array)[1])
        _refresh(v)
    views[:] = alive
