"""The Verilog cache (nc2600.hwtools.verilog_cache): a cached entry is the generator's own output,
a second call does not run the generator, a change to any gateware source or argument is a new
key, and a damaged entry is generated again. Oracle: the generator itself (action select's
``generate()``, a small block) and hand-made source trees."""
import shutil

from nc2600.hw import action_select
from nc2600.hwtools import verilog_cache as vc


def _counting(calls):
    def generate(n_actions=18, acc_bits=24):
        calls.append((n_actions, acc_bits))
        return action_select.generate()
    generate.__module__ = "nc2600.hw.action_select"   # the key names the generator by module and name
    return generate


def test_entry_is_the_generators_output_and_is_reused(tmp_path, monkeypatch):
    monkeypatch.setenv("NC2600_CACHE", str(tmp_path))
    calls = []
    gen = _counting(calls)
    first = vc.cached_generate(gen, 18, acc_bits=24)
    assert first == action_select.generate() and calls == [(18, 24)]
    assert vc.cached_generate(gen, 18, acc_bits=24) == first and calls == [(18, 24)]
    vc.cached_generate(gen, 6, acc_bits=24)                           # another argument: generated
    assert calls == [(18, 24), (6, 24)]
    entries = sorted((tmp_path / "verilog").glob("action_select-*.json"))
    assert len(entries) == 2 and not list((tmp_path / "verilog").glob("*.tmp"))
    for e in entries:                                                 # damaged entries: generated again
        e.write_text("{not json")
    assert vc.cached_generate(gen, 18, acc_bits=24) == first and calls[-1] == (18, 24) and len(calls) == 3


def test_any_source_change_is_a_new_key(tmp_path, monkeypatch):
    root = tmp_path / "pkg"
    for pkg in vc.SOURCE_PACKAGES:
        (root / pkg / "sub").mkdir(parents=True)
        (root / pkg / "a.py").write_text("A = 1\n")
        (root / pkg / "sub" / "table.json").write_text("[1, 2]\n")
    monkeypatch.setattr(vc, "PACKAGE_ROOT", root)

    def digest():
        vc.sources_digest.cache_clear()
        return vc.sources_digest()
    try:
        base = digest()
        (root / "hw" / "__pycache__").mkdir()
        (root / "hw" / "__pycache__" / "a.pyc").write_bytes(b"\0")          # byte code: not a source
        assert digest() == base
        (root / "hls_models" / "sub" / "table.json").write_text("[1, 3]\n")   # a data file of the models
        changed = digest()
        assert changed != base
        (root / "hls_models" / "sub" / "table.json").write_text("[1, 2]\n")
        assert digest() == base
        shutil.move(root / "hw" / "a.py", root / "hw" / "b.py")               # a renamed file
        assert digest() not in (base, changed)
    finally:
        vc.sources_digest.cache_clear()
