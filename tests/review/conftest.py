"""Fixtures of the review page's tests."""

from __future__ import annotations

import pytest
from review_page_world import PageWorld, make_page_world


@pytest.fixture
async def page_world(graph, settings, tmp_path, unique) -> PageWorld:
    """The page's world on an SQLite review DB (see review_page_world)."""
    return await make_page_world(graph, settings, str(tmp_path / "review.sqlite3"), unique)
