"""The backend reads as a small compiler in stages: its modules import one way down
(no import circles, counting imports inside functions too), and never the front end."""
import ast
from pathlib import Path

BACKEND = Path(__file__).resolve().parent.parent / "backend"


def _imports(path: Path) -> set:
    """Backend modules that ``path`` imports anywhere (module level or in a function)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            if node.module:
                found.add(node.module.split(".")[0])
            else:
                found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module \
                and node.module.startswith("lazyarray"):
            found.add(node.module)
        elif isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.startswith("lazyarray"))
    return found


def _graph() -> dict:
    mods = {p.stem: p for p in BACKEND.glob("*.py") if p.stem != "__init__"}
    return {m: _imports(p) for m, p in mods.items()}


def test_the_backend_never_imports_the_front_end():
    for mod, deps in _graph().items():
        front = {d for d in deps if d.startswith("lazyarray") and not d.startswith("lazyarray.backend")}
        assert not front, f"backend/{mod}.py imports {front}"


def test_backend_imports_have_no_cycle():
    graph = {m: {d for d in deps if d in _graph_names()} for m, deps in _graph().items()}
    state: dict = {}
    path: list = []

    def visit(m):
        state[m] = "open"
        path.append(m)
        for d in sorted(graph[m]):
            if state.get(d) == "open":
                cycle = path[path.index(d):] + [d]
                raise AssertionError("import cycle: " + " -> ".join(cycle))
            if d not in state:
                visit(d)
        path.pop()
        state[m] = "done"
    for m in sorted(graph):
        if m not in state:
            visit(m)


def _graph_names() -> set:
    return {p.stem for p in BACKEND.glob("*.py") if p.stem != "__init__"}


def test_every_source_of_generated_code_is_in_the_disk_caches_fingerprint():
    """An IR file or code generator left out of ``native._SOURCES`` would leave the disk
    cache serving code compiled from its old text (a new reduce.ll was not compiled)."""
    from lazyarray.backend import native, recorder, shipped
    ir_files = {Path(p).name for p in recorder.IR_FILES}
    # (sequencer.ll is generated from sequencer.py, which is fingerprinted)
    written = {p.name for p in BACKEND.glob("*.ll")} - {Path(shipped.SEQUENCER_FILE).name}
    assert ir_files == written
    assert written <= set(native._SOURCES) and "sequencer.py" in native._SOURCES


def test_every_ir_file_is_installed():
    """An installed copy (``pip install .``) needs every IR file the unit reads (reduce.ll
    was left out of the package data once: CI's installed copy could not build it)."""
    text = (BACKEND.parent / "pyproject.toml").read_text()
    line = next(x for x in text.splitlines() if x.startswith('"lazyarray.backend" ='))
    assert '"*.ll"' in line
