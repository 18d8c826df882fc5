"""Graphviz pictures: DOT text of programs and lazy arrays (kernels as clusters,
leaves by kind), and SVG/PNG rendering when graphviz and its ``dot`` are there."""
import re
import shutil
import subprocess
import sys

import numpy as np
import pytest

import lazyarray as xp

HAVE_DOT = shutil.which("dot") is not None
try:
    import graphviz  # noqa: F401
    HAVE_GRAPHVIZ = True
except ImportError:
    HAVE_GRAPHVIZ = False
needs_dot = pytest.mark.skipif(not HAVE_DOT, reason="Graphviz's dot program is not installed")
needs_render = pytest.mark.skipif(not (HAVE_DOT and HAVE_GRAPHVIZ),
                                  reason="needs the graphviz package and the dot program")

_NODE = re.compile(r'^\s*n(\d+) \[(.*)\];$')
_EDGE = re.compile(r'^\s*n(\d+) -> n(\d+)')
_LABEL = re.compile(r'label="((?:[^"\\]|\\.)*)"')


def parse(dot: str):
    """(nodes: id -> (attrs, label), cluster per node id (None outside), cluster labels, edges)."""
    nodes, cluster_of, clusters, edges = {}, {}, {}, []
    current = None
    for line in dot.splitlines():
        if line.strip().startswith("subgraph cluster_"):
            current = line.split()[1]
        elif line.strip() == "}" and current is not None:
            current = None
        elif current is not None and line.strip().startswith("graph ["):
            clusters[current] = _LABEL.search(line).group(1)
        elif m := _EDGE.match(line):
            edges.append((int(m.group(1)), int(m.group(2))))
        elif m := _NODE.match(line):
            label = _LABEL.search(m.group(2)).group(1)
            nodes[int(m.group(1))] = (m.group(2), label.replace("\\n", "\n"))
            cluster_of[int(m.group(1))] = current
    return nodes, cluster_of, clusters, edges


def find(nodes, text):
    """Ids of the nodes whose label contains ``text``."""
    return [i for i, (_, label) in nodes.items() if text in label]


def seed_program():
    x = xp.placeholder((1000,), xp.float64, name="x")
    return xp.compile(xp.sum(xp.sin(x) * x**2), inputs=[x])


def test_seed_program_is_one_cluster_of_four_ops():
    prog = seed_program()
    dot = prog.to_dot()
    assert dot == xp.to_dot(prog)
    assert dot.startswith("digraph lazyarray {") and dot.rstrip().endswith("}")
    nodes, cluster_of, clusters, edges = parse(dot)
    assert len(clusters) == 1 and "reduction over 1 axis" in next(iter(clusters.values()))
    ops = [label.split("\n")[0] for i, (_, label) in nodes.items() if cluster_of[i]]
    assert ops == ["a = sin", "b = multiply", "c = multiply", "d = sum[axes=(0,)]"]
    (x,) = find(nodes, "placeholder")
    assert cluster_of[x] is None and nodes[x][1].startswith("x:f64[1000]")
    assert "peripheries=2" in nodes[find(nodes, "sum")[0]][0]  # the output
    # x feeds sin and both operands of x*x; sin and x*x feed the product; that feeds sum
    assert sorted(edges) == [(0, 1), (0, 2), (0, 2), (1, 3), (2, 3), (3, 4)]


def test_leaves_by_kind():
    x = xp.placeholder(("n",), name="x")
    w = xp.full(1000, 2.0)
    nodes, cluster_of, _, _ = parse(xp.to_dot(xp.sum(xp.sin(x) * w + 1.5)))
    (ph,), (const,), (scalar,) = (find(nodes, "placeholder"), find(nodes, "captured constant"),
                                  find(nodes, "scalar"))
    assert "#cfe2ff" in nodes[ph][0] and nodes[ph][1].startswith("x:f64[n]")
    assert "cylinder" in nodes[const][0] and nodes[const][1].startswith("c0:f64[1000]")
    assert "ellipse" in nodes[scalar][0] and nodes[scalar][1].startswith("1.5\nf64")
    assert all(cluster_of[i] is None for i in (ph, const, scalar))


