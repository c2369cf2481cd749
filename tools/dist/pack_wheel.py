"""tools/dist/pack_wheel.py EXTENSION TAG OUTDIR [LIBRARY...]: packs the monostamp
wheel around a prebuilt extension (and the prebuilt libraries that go
beside it in the package: make dist's libmonostamp_preload.so), with the
standard library alone (zipfile, hashlib, base64 for RECORD), for a build
where no build backend can run (make windows-wheel, docs/windows.md; make
dist, tools/dist/build.sh).  monostamp-patch.pth goes at the wheel's root,
as setup.py puts it.

The package, its stub and py.typed come from bindings/python/monostamp, the
metadata from pyproject.toml (name, version, summary, license, Python
requirement, keywords, classifiers, extras, the pytest11 entry point) and
the long description from its readme, the version from csrc/monostamp.h
(tools/ext_build.py, as setup.py reads it), so the wheel says what
setuptools' would.  TAG is the wheel's tag (cp313-cp313-win_amd64).  Entries are
sorted and dated 1980-01-01: the same inputs give the same bytes.
"""
import base64
import hashlib
import os
import sys
import tomllib
import zipfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import ext_build  # noqa: E402  (the line above makes it importable)

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PACKAGE = os.path.join(REPO, "bindings", "python", "monostamp")
DATE = (1980, 1, 1, 0, 0, 0)
PTH = "monostamp-patch.pth"  # the startup hook (setup.py says why at the root)


def requires_dist(requirement, extra):
    """A Requires-Dist line of `extra`: a requirement's own marker and the
    extra's are one marker, joined with "and" (two ";" are no specifier)."""
    name, _, marker = requirement.partition(";")
    if marker.strip():
        return 'Requires-Dist: %s; (%s) and extra == "%s"' % (name.strip(), marker.strip(), extra)
    return 'Requires-Dist: %s; extra == "%s"' % (name.strip(), extra)


def metadata(project):
    lines = [
        "Metadata-Version: 2.4",
        "Name: %s" % project["name"],
        "Version: %s" % ext_build.version(),
        "Summary: %s" % project["description"],
        "Keywords: %s" % ",".join(project.get("keywords", [])),
        "License-Expression: %s" % project["license"],
    ]
    lines += ["License-File: %s" % f for f in project.get("license-files", [])]
    lines += ["Classifier: %s" % c for c in project.get("classifiers", [])]
    lines += ["Project-URL: %s, %s" % kv for kv in project.get("urls", {}).items()]
    lines.append("Requires-Python: %s" % project["requires-python"])
    for extra, reqs in sorted(project.get("optional-dependencies", {}).items()):
        lines += [requires_dist(r, extra) for r in reqs]
        lines.append("Provides-Extra: %s" % extra)
    lines.append("Description-Content-Type: text/markdown")
    with open(os.path.join(REPO, project["readme"]), encoding="utf-8") as f:
        readme = f.read()
    return "\n".join(lines) + "\n\n" + readme


def entry_points(project):
    out = []
    groups = dict(project.get("entry-points", {}))
    if project.get("scripts"):  # [project.scripts]: the console_scripts group
        groups["console_scripts"] = project["scripts"]
    for group, entries in sorted(groups.items()):
        out.append("[%s]" % group)
        out += ["%s = %s" % (k, v) for k, v in sorted(entries.items())]
        out.append("")
    return "\n".join(out)


def zip_entry(name):
    info = zipfile.ZipInfo(name, DATE)
    info.external_attr = 0o644 << 16  # rw-r--r--, not the 0 a bare ZipInfo has
    info.compress_type = zipfile.ZIP_DEFLATED
    return info


def record_line(name, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
    return "%s,sha256=%s,%d" % (name, digest.decode(), len(data))


def main(extension, tag, outdir, *libraries):
    with open(os.path.join(REPO, "pyproject.toml"), "rb") as f:
        project = tomllib.load(f)["project"]
    name, version = project["name"], ext_build.version()
    info = "%s-%s.dist-info" % (name, version)
    files = {}
    for entry in sorted(os.listdir(PACKAGE)):
        if entry.endswith((".py", ".pyi")) or entry == "py.typed":
            with open(os.path.join(PACKAGE, entry), "rb") as f:
                files["monostamp/" + entry] = f.read()
    with open(extension, "rb") as f:
        files["monostamp/" + os.path.basename(extension)] = f.read()
    # The libraries in a directory without __init__.py, where no module
    # finder takes them for modules (tools/ext_build.py's PRELOAD_DIR).
    for path in libraries:
        with open(path, "rb") as f:
            files["monostamp/%s/%s" % (ext_build.PRELOAD_DIR, os.path.basename(path))] = f.read()
    # The MONOSTAMP_PATCH startup hook, at the root of site-packages (setup.py's build_py).
    with open(os.path.join(REPO, "bindings", "python", PTH), "rb") as f:
        files[PTH] = f.read()
    files[info + "/METADATA"] = metadata(project).encode()
    files[info + "/WHEEL"] = ("Wheel-Version: 1.0\nGenerator: monostamp tools/dist/pack_wheel.py\n"
                              "Root-Is-Purelib: false\nTag: %s\n" % tag).encode()
    files[info + "/entry_points.txt"] = entry_points(project).encode()
    files[info + "/top_level.txt"] = b"monostamp\n"
    for lic in project.get("license-files", []):
        with open(os.path.join(REPO, lic), "rb") as f:
            files[info + "/licenses/" + lic] = f.read()
    record = [record_line(n, d) for n, d in sorted(files.items())]
    record.append(info + "/RECORD,,")
    files[info + "/RECORD"] = ("\n".join(record) + "\n").encode()

    os.makedirs(outdir, exist_ok=True)
    path = os.path.join(outdir, "%s-%s-%s.whl" % (name, version, tag))
    tmp = path + ".tmp"
    with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as whl:
        for n in sorted(files, key=lambda n: (n == info + "/RECORD", n)):  # RECORD last
            whl.writestr(zip_entry(n), files[n])
    os.replace(tmp, path)
    print(path)


if __name__ == "__main__":
    if len(sys.argv) < 4:
        sys.exit("usage: pack_wheel.py EXTENSION TAG OUTDIR [LIBRARY...]")
    main(*sys.argv[1:])
