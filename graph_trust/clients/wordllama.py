"""WordLlama: a semantic embedder that runs offline (``pip install 'graph-trust[wordllama]'``).

``search.embedder: wordllama`` embeds with WordLlama's ``l2_supercat`` static token embeddings
(256 dimensions, average-pooled over the tokens, L2-normalised): cosine matches paraphrases
("when does the billing database backup run" against "billing-db is backed up nightly at 3am
UTC"), unlike the lexical :class:`~graph_trust.clients.hashing.HashingEmbedder`. The ``wordllama``
wheel ships both files it needs, the weights (``weights/l2_supercat_256.safetensors``, 16 MB)
and the tokenizer (``tokenizers/l2_supercat_tokenizer_config.json``).

Never a download: ``WordLlama.load()`` with its defaults looks for the tokenizer in
``<package>/tokenizer/`` (the wheel has ``tokenizers/``), then in ``~/.cache/wordllama`` and
then fetches it from the Hugging Face hub. :func:`load_model` checks both files are in the
installed package and loads them from there with downloads disabled; a missing file is a
:class:`~graph_trust.errors.ConfigError` naming it and the fix.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from graph_trust.clients.array import ArrayEmbedder
from graph_trust.errors import ConfigError

MODEL = "l2_supercat"  # WordLlama's configuration name
DIM = 256  # the dimension the wheel ships (WordLlama's other sizes are downloads)
WEIGHTS = Path("weights") / f"{MODEL}_{DIM}.safetensors"
TOKENIZER = Path("tokenizers") / f"{MODEL}_tokenizer_config.json"
INSTALL = "pip install 'graph-trust[wordllama]'"
_BATCH = 256  # texts per WordLlama call: large enough to amortise, small enough for its padding


def _import_wordllama() -> Any:
    """The ``wordllama`` module. Importing it calls ``logging.basicConfig(level=INFO)`` (in
    ``wordllama.inference``), which would print every library's info logs: undone here."""
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    try:
        import wordllama
    except ImportError:
        raise ConfigError(f"config key search.embedder: 'wordllama' needs the wordllama package: {INSTALL}") from None
    finally:
        for h in [h for h in root.handlers if h not in handlers]:
            root.removeHandler(h)
        root.setLevel(level)
    return wordllama


def package_folder() -> Path:
    """The installed ``wordllama`` package's folder (where its wheel puts weights and tokenizer)."""
    return Path(_import_wordllama().__file__).parent


@functools.cache
def load_model() -> Any:
    """WordLlama's ``l2_supercat`` 256-dimensional model from the installed wheel (loaded once per
    process: 16 MB, about a second). Never downloads; missing files are a ConfigError."""
    wordllama = _import_wordllama()
    folder = Path(wordllama.__file__).parent
    missing = [str(folder / f) for f in (WEIGHTS, TOKENIZER) if not (folder / f).is_file()]
    if missing:
        raise ConfigError(f"config key search.embedder: WordLlama's model files are missing ({', '.join(missing)}); "
                          f"graph-trust never downloads them: reinstall the wheel that ships them, "
                          f"pip install --force-reinstall 'wordllama>=0.4' (or {INSTALL})")
    return wordllama.WordLlama.load(config=MODEL, dim=DIM, cache_dir=folder, disable_download=True)


class WordLlamaEmbedder(ArrayEmbedder):
    """A graphiti-core ``EmbedderClient`` over WordLlama: unit vectors of ``dim`` (256) floats, the
    zero vector for a text with no tokens (``create``/``create_batch`` from :class:`ArrayEmbedder`).
    Loading the model is the only slow step (once per process); ``model`` passes a loaded one."""

    dim = DIM

    def __init__(self, model: Any = None) -> None:
        self.model = model if model is not None else load_model()

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """``texts`` as a ``(len(texts), dim)`` float32 array of unit (or zero) rows."""
        if isinstance(texts, str):
            raise TypeError("WordLlamaEmbedder.embed takes a sequence of texts, not one string")
        texts = list(texts)
        for i, t in enumerate(texts):
            if not isinstance(t, str):
                raise TypeError(f"WordLlamaEmbedder embeds strings, got {type(t).__name__} at index {i}")
        out = np.zeros((len(texts), DIM), dtype=np.float32)
        for lo in range(0, len(texts), _BATCH):
            out[lo : lo + _BATCH] = self.model.embed(texts[lo : lo + _BATCH], norm=False, batch_size=_BATCH)
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return np.divide(out, norms, out=np.zeros_like(out), where=norms > 0)

