"""Every parser over untrusted bytes is linear (finding 1 of the fifth audit, and its kin).

The audit's PDF of `/Type/Pages` repeated took 26 s for 240 KB under the old page-count regex,
four times longer at each doubling. Each hostile shape of `hostile_bytes.CASES` is parsed here at
n and 2n bytes: the time may grow at most 2.5 times (a linear parser doubles). The sizes are small
(the fast suite); `make bench` (`python -m tests.benchmarks parsers`) runs them near the 4 MB body
limit. A ratio is taken from CPU times, best of interleaved runs, and measured again before a
failure is called one, as the host is shared.
"""

from __future__ import annotations

import pytest

from tests.reliability.hostile_bytes import CASES, growth

FAST_BYTES = 100_000
LINEAR = 2.5
FLOOR = 0.004  # CPU seconds: below this at 2n the ratio is timer noise, and the parser is fast anyway


@pytest.mark.parametrize(("make", "parse"), [pytest.param(m, p, id=name) for name, m, p in CASES])
def test_parser_time_grows_linearly_with_its_input(make, parse):
    ratios = []
    for _ in range(3):
        t, ratio = growth(make, parse, FAST_BYTES)
        if t * ratio < FLOOR or ratio <= LINEAR:
            return
        ratios.append(round(ratio, 2))
        if t * ratio > 1.0:  # seconds of CPU: not timer noise, so not measured again
            break
    pytest.fail(f"the time at 2x the input grew {ratios}x (CPU {t:.3f} s at {FAST_BYTES:,} bytes); a linear parser "
                f"grows about 2x")
