"""tref.py: the definitions the numpy checks of tests/ recompute attnlab with,
written from the papers rather than from attnlab's code.

    from tref import softmax_rows, alibi_slopes, sinusoidal, rope_angles, rope_turn, kv_tables
"""
import math

import numpy as np


def softmax_rows(S):
    """Softmax of each row; a row of -inf (every key masked) is all 0."""
    W = np.zeros_like(S)
    for i, row in enumerate(S):
        if np.all(row == -np.inf):
            continue
        e = np.exp(row - row.max())
        W[i] = e / e.sum()
    return W


def alibi_slopes(n):
    """The ALiBi paper's get_slopes: a power of two's geometric sequence,
    else the power below's slopes and every other slope of the power above."""
    def power_of_2(n):
        start = 2 ** (-2 ** -(math.log2(n) - 3))
        return [start * start ** i for i in range(n)]
    if math.log2(n).is_integer():
        return power_of_2(n)
    p = 2 ** math.floor(math.log2(n))
    return power_of_2(p) + alibi_slopes(2 * p)[0::2][:n - p]


def sinusoidal(n, d):
    """Attention Is All You Need's encoding: sin and cos of p / 10000^(2i/d)."""
    PE = np.zeros((n, d))
    for p in range(n):
        for c in range(d):
            a = p / 10000 ** ((c - c % 2) / d)
            PE[p, c] = math.cos(a) if c % 2 else math.sin(a)
    return PE


def rope_angles(n, d, base):
    """RoPE's angles p * base^(-2i/d), one column per pair of dimensions."""
    return np.array([[p * base ** (-2 * i / d) for i in range(d // 2)] for p in range(n)])


def rope_turn(A, ang):
    """Each pair (2i, 2i+1) of row p of A turned by ang[p][i]."""
    R = A.copy()
    c, s = np.cos(ang), np.sin(ang)
    R[:, 0::2] = A[:, 0::2] * c - A[:, 1::2] * s
    R[:, 1::2] = A[:, 0::2] * s + A[:, 1::2] * c
    return R


def kv_tables(n, H, G, dk, dv):
    """Who reads which (query head h reads K/V head (h-1)G/H + 1) and the
    numbers a K/V cache of n tokens holds with H and with G heads."""
    groups = np.array([[1.0 if (h * G) // H == g else 0.0 for g in range(G)] for h in range(H)])
    size = np.array([[n * dk * c, n * dv * c, n * (dk + dv) * c] for c in (H, G)], float)
    return groups, size
