"""tools/dist/pack_wheel.py EXTENSION TAG OUTDIR [LIBRARY...]: packs the
monostamp wheel around a prebuilt extension (and the prebuilt libraries that
go beside it in the package: make dist's libmonostamp_preload.so), for a
build where the compiler is not setuptools' (make windows-wheel,
docs/windows.md; make dist, tools/dist/build.sh).  monostamp-patch.pth goes
at the wheel's root, as setup.py puts it.

The metadata is setuptools' own: its PEP 517 hook
prepare_metadata_for_build_wheel, run on this checkout by the Python that
runs this (setuptools 77 or later), writes the .dist-info (METADATA from
pyproject.toml and the readme, the version from setup.py's reading of
csrc/monostamp.h, entry points, top_level.txt, the licenses), which goes
into the wheel as it is; this adds WHEEL and RECORD alone.  The package, its
stub, py.typed and the C API's header come from bindings/python/monostamp.
TAG is the wheel's tag (cp313-cp313-win_amd64).  Entries are sorted and dated 1980-01-01: the
same inputs give the same bytes.
"""
import base64
import hashlib
import os
import subprocess
import sys
import tempfile
import zipfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import ext_build  # noqa: E402  (the line above makes it importable)

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PACKAGE = os.path.join(REPO, "bindings", "python", "monostamp")
DATE = (1980, 1, 1, 0, 0, 0)
PTH = "monostamp-patch.pth"  # the startup hook (setup.py says why at the root)


def setuptools_metadata(tmp):
    """The .dist-info setuptools writes for this checkout, as {name: bytes}
    relative to the wheel's root, and its directory's name."""
    code = ("import sys; from setuptools import build_meta\n"
            "print(build_meta.prepare_metadata_for_build_wheel(sys.argv[1]))")
    done = subprocess.run([sys.executable, "-c", code, tmp], cwd=REPO, capture_output=True,
                          text=True, check=False)
    if done.returncode != 0:
        sys.exit("pack_wheel: setuptools could not write the metadata:\n" + done.stdout + done.stderr)
    info = done.stdout.strip().splitlines()[-1]
    files = {}
    root = os.path.join(tmp, info)
    for here, _, names in os.walk(root):
        for n in names:
            path = os.path.join(here, n)
            with open(path, "rb") as f:
                files[info + "/" + os.path.relpath(path, root).replace(os.sep, "/")] = f.read()
    return info, files


def zip_entry(name):
    info = zipfile.ZipInfo(name, DATE)
    info.external_attr = 0o644 << 16  # rw-r--r--, not the 0 a bare ZipInfo has
    info.compress_type = zipfile.ZIP_DEFLATED
    return info


def record_line(name, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
    return "%s,sha256=%s,%d" % (name, digest.decode(), len(data))


def main(extension, tag, outdir, *libraries):
    with tempfile.TemporaryDirectory() as tmp:
        info, files = setuptools_metadata(tmp)
    name, version = info[:-len(".dist-info")].split("-")
    for entry in sorted(os.listdir(PACKAGE)):
        # The package's modules (less PyPy's binding, as setup.py leaves it
        # out of a CPython wheel), its stub, py.typed and the C API's header
        # (monostamp_capi.h, found by monostamp.get_include()).
        if entry.startswith("_pypy"):
            continue
        if entry.endswith((".py", ".pyi", ".h")) or entry == "py.typed":
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
    files[info + "/WHEEL"] = ("Wheel-Version: 1.0\nGenerator: monostamp tools/dist/pack_wheel.py\n"
                              "Root-Is-Purelib: false\nTag: %s\n" % tag).encode()
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
