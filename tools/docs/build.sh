#!/bin/sh
# Usage: tools/docs/build.sh BUILD PYTHON LUA SITE
#
# make docs: the static site in BUILD/docs/html.  Installs the pinned
# generator (tools/docs/requirements.txt) into a venv of its own,
# BUILD/docs/venv, remade when the pins change; lays out the source tree in
# BUILD/docs/src (copies of README.md, CHANGELOG.md, docs/ and what they link
# to, beside the API pages tools/docs/gen_*.py write from the code: SITE is
# this tree's wheel unpacked, BUILD/lua the Lua module); builds it with every
# warning an error and every reference checked (sphinx-build -W --keep-going
# -n); then loads it in headless Chromium (tools/docs/browser_check.py).
set -eu
build=$1 python=$2 lua=$3 site=$4
repo=$(cd "$(dirname "$0")/../.." && pwd)
docs=$(cd "$build" && pwd)/docs
venv=$docs/venv
mkdir -p "$docs"

if ! cmp -s "$repo/tools/docs/requirements.txt" "$venv/requirements.txt"; then
    echo "docs: installing the pinned generator into $venv"
    rm -rf "$venv"
    "$python" -m venv "$venv"
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-deps \
        -r "$repo/tools/docs/requirements.txt"
    cp "$repo/tools/docs/requirements.txt" "$venv/requirements.txt"
fi

src=$docs/src
rm -rf "$src"
mkdir -p "$src/api"
# Copies, not links: MyST resolves a page's links from its real path.
for entry in README.md CHANGELOG.md LICENSE docs examples; do
    cp -R "$repo/$entry" "$src/$entry"
done
"$venv/bin/python" "$repo/tools/docs/gen_python_api.py" "$site" "$src/api/python.md"
"$python" "$repo/tools/docs/gen_lua_api.py" "$lua" "$(cd "$build" && pwd)/lua" "$src/api/lua.md"
"$python" "$repo/tools/docs/gen_c_api.py" "$src/api/c.md"

rm -rf "$docs/html" "$docs/doctrees"
MONOSTAMP_DOCS_REPO=$repo MONOSTAMP_DOCS_SITE=$site \
    "$venv/bin/python" -m sphinx -W --keep-going -n -q -b html -c "$repo/tools/docs" \
    -d "$docs/doctrees" "$src" "$docs/html"
cp "$docs/html/README.html" "$docs/html/index.html"  # the front page where a browser looks first
echo "docs: $docs/html/index.html"
"$python" "$repo/tools/docs/browser_check.py" --self-test "$docs/html" "$build/docs-screenshots"
