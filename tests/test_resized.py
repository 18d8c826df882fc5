"""Structures met again at other sizes give numpy's results in every tier (the graphs of
tests/resized.py; its script runs thousands)."""
import warnings

import pytest

import lazyarray as xp
from resized import check_graph


@pytest.mark.parametrize("tier", ["auto", "interpret", "compile"])
def test_structures_at_other_sizes(monkeypatch, tier):
    monkeypatch.setenv("LAZYARRAY_TIER", tier)
    warnings.simplefilter("ignore")
    graphs = 150 if tier == "auto" else 60
    problems = [p for i in range(graphs) for p in check_graph(7, i, xp)]
    assert not problems, "\n".join(problems[:5])
