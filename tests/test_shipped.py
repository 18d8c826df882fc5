"""The sequencer's IR shipped with the package (backend/shipped.py)."""
from lazyarray.backend import sequencer, shipped


def test_the_shipped_sequencer_ir_is_current():
    with open(shipped.SEQUENCER_FILE, encoding="utf-8") as f:
        head, _, body = f.read().partition("\n")
    assert head.endswith(shipped.sources_hash()), \
        "backend/sequencer.ll is stale: run `python -m backend.shipped` in the checkout"
    assert body == sequencer.unit_ir()
    assert shipped.sequencer_ir() == body


def test_a_stale_or_missing_file_is_built_instead(tmp_path, monkeypatch):
    built = sequencer.unit_ir()
    stale = tmp_path / "sequencer.ll"
    stale.write_text("; lazyarray sequencer, sources 0123\nnot IR at all\n")
    monkeypatch.setattr(shipped, "SEQUENCER_FILE", str(stale))
    assert shipped.sequencer_ir() == built
    monkeypatch.setattr(shipped, "SEQUENCER_FILE", str(tmp_path / "missing.ll"))
    assert shipped.sequencer_ir() == built


def test_the_quick_sequencer_unit_is_built_from_the_shipped_text():
    from lazyarray.backend import library
    assert library.sequencer_unit().builder == ("shipped", "sequencer_ir", ())
