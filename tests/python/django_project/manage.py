#!/usr/bin/env python
"""The test project's manage.py (test_django.py runs `manage.py test --parallel 2`).

TREE_START_METHOD, when set, is the multiprocessing start method of the
test workers (spawn, fork, forkserver): set here, before Django's runner
asks multiprocessing for it.
"""
import multiprocessing
import os
import sys

if __name__ == "__main__":
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "treeproj.settings")
    method = os.environ.get("TREE_START_METHOD")
    if method:
        multiprocessing.set_start_method(method)
    from django.core.management import execute_from_command_line

    execute_from_command_line(sys.argv)
