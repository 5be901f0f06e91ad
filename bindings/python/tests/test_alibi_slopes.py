"""baracuda.alibi_slopes against the paper's rule; no GPU."""
import math

import pytest

import baracuda


def test_a_power_of_two_is_a_geometric_sequence():
    assert baracuda.alibi_slopes(8) == [2.0 ** -k for k in range(1, 9)]
    assert baracuda.alibi_slopes(1) == [2.0 ** -8]


def test_twelve_heads_interleave_as_the_header_lists():
    expected = [2.0 ** -k for k in range(1, 9)] + [2.0 ** -e for e in (0.5, 1.5, 2.5, 3.5)]
    got = baracuda.alibi_slopes(12)
    assert len(got) == 12
    assert got == pytest.approx(expected, rel=2 ** -24)


def test_every_count_has_that_many_decreasing_then_interleaved_slopes():
    for n in range(1, 65):
        s = baracuda.alibi_slopes(n)
        m = 2 ** int(math.log2(n))
        assert len(s) == n and all(0 < x < 1 for x in s)
        assert all(a > b for a, b in zip(s[:m], s[1:m]))


def test_a_bad_count_raises_invalid_problem():
    with pytest.raises(baracuda.BaracudaError) as e:
        baracuda.alibi_slopes(0)
    assert e.value.status == baracuda.STATUS_INVALID_PROBLEM
    assert "num_heads is 0" in e.value.message
