"""No history in the product's text: README.md, docs/ and every Python file state contracts, not
how they came to be. Issue numbers and commit hashes appear only in the results records'
provenance (docs/results/, the page generated from them, the lockstep sweeps' files).

Oracle: the text itself, scanned line by line; ALLOW lists the legitimate uses (an md5 is 32 hex
digits and is not matched; words such as ``deadbeef`` with no digit are not hashes)."""
from __future__ import annotations

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

ISSUE = re.compile(r"\bissues?\s*#?\d+", re.IGNORECASE)
#: a word of 7-12 or 40 hex digits with at least one digit and one letter, not part of a longer
#: word or of a build key such as ``console-25abddf0572813a9``
HASH = re.compile(r"(?<![\w-])(?=[0-9a-f]*[0-9])(?=[0-9a-f]*[a-f])(?:[0-9a-f]{7,12}|[0-9a-f]{40})(?![\w-])")
#: the only places provenance may name revisions: the results records and what is made of them
EXEMPT = ("docs/results/", "docs/results.md", "docs/lockstep/")
#: (file, text) pairs that match a pattern legitimately
ALLOW: set[tuple[str, str]] = set()


def _files() -> list[str]:
    listed = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                            capture_output=True, text=True, check=True).stdout.split()
    return sorted(f for f in listed if (f.endswith(".py") or f == "README.md" or f.startswith("docs/"))
                  and not f.startswith(EXEMPT) and (ROOT / f).is_file())


def test_scan_finds_what_it_should():
    """The patterns catch an issue number and a short hash, and leave an md5 and a build key alone."""
    assert ISSUE.search("the depth of iss" "ue 16") and ISSUE.search("Iss" "ue #4")
    assert HASH.search("measured on main 4fe1" "64f today") and HASH.search("on c0e3" "3fa.")
    assert not HASH.search("md5 f1ec5b7a1e3f0dbbe7ee8d2f2e1f2f95") and not HASH.search("console-25abddf0572813a9")
    assert not HASH.search("0x4e433236 1234567 abcdefa")


def test_no_issue_numbers_or_commit_hashes_in_the_product_text():
    found = []
    for f in _files():
        for i, line in enumerate((ROOT / f).read_text(encoding="utf-8", errors="replace").splitlines(), 1):
            for m in (*ISSUE.finditer(line), *HASH.finditer(line)):
                if (f, m.group(0)) not in ALLOW:
                    found.append(f"{f}:{i}: {m.group(0)!r}: {line.strip()[:100]}")
    assert not found, "history in the product's text (state the contract instead):\n" + "\n".join(found)
