"""Every graph backend, found by module: each module of this package other than ``base``
defines ``BACKEND``, an instance of :class:`~graph_trust.graph.backends.base.Backend`.
Adding a backend is adding a module here (``docs/backends.md``: Adding a backend)."""

from __future__ import annotations

import importlib
import pkgutil
from typing import Any

from graph_trust.graph.backends.base import Backend, OpenedDriver


def _discover() -> tuple[Backend, ...]:
    found = []
    for info in pkgutil.iter_modules(__path__):
        if info.name != "base" and not info.name.startswith("_"):
            found.append(importlib.import_module(f"{__name__}.{info.name}").BACKEND)
    return tuple(sorted(found, key=lambda b: (b.rank, b.name)))


BACKENDS: tuple[Backend, ...] = _discover()


def for_kind(kind: str) -> Backend:
    """The backend serving addresses of ``kind`` (``GraphAddress.kind``)."""
    for b in BACKENDS:
        if kind in b.kinds:
            return b
    raise KeyError(f"no graph backend serves {kind!r} addresses")


def for_scheme(scheme: str) -> Backend | None:
    """The backend whose addresses use URL scheme ``scheme``, if any."""
    return next((b for b in BACKENDS if scheme in b.schemes), None)


def find_driver(driver: Any) -> Backend | None:
    """The backend of a graphiti-core driver (by its ``provider``), None for a provider no
    backend serves (Graphiti's other drivers: search still runs on them, as one database)."""
    return next((b for b in BACKENDS if getattr(driver, "provider", None) == b.provider), None)


def for_driver(driver: Any) -> Backend:
    """The backend of a graphiti-core driver (by its ``provider``)."""
    found = find_driver(driver)
    if found is None:
        raise KeyError(f"no graph backend for graphiti-core provider {getattr(driver, 'provider', None)!r}")
    return found


def by_name(name: str) -> Backend:
    for b in BACKENDS:
        if b.name == name:
            return b
    raise KeyError(f"unknown graph backend {name!r}")


__all__ = ["BACKENDS", "Backend", "OpenedDriver", "by_name", "find_driver", "for_driver", "for_kind", "for_scheme"]
