import atexit
import os
import shutil
import tempfile

from hypothesis import HealthCheck, settings

# CI runs derandomized so a red build is reproducible; locally hypothesis explores freely.
settings.register_profile(
    "ci", derandomize=True, deadline=None, suppress_health_check=[HealthCheck.too_slow], max_examples=150
)
settings.register_profile("dev", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("ci" if os.environ.get("CI") else "dev")

# kvec's cache (jieba's dictionary, the TensorFlow op library) goes to a folder of this run, not the
# user's: the suite writes nothing outside its temporary folders. Subprocesses inherit it.
if not os.environ.get("KVEC_CACHE_DIR"):
    os.environ["KVEC_CACHE_DIR"] = tempfile.mkdtemp(prefix="kvec-test-cache-")
    atexit.register(shutil.rmtree, os.environ["KVEC_CACHE_DIR"], ignore_errors=True)
