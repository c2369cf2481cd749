"""Sphinx configuration of the monostamp docs site (make docs; tools/docs/build.sh).

The source directory is a staging tree tools/docs/build.sh lays out under
the build directory: links to the checkout's README.md, CHANGELOG.md, docs/
and the files they link to, beside the generated API pages (api/*.md).  The
README is the front page; the other pages hang off it through toctrees added
here as each is read, so the Markdown files stay plain GitHub Markdown.
"""
import os
import re
import sys
from pathlib import Path

REPO = Path(os.environ["MONOSTAMP_DOCS_REPO"])
# The monostamp package autodoc imports: this tree's wheel, unpacked.
sys.path.insert(0, os.environ["MONOSTAMP_DOCS_SITE"])

project = "monostamp"
author = "the monostamp authors"
copyright = "the monostamp authors"
release = re.search(r'#define MONOSTAMP_VERSION "([^"]+)"',
                    (REPO / "csrc" / "monostamp.h").read_text()).group(1)
version = release

extensions = ["myst_parser", "sphinx.ext.autodoc"]
root_doc = "README"
source_suffix = {".md": "markdown"}
# Only the pages: the staging tree links whole folders (examples/, ...) so
# that the pages' links to their files resolve, and those hold .md files
# that are no page of the site.
include_patterns = ["README.md", "CHANGELOG.md", "docs/*.md", "api/*.md"]
exclude_patterns = []

# GitHub's anchors for headings, so that a link written for GitHub
# (file.md#a-heading) resolves here too; tools/docs/check-markdown.py uses
# the same slugs.
myst_heading_anchors = 6
myst_enable_extensions = []

# Every warning is an error (sphinx-build -W --keep-going), and every
# reference must resolve: a link to a page or heading that is gone, a table
# a parser could not read, a name autodoc could not find.
nitpicky = True
# The stdlib's and C's own names have no pages here (no network for
# intersphinx, and none needed): they are written out, not linked.
nitpick_ignore_regex = [
    (r"py:(class|obj|exc|data)", r"(typing|types|collections|datetime|uuid|os|zoneinfo"
                                 r"|contextlib|enum|sqlite3)\..*"),
    (r"py:(class|obj)", r"(int|float|str|bytes|bool|None|object|type|dict|list|tuple|range"
                        r"|Ellipsis|RuntimeError|ValueError|TypeError|callable|optional)"),
    (r"c:identifier", r"(u?int(8|16|32|64)_t|size_t|FILE|va_list|bool)"),
]

autodoc_member_order = "bysource"
autodoc_default_options = {"members": True, "undoc-members": True}
# The extension's docstrings open with their signature (PyDoc_STRVAR's
# manner): autodoc shows that, and not the first line twice.
autodoc_docstring_signature = True

# MONOSTAMP_API marks every exported function of the C header.
c_id_attributes = ["MONOSTAMP_API"]

html_theme = "alabaster"
html_title = "monostamp %s" % release
html_theme_options = {
    "description": "unique, monotonic wall-clock timestamps with the local UTC offset",
    "fixed_sidebar": True,
    "page_width": "1180px",
    "sidebar_width": "250px",
}
html_sidebars = {"**": ["about.html", "searchfield.html", "navigation.html", "relations.html"]}
html_show_sourcelink = False
html_copy_source = False
html_last_updated_fmt = None
pygments_style = "sphinx"


def page_links(text: str) -> list[str]:
    """The pages docs/README.md links to, in its order, as docnames."""
    names = []
    for target in re.findall(r"\]\(([A-Za-z0-9_.-]+)\.md(?:#[^)]*)?\)", text):
        if target != "README" and target not in names:
            names.append(target)
    return names


def add_toctrees(app, docname, source):
    """The site's navigation: the README (front page) leads to the docs'
    index, the API pages and the CHANGELOG; the docs' index to every page
    it lists, in its order.  A page in docs/ that the index does not list
    is in no toctree, which Sphinx reports (an error here): the index
    stays complete."""
    if docname == "README":
        entries = ["docs/README", "api/python", "api/lua", "api/c", "CHANGELOG"]
    elif docname == "docs/README":
        entries = page_links(source[0])
    else:
        return
    # Right under the page's title: the pages hang off the page itself in
    # the navigation, not off its last section.
    toctree = "\n```{toctree}\n:hidden:\n\n" + "\n".join(entries) + "\n```\n"
    title = re.search(r"^# .*\n", source[0], re.M)
    at = title.end() if title else 0
    source[0] = source[0][:at] + toctree + source[0][at:]


def unlink_folders(app, doctree):
    """A link to a folder of the checkout ([`examples/lua/`](examples/lua/))
    is a link on GitHub, which lists the folder, and nothing a static site
    can serve: here it is its text alone, the folder's path.  A link to a
    folder that does not exist stays, and fails the build."""
    from sphinx import addnodes

    base = Path(app.env.doc2path(app.env.docname)).parent
    for node in list(doctree.findall(addnodes.pending_xref)):
        target = node.get("reftarget", "")
        if node.get("reftype") == "myst" and target.endswith("/") and (base / target).is_dir():
            node.replace_self(node.children)


# A lexer's limit, not the page's: Pygments' nginx lexer stops at the Lua
# blocks inside an nginx.conf (docs/lua.md) and shows them unhighlighted.
suppress_warnings = ["misc.highlighting_failure"]


def setup(app):
    app.connect("source-read", add_toctrees)
    app.connect("doctree-read", unlink_folders)
