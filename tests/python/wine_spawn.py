"""Under Wine only: a child whose CreateProcess fails once is started again.

Wine's CreateProcess has failed once in CI, with two xdist workers each
starting children (an OSError out of _winapi.CreateProcess), and no test
here is about starting a process.  So, under Wine, a Popen whose
start raises OSError is tried once more after a pause, and the first failure
is reported as a warning in pytest's summary, so that it is seen, never
hidden; a second failure is raised as it is.  A missing program or folder
(ERROR_FILE_NOT_FOUND, ERROR_PATH_NOT_FOUND) fails at once.  On Windows
itself and on POSIX nothing is changed.
"""
import subprocess
import sys
import time
import warnings

NOT_FOUND = (2, 3)


def under_wine():
    if sys.platform != "win32":
        return False
    import ctypes
    return hasattr(ctypes.WinDLL("ntdll"), "wine_get_version")


class RetryingPopen(subprocess.Popen):
    def __init__(self, *args, **kwargs):
        try:
            super().__init__(*args, **kwargs)
        except OSError as error:
            if getattr(error, "winerror", None) in NOT_FOUND:
                raise
            warnings.warn("wine: starting %r failed (%r); starting it once more"
                          % (args[0] if args else kwargs.get("args"), error))
            time.sleep(1)
            # Popen.__init__ closed what it had opened before raising, so a
            # second call starts from the caller's own arguments again.
            super().__init__(*args, **kwargs)


def install():
    if under_wine():
        subprocess.Popen = RetryingPopen
