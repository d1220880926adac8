"""A benchmark's result document: printed, and written to ``--json PATH`` when given."""

from __future__ import annotations

import json
from pathlib import Path


def emit(res: dict, path: Path | None) -> None:
    """Print ``res`` as indented JSON; also write it to ``path`` (when not None)."""
    text = json.dumps(res, indent=2)
    print(text)
    if path is not None:
        path.write_text(text + "\n", encoding="utf-8")
