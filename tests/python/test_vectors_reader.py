"""The Python suite's reader of the shared vectors (conftest.read_vectors)
refuses a vector file that is missing or holds no row, naming it, as the C
and Lua readers do: a test that read no vector would pass having checked
nothing."""
import re

import pytest

from conftest import read_vectors


def test_a_missing_file_fails_naming_it(tmp_path):
    path = tmp_path / "missing.tsv"
    with pytest.raises(pytest.fail.Exception, match="shared vectors missing: " + re.escape(str(path))):
        read_vectors(str(path))


@pytest.mark.parametrize("text", ["", "# a header\n\n# and a note\n"], ids=["empty", "comments-only"])
def test_an_empty_file_fails_naming_it(tmp_path, text):
    path = tmp_path / "empty.tsv"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(pytest.fail.Exception, match="shared vectors empty: " + re.escape(str(path))):
        read_vectors(str(path))


def test_rows_are_read_past_comments(tmp_path):
    path = tmp_path / "row.tsv"
    path.write_text("# a header\n1\ttwo\n\n", encoding="utf-8")
    assert read_vectors(str(path)) == [["1", "two"]]
