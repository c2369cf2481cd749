from django.db import models


class Row(models.Model):
    """A record stamped by Django itself: auto_now_add calls timezone.now(),
    which is datetime.now(tz=timezone.utc)."""

    created = models.DateTimeField(auto_now_add=True)
