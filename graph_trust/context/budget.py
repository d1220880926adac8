"""The token budget: memories in order until ``max_tokens``, never past it.

The last memory that does not fit whole is cut to the longest prefix whose text *with its
ellipsis* fits, then back to its last word boundary when it has one. When ``finish``
(redaction) makes that cut too long, the cut is the longest prefix that fits after ``finish``;
a redaction that shortens the cut does not lengthen it (the search runs on the raw text). When
no prefix fits, the memory is left out. "Longest" holds for a count that grows with the prefix;
with any other the cut found still fits (it steps back until it does), but a longer one may have
fit, or one may fit where none is found. The total is the sum of each memory's count.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from graph_trust.context.clip import ELLIPSIS
from graph_trust.context.tokens import TokenCounter


def _identity(text: str) -> str:
    return text


def fit_prefix(
    text: str, budget: int, count: TokenCounter, finish: Callable[[str], str] = _identity
) -> tuple[str, int] | None:
    """(``finish(prefix + ELLIPSIS)``, its tokens) for the prefix cut as the module docstring
    says, or None when none fits ``budget`` (always for a budget of 0 or less)."""
    if budget <= 0:
        return None

    def largest(fits) -> int:  # largest k in [1, len - 1] with fits(k); 0 when there is none
        lo, hi = 0, len(text) - 1
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if fits(mid):
                lo = mid
            else:
                hi = mid - 1
        return lo

    def cut(k: int) -> str:
        return finish(text[:k].rstrip() + ELLIPSIS)

    # Search on the raw prefix (cheap), then check with ``finish``; search with it only when a
    # replacement made the cut longer.
    lo = largest(lambda k: count(text[:k].rstrip() + ELLIPSIS) <= budget)
    if lo and count(cut(lo)) > budget:
        lo = largest(lambda k: count(cut(k)) <= budget)
    k = lo
    space = text.rfind(" ", 0, k + 1)
    if 0 < space < k and text[:space].strip():
        k = space  # end on a word boundary when the prefix has one
    while k > 0:  # a counter need not be monotonic on prefixes: check, step back if needed
        out = cut(k)
        if text[:k].strip() and (n := count(out)) <= budget:
            return out, n
        k -= 1
    return None


def enforce_budget(
    texts: Sequence[str], max_tokens: int, count: TokenCounter, finish: Callable[[str], str] = _identity
) -> tuple[list[tuple[str, int]], bool]:
    """([(text, tokens)] in order, whether the last one was cut). Sum of tokens <= max_tokens."""
    out: list[tuple[str, int]] = []
    total = 0
    for text in texts:
        n = count(text)
        if total + n <= max_tokens:
            out.append((text, n))
            total += n
            continue
        part = fit_prefix(text, max_tokens - total, count, finish)
        if part is not None:
            out.append(part)
            return out, True
        break
    return out, False