def test_lazy_array_rendered_before_evaluation_without_compiling():
    a = xp.asarray(np.arange(6.0).reshape(2, 3))
    y = xp.exp(a) - xp.mean(a, axis=1, keepdims=True)
    misses = xp.compile_cache_info().misses
    nodes, cluster_of, clusters, _ = parse(xp.to_dot(y))
    assert xp.compile_cache_info().misses == misses
    assert y._node.value is None and y.attached_value is None
    assert len(clusters) == 2  # the mean, then the fused exp - broadcast mean
    (mean,), (exp,), (sub,) = find(nodes, "mean"), find(nodes, "exp"), find(nodes, "subtract")
    assert cluster_of[exp] == cluster_of[sub] != cluster_of[mean]
    np.testing.assert_allclose(np.asarray(y), np.exp(a.attached_value)
                               - a.attached_value.mean(axis=1, keepdims=True))


def test_several_outputs_and_evaluated_arrays_as_constants():
    a = xp.asarray([1.0, 2.0, 3.0])
    b = xp.evaluate(a * 2)
    nodes, _, clusters, _ = parse(xp.to_dot([b + 1, xp.sum(b)]))
    assert len(find(nodes, "captured constant")) == 1
    assert find(nodes, "output 0") == find(nodes, "add")
    assert find(nodes, "output 1") == find(nodes, "sum")
    assert len(clusters) == 2


def test_multi_kernel_views_and_external_steps():
    x = xp.placeholder(("n",), name="x")
    m = xp.placeholder((3, "n"), name="m")
    t = m.T
    outs = [xp.sum(t, axis=0), xp.sum(xp.sin(t), axis=1), xp.concat([x, xp.sort(xp.exp(x)) * 2]),
            xp.matmul(m, x)]
    nodes, cluster_of, clusters, _ = parse(xp.to_dot(outs))
    (view,) = find(nodes, "permute_dims")
    assert cluster_of[view] is None and "in 2 kernels" in nodes[view][1]  # read by both sums
    (sort,) = find(nodes, "sort")
    assert cluster_of[sort] is None and "numpy call" in nodes[sort][1]
    labels = sorted(clusters.values())
    assert any("(one buffer)" in s for s in labels)  # concat: a kernel per part
    assert any("matmul" in s for s in labels)


def test_to_dot_rejects_other_objects():
    with pytest.raises(TypeError, match="expected a Program, an Array"):
        xp.to_dot(np.ones(3))
    with pytest.raises(TypeError, match="expected a Program, an Array"):
        xp.to_dot([])


def test_labels_are_escaped():
    x = xp.placeholder((2,), name='q"u\\o')
    dot = xp.to_dot(x + 1)
    assert 'label="q\\"u\\\\o:f64[2]' in dot


@needs_dot
def test_dot_accepts_the_text():
    x = xp.placeholder(("n",), name='we"ird\\')
    m = xp.placeholder((3, "n"), name="m")
    dot = xp.to_dot([xp.cumulative_sum(x), xp.matmul(m, xp.sort(x)), xp.sum(m.T * 1.5)])
    out = subprocess.run(["dot", "-Tsvg"], input=dot, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert "<svg" in out.stdout


@needs_render
def test_render_svg_and_png(tmp_path):
    prog = seed_program()
    svg = xp.render(prog)
    assert b"<svg" in svg and b"sin" in svg
    path = tmp_path / "seed.png"
    png = xp.render(prog, format="png", path=str(path))
    assert png.startswith(b"\x89PNG") and path.read_bytes() == png


def test_render_format_is_checked():
    with pytest.raises(ValueError, match="format must be one of svg, png, pdf, got 'gif'"):
        xp.render(seed_program(), format="gif")


def test_render_without_graphviz_package_says_what_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "graphviz", None)  # import graphviz -> ImportError
    with pytest.raises(ImportError, match="pip install graphviz"):
        xp.render(seed_program())
