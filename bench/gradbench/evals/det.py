r"""GradBench's `det` (cmpad's `det_by_minor`): the determinant of an lxl
matrix by expansion by minors, and its gradient by `gradopt.grad`.

The expansion is done bottom-up, one row at a time, over all minors at once:
the determinants of the minors of the last s rows, one per set S of s
columns, are det_s[S] = sum_{j in S} +/-A[l-s, j]*det_{s-1}[S\{j}], the sign
alternating with j's position in S. The same minor appears in many branches
of the recursive expansion; here it is computed once (2^l minors rather than
l! products). Picking det_{s-1}[S\{j}] for every S and j is a fixed 0/+/-1
matrix per j (front end has no integer-array indexing), built once per l in
Python and passed in: det_s = A[l-s] * (E_s * det_{s-1}), with E_s of shape
(l, C(l,s), C(l,s-1)). This is O(l * C(l,s) * C(l,s-1)) work per row (about
7*10^6 multiply-adds in all for l = 11) instead of a gather's O(s * C(l,s)).
"""

from __future__ import annotations

from functools import cache
from itertools import combinations
from typing import Any

import numpy as np

import gradopt
import gradopt.numpy as gnp
from evals import Function, Json, floats, to_json


@cache
def expansions(ell: int) -> tuple[np.ndarray, ...]:
    r"""E_s for s = 2..l: E_s[j, S, T] = (-1)^(position of j in S) when
    T = S \ {j}, else 0 (column sets in lexicographic order)."""
    matrices = []
    for s in range(2, ell + 1):
        smaller = {c: i for i, c in enumerate(combinations(range(ell), s - 1))}
        sets = list(combinations(range(ell), s))
        matrix = np.zeros((ell, len(sets), len(smaller)), np.float32)
        for row, columns in enumerate(sets):
            for position, j in enumerate(columns):
                rest = columns[:position] + columns[position + 1 :]
                matrix[j, row, smaller[rest]] = (-1.0) ** position
        matrices.append(matrix)
    return tuple(matrices)


def determinant(a: Any, expansions: tuple[Any, ...]) -> Any:
    ell = a.shape[0]
    minors = a[ell - 1]
    for s, expansion in enumerate(expansions, start=2):
        minors = a[ell - s] @ (expansion @ minors)
    return gnp.sum(minors)


def _arguments(input: Json) -> tuple[Any, ...]:
    ell = int(input["ell"])
    return floats(input["A"]).reshape(ell, ell), expansions(ell)


def _flat(result: Any, input: Json) -> Json:
    return to_json(np.ravel(result))


FUNCTIONS = {
    "primal": Function(determinant, _arguments),
    "gradient": Function(gradopt.grad(determinant), _arguments, _flat),
}
