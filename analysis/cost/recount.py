"""What cost adds to the request count: a described workload as a request, and the least exact of many counts.

Unlike `analysis.requests` (the count of a request to a model, one at a time or batched:
`requests.batch`) and `targets` (which counter stands for a priced model: `target_counter`), this
module only holds the two pieces of counting that are cost's own: the request a described workload
of N messages stands for (`workload_request`) and the exactness a report gives many counts
(`least_exact`).

A described workload of N messages per request (`workload_request`) is rendered as N turns with
the text in the last user message, so the format's tokens are the family's own for N messages.
"""

from __future__ import annotations

from collections import Counter

from ..contract import EXACTNESS
from ..requests import Message, Request, TextPart

def workload_request(text: str, messages: int) -> Request:
    """The request a described workload stands for: `messages` turns (user and assistant
    alternating, ending with the user), the text in the last one, the earlier ones empty.

    >>> [m.role for m in workload_request("hi", 3).messages], workload_request("hi", 3).messages[-1].text
    (['user', 'assistant', 'user'], 'hi')
    """
    roles = ["user" if (messages - 1 - i) % 2 == 0 else "assistant" for i in range(messages)]
    return Request(tuple(Message(role, (TextPart(text if i == messages - 1 else ""),)) for i, role in enumerate(roles)))


def least_exact(seen: Counter) -> tuple[str, str]:
    """(the least exact label among counted requests, its reason): `seen` maps (exactness, reason)
    to how many requests had it; a reason that covers only some requests says how many.

    >>> least_exact(Counter({("exact", "x"): 3, ("estimate", "proxy"): 1}))
    ('estimate', 'proxy (1 of 4 requests)')
    """
    if not seen:
        return "estimate", "no request was counted"
    worst = max((e for e, _ in seen), key=EXACTNESS.index)  # the contract's words, from most to least exact
    reasons = [(n, why) for (e, why), n in seen.most_common() if e == worst]
    total = sum(seen.values())
    shown = "; ".join(f"{why} ({n:,} of {total:,} requests)" if len(reasons) > 1 or n < total else why
                      for n, why in reasons[:3])
    return worst, shown + (f"; and {len(reasons) - 3} other reason(s)" if len(reasons) > 3 else "")
