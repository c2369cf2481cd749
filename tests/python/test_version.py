"""The version is defined once, as MONOSTAMP_VERSION in csrc/monostamp.h:
the extension reports it, setup.py and make dist's wheels read it
(tools/ext_build.py).  The copies that cannot read it are held to it here:
the header's three parts, the installed distribution's metadata, the
rockspec's file name and fields, and the changelog's latest entry."""
import importlib.metadata
import re
from pathlib import Path

import pytest

import monostamp

REPO = Path(__file__).resolve().parents[2]
HEADER = (REPO / "csrc" / "monostamp.h").read_text(encoding="utf-8")
VERSION = re.search(r'^#define MONOSTAMP_VERSION "([^"]+)"$', HEADER, re.M).group(1)


def test_the_header_string_is_its_three_parts():
    parts = [re.search(r"^#define MONOSTAMP_VERSION_%s (\d+)$" % p, HEADER, re.M).group(1)
             for p in ("MAJOR", "MINOR", "PATCH")]
    assert VERSION == ".".join(parts)


def test_the_module_reports_the_header_version():
    assert monostamp.__version__ == VERSION


def test_the_installed_distribution_has_the_header_version():
    assert importlib.metadata.version("monostamp") == VERSION


def test_the_rockspec_is_named_and_tagged_for_the_header_version():
    rockspecs = sorted(p.name for p in REPO.glob("*.rockspec"))
    if not rockspecs:
        pytest.skip("no rockspec here (an sdist carries the Python package alone)")
    assert rockspecs == ["monostamp-%s-1.rockspec" % VERSION]
    text = (REPO / rockspecs[0]).read_text(encoding="utf-8")
    assert re.search(r'^version = "%s-1"$' % re.escape(VERSION), text, re.M)
    assert re.search(r'^\s*tag = "v%s",$' % re.escape(VERSION), text, re.M)


def test_the_changelog_starts_with_the_header_version():
    # "## Unreleased" may come first: the changes made since that release.
    text = (REPO / "CHANGELOG.md").read_text(encoding="utf-8")
    first = re.search(r"^## (?!Unreleased$)(\S+)", text, re.M)
    assert first is not None, "CHANGELOG.md has no ## <version> entry"
    assert first.group(1) == VERSION
