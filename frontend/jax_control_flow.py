"""The rules of `from_jax` for JAX's control flow: `scan` (which `lax.scan`
and `fori_loop` with static bounds make), `while` (`lax.while_loop`, and
`fori_loop` with traced bounds) and `cond` (`lax.cond`, `lax.switch`), mapped
onto `gradopt.lax`'s own, so that a body stays one region (a `scf.for`,
`scf.while`, nested `scf.if`s) and is differentiated by gradopt's rules, in
reverse mode for `while` too, which JAX itself cannot do.

Each body is the equation's jaxpr, evaluated on the traced arrays of the
region by `from_jax`'s evaluator (given to `rules`), its constants read from
outside the region.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any

from gradopt.frontend import control_flow
from gradopt.frontend.array import INT32
from gradopt.frontend.lax_numpy import asarray, astype

Evaluate = Callable[[Any, Sequence[Any], Sequence[Any]], list[Any]]
"""Evaluates a jaxpr with its constants on arguments (`from_jax`'s)."""


PRIMITIVES = ("scan", "while", "cond")


def bodies(eqn: Any) -> Iterator[Any]:
    """The jaxprs of a control-flow equation (to check their primitives)."""
    if eqn.primitive.name not in PRIMITIVES:
        return
    for name in ("jaxpr", "cond_jaxpr", "body_jaxpr"):
        if (body := eqn.params.get(name)) is not None:
            yield body.jaxpr
    for branch in eqn.params.get("branches", ()):
        yield branch.jaxpr


def _calling(evaluate: Evaluate, closed: Any, *front: Sequence[Any]) -> Callable:
    """The closed jaxpr as a function of its arguments after `front`."""

    def call(*args: Any) -> list[Any]:
        inputs = [x for part in front for x in part] + list(args)
        return evaluate(closed.jaxpr, closed.consts, inputs)

    return call


def rules(evaluate: Evaluate) -> dict[str, Callable[..., Any]]:
    def scan(params: dict, *operands: Any) -> list[Any]:
        consts, rest = _split(operands, int(params["num_consts"]))
        carries, xs = _split(rest, int(params["num_carry"]))
        body = _calling(evaluate, params["jaxpr"], consts)

        def step(carry: list[Any], x: list[Any] | None) -> tuple[list, list]:
            outputs = body(*carry, *(x or []))
            return outputs[: len(carry)], outputs[len(carry) :]

        carry, ys = control_flow.scan(
            step,
            carries,
            xs or None,
            length=int(params["length"]),
            reverse=bool(params["reverse"]),
        )
        return [*carry, *ys]

    def while_(params: dict, *operands: Any) -> list[Any]:
        cond_consts, rest = _split(operands, int(params["cond_nconsts"]))
        body_consts, carries = _split(rest, int(params["body_nconsts"]))
        condition = _calling(evaluate, params["cond_jaxpr"], cond_consts)
        body = _calling(evaluate, params["body_jaxpr"], body_consts)
        return control_flow.while_loop(
            lambda c: condition(*c)[0], lambda c: body(*c), carries
        )

    def cond(params: dict, index: Any, *operands: Any) -> list[Any]:
        index = asarray(index)
        if index.dtype != INT32:
            index = astype(index, INT32)
        branches = [_calling(evaluate, b) for b in params["branches"]]
        return control_flow.switch(index, branches, *operands)

    return {"scan": scan, "while": while_, "cond": cond}


def _split(values: Sequence[Any], count: int) -> tuple[list[Any], list[Any]]:
    return list(values[:count]), list(values[count:])
