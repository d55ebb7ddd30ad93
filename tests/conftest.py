import os

from hypothesis import HealthCheck, settings

# CI runs derandomized so a red build is reproducible; locally hypothesis explores freely.
settings.register_profile(
    "ci", derandomize=True, deadline=None, suppress_health_check=[HealthCheck.too_slow], max_examples=150
)
settings.register_profile("dev", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("ci" if os.environ.get("CI") else "dev")
