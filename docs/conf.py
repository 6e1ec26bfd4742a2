"""Sphinx configuration of the nc2600 documentation (``make docs`` -> build/docs/html, warnings
as errors). Pages are MyST Markdown; the API reference is autodoc from the docstrings; the
register map page is rendered from the code's register description by ``_ext/nc2600_docs.py``."""
from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent / "_ext"))

project = "nc2600"
author = "the nc2600 authors"
copyright = "the nc2600 authors, BSD-2-Clause"

extensions = ["myst_parser", "sphinx.ext.autodoc", "sphinx.ext.napoleon", "nc2600_docs"]
source_suffix = {".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build", "results/*", "lockstep/*"]

myst_enable_extensions = ["colon_fence", "deflist"]
myst_heading_anchors = 3          # `page.md#heading-slug` links, as GitHub makes them

autodoc_default_options = {"members": False, "show-inheritance": False}
autodoc_member_order = "bysource"
autodoc_typehints = "none"         # signatures as written; no resolution of every annotation
napoleon_google_docstring = True
napoleon_numpy_docstring = False

html_theme = "alabaster"
html_title = "nc2600"
html_static_path: list[str] = []
