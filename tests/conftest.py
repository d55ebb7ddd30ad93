import os

from hypothesis import HealthCheck, settings

from tests.isolation import isolate_this_run

# HOME, the XDG folders, Keras', matplotlib's and kvec's folders and TMPDIR (jieba's cache) point into
# one temporary folder of this run, removed at exit, before any test imports keras, matplotlib or jieba:
# the suite writes nothing outside its temporary folders. Subprocesses inherit the variables.
isolate_this_run()

# CI runs derandomized so a red build is reproducible; locally hypothesis explores freely.
settings.register_profile(
    "ci", derandomize=True, deadline=None, suppress_health_check=[HealthCheck.too_slow], max_examples=150
)
settings.register_profile("dev", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("ci" if os.environ.get("CI") else "dev")
