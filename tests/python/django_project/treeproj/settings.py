"""A minimal Django project on sqlite: one app (stamps) whose model has an
auto_now_add column.  The test database is sqlite's in-memory one (Django's
default for sqlite), cloned into each parallel worker."""
import os
import tempfile

SECRET_KEY = "monostamp-tests-only"
DEBUG = False
USE_TZ = True
TIME_ZONE = "UTC"
INSTALLED_APPS = ["stamps"]
DATABASES = {
    "default": {
        "ENGINE": "django.db.backends.sqlite3",
        # Never opened by `manage.py test` (it uses an in-memory test
        # database); outside the checkout all the same.
        "NAME": os.path.join(tempfile.gettempdir(), "monostamp-treeproj.sqlite3"),
    }
}
DEFAULT_AUTO_FIELD = "django.db.models.AutoField"
