"""The pytest11 entry point ``monostamp``: loads monostamp.pytest_plugin.

The plugin is one module, and pytest refuses one module registered under
two names ("Plugin already registered under a different name"): the entry
point's (``monostamp``) and the one ``-p monostamp.pytest_plugin`` gives it.
So the entry point is this module instead, which asks pytest for the
plugin by its module name.  pytest loads it at most once and honours
``-p no:monostamp.pytest_plugin``; ``-p no:monostamp`` blocks this module,
and so the plugin, altogether.
"""
pytest_plugins = ["monostamp.pytest_plugin"]
