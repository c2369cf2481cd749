"""The pytest11 entry point ``monostamp``: loads monostamp.pytest_plugin by its
module name, so that pytest registers the one module under one name only (it
refuses two); ``-p no:monostamp`` blocks it altogether (docs/pytest.md)."""
pytest_plugins = ["monostamp.pytest_plugin"]
