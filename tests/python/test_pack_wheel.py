"""make dist's and make windows-wheel's wheels are packed by
tools/dist/pack_wheel.py around an extension built without setuptools; their
metadata must be what setuptools writes for `pip install .`, because it is
setuptools' own (its prepare_metadata_for_build_wheel hook).  Held here to
the installed distribution, which make test-python built with pip from this
tree."""
import importlib.metadata
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
PACK = REPO / "tools" / "dist" / "pack_wheel.py"


def setuptools_major():
    try:
        import setuptools
    except ImportError:
        return 0
    return int(setuptools.__version__.split(".")[0])


@pytest.mark.skipif(not PACK.exists() or setuptools_major() < 77 or sys.platform == "win32",
                    reason="needs the checkout's tools/ and setuptools 77 or later (packed on Linux)")
def test_packed_wheel_has_the_metadata_pip_installs(tmp_path):
    ext = tmp_path / "_monostamp.cpython-311-x86_64-linux-gnu.so"
    ext.write_bytes(b"not an extension: only the packing is under test")
    done = subprocess.run([sys.executable, str(PACK), str(ext), "cp311-cp311-linux_x86_64",
                           str(tmp_path / "out")], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    wheel = Path(done.stdout.strip().splitlines()[-1])
    installed = importlib.metadata.distribution("monostamp")
    with zipfile.ZipFile(wheel) as whl:
        info = "monostamp-%s.dist-info/" % installed.version
        assert whl.read(info + "METADATA").decode() == installed.read_text("METADATA")
        assert whl.read(info + "entry_points.txt").decode() == installed.read_text("entry_points.txt")
        assert "monostamp-patch.pth" in whl.namelist()
        assert "monostamp/" + ext.name in whl.namelist()
