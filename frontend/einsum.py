"""`einsum` lowered to the `grad` ops: repeated labels of one operand are
diagonals (a strided slice), labels no other operand or the output needs are
summed first, and the operands are then contracted left to right, each pair
as one (batched) `grad.dot` between permutes and reshapes."""

from __future__ import annotations

import math
import string

from gradopt.frontend import lax
from gradopt.frontend.arrange import diagonal
from gradopt.frontend.array import Array, ArrayLike
from gradopt.frontend.lax_numpy import (
    broadcast_to,
    floating,
    reshape,
    transpose,
)
from gradopt.frontend.trace import error

Labels = list[str]


def _parse(subscripts: str, ndims: list[int]) -> tuple[list[Labels], Labels]:
    """The labels of each operand and of the output, with `...` spelt out as
    one label per broadcast dim (right-aligned across operands, as NumPy)."""
    text = subscripts.replace(" ", "")
    inputs, arrow, output = text.partition("->")
    terms = inputs.split(",")
    if len(terms) != len(ndims):
        raise error(
            f"einsum: {len(terms)} operand subscripts for {len(ndims)} operands"
        )
    allowed = set(string.ascii_letters)
    ellipsis_dims = 0
    for term, ndim in zip(terms, ndims, strict=True):
        letters = term.replace("...", "")
        if term.count("...") > 1 or not set(letters) <= allowed:
            raise error(f"einsum: invalid subscripts {term!r} in {subscripts!r}")
        if ("..." in term and len(letters) > ndim) or (
            "..." not in term and len(letters) != ndim
        ):
            raise error(
                f"einsum: subscripts {term!r} do not fit an operand of {ndim} dims"
            )
        if "..." in term:
            ellipsis_dims = max(ellipsis_dims, ndim - len(letters))
    broadcast = [chr(0x100 + i) for i in range(ellipsis_dims)]

    def spelt(term: str, ndim: int) -> Labels:
        head, dots, tail = term.partition("...")
        if not dots:
            return list(head)
        count = ndim - len(head) - len(tail)
        return [*head, *broadcast[ellipsis_dims - count :], *tail]

    labels = [spelt(t, n) for t, n in zip(terms, ndims, strict=True)]
    if arrow:
        if output.count("...") > 1 or not set(output.replace("...", "")) <= allowed:
            raise error(f"einsum: invalid output subscripts {output!r}")
        head, dots, tail = output.partition("...")
        result = [*head, *(broadcast if dots else []), *tail]
        if not dots and ellipsis_dims:
            raise error("einsum: the output must keep the '...' dims of the inputs")
        if len(set(result)) != len(result):
            raise error(f"einsum: a repeated label in the output {output!r}")
        every = {label for term in labels for label in term}
        if missing := [label for label in result if label not in every]:
            raise error(f"einsum: output label {missing[0]!r} is in no operand")
    else:
        counts: dict[str, int] = {}
        for term in labels:
            for label in term:
                counts[label] = counts.get(label, 0) + 1
        once = sorted(label for label, c in counts.items() if c == 1)
        result = broadcast + [label for label in once if label not in broadcast]
    return labels, result


def _sizes(xs: list[Array], labels: list[Labels]) -> dict[str, int]:
    sizes: dict[str, int] = {}
    for x, term in zip(xs, labels, strict=True):
        for label, size in zip(term, x.shape, strict=True):
            known = sizes.setdefault(label, size)
            if known != size:
                if ord(label) < 0x100 or 1 not in (known, size):
                    raise error(f"einsum: label {label!r} has sizes {known} and {size}")
                sizes[label] = max(known, size)
    return sizes


def _sum_out(x: Array, term: Labels, keep: set[str]) -> tuple[Array, Labels]:
    axes = [i for i, label in enumerate(term) if label not in keep]
    if not axes:
        return x, term
    return lax.reduce("add", x, axes), [label for label in term if label in keep]


def _diagonals(x: Array, term: Labels) -> tuple[Array, Labels]:
    """One axis per label: a label repeated within the term takes the
    diagonal of its two axes (as the last axis), until none repeats."""
    while len(set(term)) != len(term):
        label = next(label for label in term if term.count(label) > 1)
        first = term.index(label)
        second = term.index(label, first + 1)
        x = diagonal(x, 0, first, second)
        term = [t for i, t in enumerate(term) if i not in (first, second)] + [label]
    return x, term


def _contract(
    a: Array, la: Labels, b: Array, lb: Labels, later: set[str]
) -> tuple[Array, Labels]:
    """a · b over their shared labels that nothing later needs, the shared
    labels that something does as batch dims of one `grad.dot`."""
    batch = [label for label in la if label in lb and label in later]
    summed = [label for label in la if label in lb and label not in later]
    rows = [label for label in la if label not in lb]
    columns = [label for label in lb if label not in la]
    size_a = dict(zip(la, a.shape, strict=True))
    size_b = dict(zip(lb, b.shape, strict=True))

    def block(x: Array, term: Labels, order: Labels, groups: list[Labels]) -> Array:
        sizes = dict(zip(term, x.shape, strict=True))
        moved = transpose(x, [term.index(label) for label in order])
        flat = [math.prod(sizes[label] for label in g) for g in groups]
        return reshape(moved, flat if batch else flat[1:])

    left = block(a, la, batch + rows + summed, [batch, rows, summed])
    right = block(b, lb, batch + summed + columns, [batch, summed, columns])
    product = lax.dot(left, right)
    shape = [size_a[label] for label in batch + rows] + [size_b[c] for c in columns]
    return reshape(product, shape), batch + rows + columns


def einsum(
    subscripts: str,
    *operands: ArrayLike,
    optimize: object = None,
    precision: object = None,
    preferred_element_type: object = None,
) -> Array:
    """NumPy's and JAX's `einsum` (subscripts given as a string), in float32.
    `optimize`, `precision` and `preferred_element_type` are accepted for
    JAX's signature and have no effect: operands are contracted left to
    right."""
    if not isinstance(subscripts, str):
        raise error("einsum: give the subscripts as a string ('ij,jk->ik')")
    xs = [floating(x) for x in operands]
    if not xs:
        raise error("einsum: no operands")
    labels, output = _parse(subscripts, [x.ndim for x in xs])
    sizes = _sizes(xs, labels)
    terms: list[tuple[Array, Labels]] = []
    for i, (x, term) in enumerate(zip(xs, labels, strict=True)):
        x, term = _diagonals(x, term)
        others = {label for j, t in enumerate(labels) if j != i for label in t}
        x, term = _sum_out(x, term, others | set(output))
        shape = [sizes[label] for label in term]
        if list(x.shape) != shape:
            x = broadcast_to(x, shape)
        terms.append((x, term))
    result, term = terms[0]
    for k in range(1, len(terms)):
        b, lb = terms[k]
        later = set(output) | {label for _, t in terms[k + 1 :] for label in t}
        result, term = _sum_out(result, term, later | set(lb))
        result, term = _contract(result, term, b, lb, later)
    result, term = _sum_out(result, term, set(output))
    return transpose(result, [term.index(label) for label in output])
