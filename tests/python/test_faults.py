"""Every fault of tests/vectors/faults.tsv through the Python extension: the
exception its row names, and after the call's prefix ("Clock(): ") the very
text the Lua C module and the LuaJIT module show (tests/lua/faults_spec.lua),
ASCII, as the core words it."""
import builtins
import pathlib
import sys

import pytest

import monostamp

FAULTS = pathlib.Path(__file__).resolve().parents[1] / "vectors" / "faults.tsv"


def _rows():
    # Missing or empty is a failure: the vectors are the suite.
    rows = [line.split("\t") for line in FAULTS.read_text(encoding="ascii").splitlines()
            if line and not line.startswith("#")]
    assert rows and all(len(r) == 7 for r in rows), FAULTS
    return rows


ROWS = _rows()


@pytest.mark.parametrize("name,call,exception,prefix,_lua,_kind,text", ROWS,
                         ids=[r[0] for r in ROWS])
def test_a_fault_reads_as_the_core_words_it(tmp_path, name, call, exception, prefix, _lua,
                                            _kind, text):
    if name.endswith("_posix") and sys.platform == "win32":
        pytest.skip("a POSIX-only row (faults.tsv)")
    if call == "-":
        pytest.skip("a fault only Lua can commit (faults.tsv)")
    places = {"missing": str(tmp_path / "gone" / "state"), "foreign": str(tmp_path / "junk")}
    (tmp_path / "junk").write_bytes(b"#" * 4096)
    for key, path in places.items():
        call = call.replace("{%s}" % key, repr(path))
        text = text.replace("{%s}" % key, path)
    with pytest.raises(getattr(builtins, exception, None) or getattr(monostamp, exception)) as info:
        eval(call, {"m": monostamp})
    error = info.value
    message = error.strerror if isinstance(error, OSError) and error.strerror else str(error)
    assert message == prefix + ": " + text
    assert message.isascii()
