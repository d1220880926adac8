"""Pluggable token counters for the budget.

``policy.token_counter``:

- ``chars4`` (default): ``ceil(characters / 4)``, a rough estimate that needs no tokenizer;
- ``tokenizer:PATH``: a Hugging Face ``tokenizer.json`` file, counted with the ``tokenizers``
  library (extra ``tokenizer``); nothing is downloaded, the file must be on disk;
- ``tiktoken:ENCODING``: an OpenAI encoding through ``tiktoken``, if its file is already cached;
- ``module:callable``: any callable ``text -> int`` (or a factory returning one).

A counter that is not available is a :class:`ConfigError` naming ``policy.token_counter``.
"""

from __future__ import annotations

import importlib
import math
from collections.abc import Callable
from functools import lru_cache

from graph_trust.errors import ConfigError

TokenCounter = Callable[[str], int]
KEY = "config key policy.token_counter"


def chars4(text: str) -> int:
    """A rough estimate: one token per four characters, rounded up."""
    return math.ceil(len(text) / 4)


@lru_cache(maxsize=16)
def token_counter(spec: str) -> TokenCounter:
    """The counter named by ``spec`` (see the module docstring)."""
    if spec == "chars4":
        return chars4
    kind, _, arg = spec.partition(":")
    if not arg:
        raise ConfigError(f"{KEY}: expected chars4, tokenizer:PATH, tiktoken:ENCODING or module:callable, got {spec!r}")
    if kind == "tokenizer":
        try:
            from tokenizers import Tokenizer  # optional dependency: only this token counter needs it
        except ImportError:
            raise ConfigError(f"{KEY}: {spec!r} needs the tokenizers package (pip install 'graph-trust[tokenizer]')") from None
        try:
            tok = Tokenizer.from_file(arg)
        except Exception as exc:  # noqa: BLE001 - the library raises plain Exception
            raise ConfigError(f"{KEY}: cannot load tokenizer file {arg!r} ({exc})") from None
        return lambda text: len(tok.encode(text, add_special_tokens=False).ids)
    if kind == "tiktoken":
        try:
            import tiktoken  # optional dependency: only this token counter needs it

            enc = tiktoken.get_encoding(arg)
        except ImportError:
            raise ConfigError(f"{KEY}: {spec!r} needs the tiktoken package") from None
        except Exception as exc:  # noqa: BLE001 - unknown name, or the file is not cached (no download here)
            raise ConfigError(f"{KEY}: tiktoken encoding {arg!r} is not available offline ({exc})") from None
        return lambda text: len(enc.encode(text, disallowed_special=()))
    try:
        obj = getattr(importlib.import_module(kind), arg)
    except (ImportError, AttributeError) as exc:
        raise ConfigError(f"{KEY}: cannot load {spec!r} ({exc})") from None
    if isinstance(obj, type) or getattr(obj, "__graph_trust_factory__", False):
        obj = obj()
    if not callable(obj):
        raise ConfigError(f"{KEY}: {spec!r} is not callable")
    return obj
