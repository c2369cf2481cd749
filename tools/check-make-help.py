"""tools/check-make-help.py: make test-help.

Holds three lists of the Makefile's targets to each other:
  - `make help`'s (tools/make-help.awk, from the targets' `## ` comments),
  - the README's table of targets (its "## Make targets" section): the same
    targets, in the same order, under the same group headings, with the
    same text (backticks aside, which the README may add),
  - .PHONY: every name in it a target the Makefile defines (a rule line of
    its own), and the same set as make help's, so that every target that
    is not a file is both phony and listed.
Prints what differs and exits 1, or one line and 0.
"""
import difflib
import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
HELP_ENTRY = re.compile(r"^  make (\S*)\s+(.*)$")
README_ENTRY = re.compile(r"^\| `make( [^`]*)?` \| (.*) \|$")
README_HEADING = re.compile(r"^\| \*\*(.*)\*\* \| \|$")
RULE = re.compile(r"^([a-z][a-z0-9.-]*):(?!=)")


def help_items() -> list[str]:
    """make help's entries ("make NAME: TEXT") and group headings, in order."""
    run = subprocess.run(["make", "--no-print-directory", "-s", "help"],
                         cwd=REPO, capture_output=True, text=True)
    if run.returncode != 0:
        sys.exit("make help failed:\n" + run.stdout + run.stderr)
    items = []
    for line in run.stdout.splitlines()[1:]:  # the first is its title
        entry = HELP_ENTRY.match(line)
        if entry:
            items.append("make %s: %s" % (entry.group(1) or "all", entry.group(2)))
        elif line.strip():
            items.append(line)
    return items


def readme_items() -> list[str]:
    """The README's table of targets, as help_items() gives make help's."""
    text = (REPO / "README.md").read_text(encoding="utf-8")
    start = text.find("\n## Make targets\n")
    if start < 0:
        sys.exit("README.md has no '## Make targets' section")
    section = text[start + 1:].split("\n## ", 1)[0]
    items = []
    for line in section.splitlines():
        entry, heading = README_ENTRY.match(line), README_HEADING.match(line)
        if entry:
            name = (entry.group(1) or " all").strip()
            items.append("make %s: %s" % (name, entry.group(2).replace("`", "")))
        elif heading:
            items.append(heading.group(1).replace("`", ""))
    return items


def makefile_targets() -> tuple[set[str], set[str]]:
    """The names in .PHONY, and the targets with a rule line of their own."""
    lines = (REPO / "Makefile").read_text().replace("\\\n", " ").splitlines()
    phony, defined = set(), set()
    for line in lines:
        if line.startswith(".PHONY:"):
            phony.update(line.split(":", 1)[1].split())
        rule = RULE.match(line)
        if rule:
            defined.add(rule.group(1))
    return phony, defined


def main() -> int:
    failures = []
    in_help, in_readme = help_items(), readme_items()
    if in_help != in_readme:
        failures.append("README.md's table of targets is not make help's list (- make help,"
                        " + README):\n" + "\n".join(difflib.unified_diff(
                            in_help, in_readme, "make help", "README.md", lineterm="", n=1)))
    helped = {item.split(":", 1)[0][len("make "):] for item in in_help
              if item.startswith("make ")}
    phony, defined = makefile_targets()
    if phony - defined:
        failures.append(".PHONY names what the Makefile does not define: %s"
                        % " ".join(sorted(phony - defined)))
    if phony != helped:
        failures.append(".PHONY and make help differ: only in .PHONY: %s; only in make help: %s"
                        % (" ".join(sorted(phony - helped)) or "-",
                           " ".join(sorted(helped - phony)) or "-"))
    for failure in failures:
        print("FAIL: " + failure)
    if failures:
        return 1
    print("make help: %d targets, each phony and defined; README.md's table the same list"
          % len(helped))
    return 0


if __name__ == "__main__":
    sys.exit(main())
