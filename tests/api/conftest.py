"""Fixtures of the v2 API tests: the checker of the reference's v2 schema."""

from __future__ import annotations

import pytest

from tests.support.schema_check import SchemaChecker


@pytest.fixture(scope="module")
def schema() -> SchemaChecker:
    """The schema checker, built once per test module."""
    return SchemaChecker()
