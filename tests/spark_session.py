"""One local[2] SparkSession for every Spark test module: starting Spark takes seconds, so the session
starts once, on first use, and ends with the test run (pyspark stops its Java process at exit).

A module calls :func:`skip_without_spark` at its top, then takes the session from a fixture of its own:

.. code-block:: python

    @pytest.fixture(scope="module")
    def session():
        return shared_session()
"""

import atexit
import os
import shutil
import sys

import pytest

_sessions = []


def skip_without_spark():
    """Skip the calling module where pyspark, pyarrow or a Java runtime is missing."""
    pytest.importorskip("pyspark")
    pytest.importorskip("pyarrow")
    if shutil.which("java") is None:
        pytest.skip("Spark needs a Java runtime", allow_module_level=True)


def shared_session():
    """The test run's SparkSession, started on the first call."""
    if not _sessions:
        from pyspark.sql import SparkSession

        # the executors' Python is this one (it has kvec, pyarrow and TensorFlow), and TensorFlow in
        # them keeps its start-up messages to itself
        os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
        os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
        session = (
            SparkSession.builder.master("local[2]")
            .appName("kvec-tests")
            .config("spark.ui.enabled", "false")
            .config("spark.ui.showConsoleProgress", "false")
            .config("spark.sql.shuffle.partitions", "4")
            .getOrCreate()
        )
        session.sparkContext.setLogLevel("ERROR")
        atexit.register(session.stop)
        _sessions.append(session)
    return _sessions[0]
