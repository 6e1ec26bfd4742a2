"""No history in the product's text: README.md, docs/ and every Python file state contracts, not
how they came to be. Issue numbers, commit hashes and dates appear only in the results records'
provenance (docs/results/, the page generated from them, the lockstep sweeps' files); a
measurement is a record, not a ``measured: ...`` log in a comment; a repository path named in a
comment, a docstring or a page exists.

Oracle: the text itself, scanned line by line; ALLOW lists the legitimate uses (an md5 is 32 hex
digits and is not matched; words such as ``deadbeef`` with no digit are not hashes)."""
from __future__ import annotations

import ast
import io
import re
import subprocess
import tokenize
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

ISSUE = re.compile(r"\bissues?\s*#?\d+", re.IGNORECASE)
#: a word of 7-12 or 40 hex digits with at least one digit and one letter, not part of a longer
#: word or of a build key such as ``console-25abddf0572813a9``
HASH = re.compile(r"(?<![\w-])(?=[0-9a-f]*[0-9])(?=[0-9a-f]*[a-f])(?:[0-9a-f]{7,12}|[0-9a-f]{40})(?![\w-])")
#: an ISO date (``YYYY-MM-DD``) or year and month (``YYYY-MM``)
DATE = re.compile(r"(?<![\w-])(?:19|20)\d\d-(?:0[1-9]|1[0-2])(?:-(?:0[1-9]|[12]\d|3[01]))?(?![\w-])")
#: a measurement log in prose (the word, a colon and a log), not a figure's label quoted in
#: double backticks (``measured: nextpnr-nexus place and route ...``)
MEASURED_LOG = re.compile(r"(?<!``)\bmeasured(?::\s| (?:on )?(?:19|20)\d\d-)", re.IGNORECASE)
#: a file or folder of the repository: a top-level folder, then a name with an extension or a
#: trailing ``/``; placeholders (an upper-case part such as ``AREA``, ``*``, ``{}``, ``<>``) are not paths
REPO_PATH = re.compile(r"(?<![\w./-])((?:hw|hls_models|hwtools|host|mesh_sim|tests|rtl|docs|shared)/(?:[\w.-]+/)*"
                       r"(?:[\w-]+\.[A-Za-z]\w*|))(?![\w*{<])")
#: the only places provenance may name revisions: the results records and what is made of them
EXEMPT = ("docs/results/", "docs/results.md", "docs/lockstep/")
#: (file, text) pairs that match a pattern legitimately
ALLOW: set[tuple[str, str]] = set()


def _files() -> list[str]:
    listed = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                            capture_output=True, text=True, check=True).stdout.split()
    return sorted(f for f in listed if (f.endswith(".py") or f == "README.md" or f.startswith("docs/"))
                  and not f.startswith(EXEMPT) and (ROOT / f).is_file())


def prose_lines(path: Path) -> list[tuple[int, str]]:
    """``(line number, text)`` of the prose of a file: every line of a page; the comments and the
    docstrings (module, class, function) of a Python file (its code and other strings are not prose:
    a test may build a record with a date, a path under a temporary folder)."""
    text = path.read_text(encoding="utf-8", errors="replace")
    if path.suffix != ".py":
        return list(enumerate(text.splitlines(), 1))
    out = [(tok.start[0], tok.string) for tok in tokenize.generate_tokens(io.StringIO(text).readline)
           if tok.type == tokenize.COMMENT]
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value,
                                                                                                    str):
                out += [(first.lineno + k, line) for k, line in enumerate(first.value.value.splitlines())]
    return sorted(out)


def missing_paths(line: str, root: Path = ROOT) -> list[str]:
    """The repository paths named in ``line`` that do not exist under ``root``."""
    out = []
    for m in REPO_PATH.finditer(line):
        path = m.group(1)
        if any(part.isupper() for part in re.split(r"[/._-]", path)) or (root / path).exists():
            continue
        out.append(path)
    return out


def test_scan_finds_what_it_should():
    """The patterns catch an issue number and a short hash, and leave an md5 and a build key alone."""
    assert ISSUE.search("the depth of iss" "ue 16") and ISSUE.search("Iss" "ue #4")
    assert HASH.search("measured on main 4fe1" "64f today") and HASH.search("on c0e3" "3fa.")
    assert not HASH.search("md5 f1ec5b7a1e3f0dbbe7ee8d2f2e1f2f95") and not HASH.search("console-25abddf0572813a9")
    assert not HASH.search("0x4e433236 1234567 abcdefa")
    assert DATE.search("measured 20" "26-12-03)") and DATE.search("(checked 20" "26-12).")
    assert not DATE.search("arXiv 2005.04536") and not DATE.search("2026-12-03T17:53:15Z"[:4] + " 12")
    assert MEASURED_LOG.search("(measured: 4 of 144 SIGTERMs)") and MEASURED_LOG.search("Measured: 27,000 nodes")
    assert not MEASURED_LOG.search("``measured: nextpnr-nexus place and route``") and not MEASURED_LOG.search(
        "the Fmax measured by place and route")
    assert missing_paths("see ``hw/console.py`` and rtl/console_cc3.v, host/cluster/") == []
    assert missing_paths("cites ``hw/no_such_block.py`` and docs/nowhere.md.") == ["hw/no_such_block.py",
                                                                                   "docs/nowhere.md"]
    assert missing_paths("(``shared/reference/notes.md``)") == ["shared/reference/notes.md"]    # outside the repository
    assert missing_paths("--record docs/results/AREA.jsonl, hw/*.py, rtl/{name}.v") == []


def test_no_dates_or_measurement_logs_in_the_product_prose():
    """A date or a ``measured: ...`` log in a comment, a docstring, README.md or a guide is history:
    the figure belongs in the results record, with its provenance."""
    found = [f"{f}:{i}: {m.group(0)!r}: {line.strip()[:100]}" for f in _files() for i, line in prose_lines(ROOT / f)
             for m in (*DATE.finditer(line), *MEASURED_LOG.finditer(line))]
    assert not found, "dates or measurement logs in the product's prose:\n" + "\n".join(found)


def test_every_repository_path_named_in_the_prose_exists():
    """A path named in a comment, a docstring, README.md or a guide (``hw/cpu6507.py``) is a file or
    folder of the repository (a renamed or removed file leaves no stale reference)."""
    found = [f"{f}:{i}: {p}" for f in _files() for i, line in prose_lines(ROOT / f) for p in missing_paths(line)]
    assert not found, "paths that are not in the repository:\n" + "\n".join(found)


def test_no_issue_numbers_or_commit_hashes_in_the_product_text():
    found = []
    for f in _files():
        for i, line in enumerate((ROOT / f).read_text(encoding="utf-8", errors="replace").splitlines(), 1):
            for m in (*ISSUE.finditer(line), *HASH.finditer(line)):
                if (f, m.group(0)) not in ALLOW:
                    found.append(f"{f}:{i}: {m.group(0)!r}: {line.strip()[:100]}")
    assert not found, "history in the product's text (state the contract instead):\n" + "\n".join(found)
