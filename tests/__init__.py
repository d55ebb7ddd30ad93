"""kvec's test suite; shared helpers are in :mod:`tests.support`."""
