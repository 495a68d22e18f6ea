"""Fixtures of the protocol tests: the checker of the reference's v2 schema."""

from __future__ import annotations

import pytest

from tests.support.schema_check import SchemaChecker, default_checker


@pytest.fixture(scope="module")
def checker() -> SchemaChecker:
    """The schema checker, built once per test module."""
    return default_checker()
