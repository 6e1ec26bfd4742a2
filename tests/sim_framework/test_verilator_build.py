"""nc2600.hwtools.verilator_build.build_shared_lib: one build per cache key when several callers ask at
once (pytest -n 2 workers, lockstep --jobs): the others wait for it and load the same library.

Oracle: stand-ins for the Verilator and C++ compiler runs (each records its call and takes
0.2 s; the link writes the library file) and three threads asking at the same moment, two for
one key and one for another.
"""
import threading

from nc2600.hwtools import verilator_build as vb


def test_simultaneous_requests_for_one_key_build_it_once(tmp_path, monkeypatch):
    monkeypatch.setenv("NC2600_CACHE", str(tmp_path))
    calls = []

    def slow_run(cmd, env, cwd, quiet):
        calls.append((cmd[0].rsplit("/", 1)[-1], cmd[-1]))
        threading.Event().wait(0.2)           # a build in progress while the other caller asks
        if "-shared" in cmd:
            (cwd / cmd[-1]).write_bytes(b"built once")
    monkeypatch.setattr(vb, "_run", slow_run)
    results, start = {}, threading.Barrier(3)

    def ask(tag, name):
        start.wait()
        results[tag] = vb.build_shared_lib(name, "module m; endmodule\n", "m", "// harness\n")
    threads = [threading.Thread(target=ask, args=args) for args in (("a", "same"), ("b", "same"), ("c", "other"))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)
    assert sorted(c[1] for c in calls) == ["libother.so", "libsame.so", "m.v", "m.v"]
    assert results["a"] == results["b"] != results["c"]
    assert results["a"].read_bytes() == b"built once" and results["a"].parent.parent == tmp_path / "verilator"
