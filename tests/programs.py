"""Random well-typed `grad` programs, and their meaning in float64.

`programs()` is a Hypothesis strategy for whole programs (MLIR text plus input
data) over the differentiable ops: elementwise math, `max` (ties only where
intended, `max %a, %a`), `where` on comparisons, casts and bitcasts f32 -> f32,
`detach`, reductions, broadcasts, reshapes, permutes and `dot`, in several
shapes, with literals, slots loaded as weights, dead ends through `i32` and
`i1`, rule-less ops off the path (`reduce mul`, `func.call`), several targets,
differentiation ops inside the program (second order), `grad.vjp` and
`grad.jvp`.

`Reference` gives a program's meaning in float64 NumPy, independently of
gradopt: its kernels are the float64 references of the op inventory
(`inventory.py`, which states them from the spec), and every differentiation
op is a fourth-order central finite difference of the program re-evaluated
with the target perturbed (`detach` results and values of dead ends held at
their base values, since no derivative passes through them). Nothing here
calls gradopt's rules, walks or interpreter.

The ops the generator chooses among come from the inventory too (see
`Builder`), so they follow the dialect; each vocabulary keeps the order it had
before there was an inventory, so that a derandomized run draws the programs
it drew then.

Programs are generated against their data: each op is evaluated as it is
added, so a domain is respected (`log2`, `sqrt` and `recip` only of values
bounded away from 0, `exp2` only of moderate values), every value stays
moderate, and no comparison, `max`, `reduce max` or cast to an integer is
near a tie or a step, where float32 and float64 could disagree or a finite
difference would straddle the step.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
from hypothesis import assume
from hypothesis import strategies as st
from inventory import (
    F32,
    I1,
    I32,
    INVENTORY,
    Derivative,
    Domain,
    Form,
    by_domain,
    entries,
    names,
)

Shape = tuple[int, ...]
FLOAT, INT, BOOL = F32, I32, I1

SHAPES: list[Shape] = [(), (2,), (3,), (6,), (1, 3), (2, 3), (3, 2), (2, 1, 3)]
"""Shapes of new inputs and literals (at most 6 elements: the reference
perturbs every element of a target in turn)."""

BOUND = 60.0
"""Largest magnitude of any f32 value of a generated program."""
DOMAIN = 0.2
"""`log2` and `sqrt` take values >= DOMAIN, `recip` values of magnitude >= it."""
MARGIN = 1e-4
"""Relative distance from a tie or a step, below which f32 and f64 might
take different branches."""
STEP = 1e-3
"""Finite-difference step, relative to the magnitude of the perturbed element."""
DIFFERENTIATION = tuple(names(entries(Form.DIFFERENTIATION)))
KINKED = set(names(e for e in INVENTORY.values() if e.kink))
"""Ops whose derivative jumps where their operands tie (`max`)."""
POSITIVE = set(names(e for e in INVENTORY.values() if e.domain is Domain.POSITIVE))
COMPARISONS = set(names(entries(Form.COMPARE)))
STOPS = set(names(entries(derivative=Derivative.STOPS)))
INTEGER_LITERALS = (1, 2, 3, -2, 5)
"""The i32 literals of the generated programs (a `-2` rules out the shifts)."""


@dataclass(frozen=True)
class Value:
    name: str
    shape: Shape
    dtype: str = FLOAT
    slot: bool = False

    @property
    def type(self) -> str:
        dims = "".join(f"{d}x" for d in self.shape)
        return f"{'memref' if self.slot else 'tensor'}<{dims}{self.dtype}>"

    @property
    def size(self) -> int:
        return int(np.prod(self.shape, dtype=np.int64))


@dataclass
class Op:
    kind: str
    results: tuple[Value, ...]
    operands: tuple[Value, ...] = ()
    attrs: dict[str, Any] = field(default_factory=dict[str, Any])


@dataclass
class Program:
    """A `@main` function (and helpers), its input data, and the values that
    the property tests build variants from."""

    inputs: list[Value]
    data: dict[str, np.ndarray]
    ops: list[Op]
    returns: list[Value]
    body: int
    """How many of `ops` come before the final differentiation op(s)."""
    info: dict[str, Any] = field(default_factory=dict[str, Any])

    @property
    def text(self) -> str:
        return render(self)

    def __repr__(self) -> str:
        """The MLIR text and the exact data (float32 values as Python floats),
        as Hypothesis shows a failing example."""
        data = "\n".join(
            f"  {v.name} = {self.data[v.name].tolist()}" for v in self.inputs
        )
        return f"Program:\n{self.text}data:\n{data}\n"

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        """What Hypothesis's pretty printer shows (it lists a dataclass's
        fields otherwise)."""
        printer.text(repr(self))

    @property
    def slots(self) -> list[np.ndarray]:
        return [self.data[v.name] for v in self.inputs if v.slot]

    @property
    def args(self) -> list[np.ndarray]:
        return [self.data[v.name] for v in self.inputs if not v.slot]

    def with_final(self, ops: Sequence[Op], returns: Sequence[Value]) -> Program:
        """The same body with other final ops and results."""
        return replace(self, ops=[*self.ops[: self.body], *ops], returns=list(returns))

    def with_special_data(self, seed: int) -> Program:
        """The same program on data where about a third of the elements are
        NaN, infinities, signed zeros, the largest or a subnormal float32
        (for properties of the bits, which have no float64 reference)."""
        rng = np.random.default_rng(seed)
        special = np.array(
            [np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-45, -3.4e38, 3.4e38],
            np.float32,
        )
        data = {}
        for name, values in self.data.items():
            mixed = np.array(values)
            chosen = rng.random(mixed.shape) < 0.35
            mixed[chosen] = rng.choice(special, size=mixed.shape)[chosen]
            data[name] = mixed
        return replace(self, data=data, info={**self.info, "reference": None})

    def expected(self) -> list[np.ndarray]:
        """The float64 reference values of the results (the example is
        rejected if a finite difference would straddle a step)."""
        reference = self.info.get("reference")
        if reference is None or reference.ops is not self.ops:
            reference = Reference(self.data, self.ops)
        try:
            with np.errstate(all="ignore"):
                env = reference.run()
        except Reject:
            assume(False)
            raise
        return [env[v.name] for v in self.returns]


# --- MLIR text ----------------------------------------------------------------


def _float(value: float) -> str:
    """A float32 value as text that reads back as exactly that value."""
    return repr(float(np.float32(value)))


def _literal(value: object, dtype: str) -> str:
    if dtype == FLOAT:
        return _float(float(value))  # type: ignore[arg-type]
    if dtype == BOOL:
        return "true" if value else "false"
    return str(int(value))  # type: ignore[call-overload]


def _dense(array: np.ndarray, dtype: str) -> str:
    def nested(a: np.ndarray) -> str:
        if a.ndim == 0:
            return _literal(a[()], dtype)
        return "[" + ", ".join(nested(x) for x in a) + "]"

    return f"dense<{nested(array)}>"


def _ints(values: Sequence[int]) -> str:
    return "[" + ", ".join(str(v) for v in values) + "]"


def helper_name(shape: Shape) -> str:
    return "helper_" + ("x".join(map(str, shape)) or "scalar")


def render_op(op: Op) -> list[str]:
    r = op.results
    o = [f"%{v.name}" for v in op.operands]
    k, a = op.kind, op.attrs
    lhs = ", ".join(f"%{v.name}" for v in r)
    entry = INVENTORY.get(k)
    form = entry.form if entry is not None else None
    if form is Form.CONST:
        value = a["value"]
        if isinstance(value, np.ndarray):
            return [f"{lhs} = grad.const {_dense(value, r[0].dtype)} : {r[0].type}"]
        return [f"{lhs} = grad.const {_literal(value, r[0].dtype)} : {r[0].type}"]
    if form is Form.ELEMENTWISE:
        return [f"{lhs} = grad.{k} {', '.join(o)} : {r[0].type}"]
    if form is Form.COMPARE:
        return [f"{lhs} = grad.{k} {o[0]}, {o[1]} : {op.operands[0].type}"]
    if form is Form.WHERE:
        return [f"{lhs} = grad.where {o[0]}, {o[1]}, {o[2]} : {r[0].type}"]
    if form in (Form.CONVERSION, Form.RESHAPE):
        return [f"{lhs} = grad.{k} {o[0]} : {op.operands[0].type} to {r[0].type}"]
    if entry is not None and form in (Form.REDUCE, Form.LIST):
        kind = f"{a['kind']} " if form is Form.REDUCE else ""
        ints = " ".join(_ints(a[name]) for name in entry.lists)
        return [
            f"{lhs} = grad.{k} {kind}{o[0]} {ints} : {op.operands[0].type} to "
            f"{r[0].type}"
        ]
    if form is Form.DOT:
        x, y = op.operands
        return [f"{lhs} = grad.dot {o[0]}, {o[1]} : {x.type}, {y.type} to {r[0].type}"]
    if form is Form.LOAD:
        slot = op.operands[0]
        if "index" not in a:
            return [f"{lhs} = grad.load {o[0]} : {slot.type}"]
        index = f"%{r[0].name}_i"
        return [
            f"{index} = arith.constant {a['index']} : index",
            f"{lhs} = grad.load {o[0]}[{index}] : {slot.type}",
        ]
    if k == "call":
        t = r[0].type
        return [f"{lhs} = func.call @{helper_name(r[0].shape)}({o[0]}) : ({t}) -> {t}"]
    if k == "gradient":
        types = ", ".join(v.type for v in op.operands)
        return [f"{lhs} = grad.gradient {o[0]} wrt {', '.join(o[1:])} : {types}"]
    if k == "vjp":
        types = ", ".join(v.type for v in (op.operands[0], *op.operands[2:]))
        return [f"{lhs} = grad.vjp {o[0]}, {o[1]} wrt {', '.join(o[2:])} : {types}"]
    if k == "jvp":
        types = f"{op.operands[0].type}, {op.operands[1].type}"
        return [f"{lhs} = grad.jvp {o[0]} wrt {o[1]}, {o[2]} : {types}"]
    raise AssertionError(f"unknown kind {k}")


def render(program: Program) -> str:
    params = ", ".join(f"%{v.name}: {v.type}" for v in program.inputs)
    types = [v.type for v in program.returns]
    arrow = "" if not types else f" -> ({', '.join(types)})"
    lines = [f"func.func @main({params}){arrow} {{"]
    for op in program.ops:
        lines += ["  " + line for line in render_op(op)]
    names = ", ".join(f"%{v.name}" for v in program.returns)
    lines.append(
        f"  func.return {names} : {', '.join(types)}" if types else "  func.return"
    )
    lines.append("}")
    shapes = sorted({op.results[0].shape for op in program.ops if op.kind == "call"})
    for shape in shapes:
        t = Value("a", shape).type
        lines += [
            "",
            f"func.func @{helper_name(shape)}(%a: {t}) -> {t} {{",
            f"  %square = grad.mul %a, %a : {t}",
            f"  %r = grad.sin %square : {t}",
            f"  func.return %r : {t}",
            "}",
        ]
    return "\n".join(lines) + "\n"


# --- the float64 reference ----------------------------------------------------


class Reject(Exception):
    """The data is too close to a tie or a step for a float64 reference."""


def _axes(shape: Shape) -> tuple[int, ...]:
    return tuple(range(len(shape)))


KERNELS: dict[str, Callable[..., np.ndarray]] = {
    **{
        name: reference
        for name, entry in INVENTORY.items()
        if (reference := entry.reference) is not None
    },
    "call": lambda op, a: np.sin(a * a),  # the helper functions of `render`
}
"""The float64 meaning of each kind of op, given the op and its operands."""


def _held(op: Op, result: Value) -> bool:
    """Values that no derivative passes through: they keep their base value
    when a target is perturbed."""
    return op.kind in STOPS or result.dtype != FLOAT


def _close(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Where a and b differ, but by less than the margin."""
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    gap = np.abs(a - b)
    return (gap > 0) & (gap < MARGIN * (1 + np.abs(a) + np.abs(b)))


def _stencil(f: Callable[[float], np.ndarray], h: float) -> np.ndarray:
    """Fourth-order central difference of f at 0 with step h."""
    return (f(-2 * h) - 8 * f(-h) + 8 * f(h) - f(2 * h)) / (12 * h)


class Reference:
    """The values of a program in float64, differentiation ops by finite
    differences. `step(i)` evaluates op i at the base point (ops are added
    one at a time by the generator); `evaluate` re-runs a prefix with some
    values replaced, for a finite difference."""

    def __init__(self, data: dict[str, np.ndarray], ops: list[Op]):
        self.data = data
        self.ops = ops
        self.env: dict[str, np.ndarray] = {}
        self.held: dict[str, np.ndarray] = {}
        self.decisions: dict[str, np.ndarray] = {}
        self.done = 0

    def _inputs(self, overrides: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        env = {}
        for name, value in self.data.items():
            dtype = np.float64 if value.dtype == np.float32 else None
            env[name] = overrides.get(name, np.asarray(value, dtype))
        return env

    def run(self) -> dict[str, np.ndarray]:
        while self.done < len(self.ops):
            self.step(self.done)
        return self.env

    def step(self, index: int) -> None:
        """Evaluate op `index` at the base point (all earlier ops are done)."""
        assert index == self.done
        if not self.env:
            self.env = self._inputs({})
        self._compute(index, self.env, {}, base=True)
        self.done += 1

    def undo(self) -> None:
        """Forget the last op (the generator dropped it)."""
        self.done -= 1
        for result in self.ops[self.done].results:
            self.env.pop(result.name, None)

    def evaluate(self, stop: int, overrides: dict[str, np.ndarray]) -> dict:
        env = self._inputs(overrides)
        for index in range(stop):
            self._compute(index, env, overrides, base=False)
        return env

    def _compute(
        self, index: int, env: dict, overrides: dict[str, np.ndarray], base: bool
    ) -> None:
        op = self.ops[index]
        if not base and all(r.name in self.held for r in op.results):
            for r in op.results:
                env[r.name] = overrides.get(r.name, self.held[r.name])
            return
        args = [env[v.name] for v in op.operands]
        if op.kind in DIFFERENTIATION:
            values = self._derivative(index, op, env, overrides)
        else:
            values = [KERNELS[op.kind](op, *args)]
        self._check(op, args, values[0], base)
        for result, value in zip(op.results, values, strict=True):
            if base and _held(op, result):
                self.held[result.name] = value
            env[result.name] = overrides.get(result.name, value)

    def _check(self, op: Op, args: list, value: np.ndarray, base: bool) -> None:
        k = op.kind
        if k in KINKED or (k == "reduce" and op.attrs["kind"] == "max"):
            if k in KINKED:
                decision = np.sign(args[0] - args[1])
                near = _close(args[0], args[1])
            else:
                spread = _broadcast_back(op, value)
                decision = args[0] == spread
                near = _close(args[0], spread)
            if op.results[0].dtype == FLOAT:
                name = op.results[0].name
                if base:
                    if near.any():
                        raise Reject(f"near tie in {name}")
                    self.decisions[name] = decision
                elif not np.array_equal(decision, self.decisions[name]):
                    raise Reject(f"a finite difference crosses a kink of {name}")
        if not base:
            if k in POSITIVE and np.min(args[0]) <= 0:
                raise Reject("out of domain")
            return
        compared = k in COMPARISONS and op.operands[0].dtype == FLOAT
        if compared and _close(args[0], args[1]).any():
            raise Reject("near tie in a comparison")
        if k == "cast" and op.operands[0].dtype == FLOAT:
            a = np.asarray(args[0], np.float64)
            if op.results[0].dtype == BOOL:  # one step, at 0
                near = (a != 0) & (np.abs(a) < MARGIN)
            elif op.results[0].dtype == INT:  # trunc steps at each nonzero integer
                nearest = np.round(a)
                near = _close(a, np.where(nearest == 0, np.sign(a), nearest))
            else:
                near = np.zeros(a.shape, bool)
            if near.any():
                raise Reject("near a step of a cast")
        if op.results[0].dtype == FLOAT and not np.all(np.isfinite(value)):
            raise Reject("not finite")

    def _derivative(
        self, index: int, op: Op, env: dict, overrides: dict[str, np.ndarray]
    ) -> list[np.ndarray]:
        """A differentiation op by finite differences of the prefix before it."""
        if op.kind == "jvp":
            y, x, tx = op.operands
            direction, at = env[tx.name], env[x.name]

            def along(s: float) -> np.ndarray:
                moved = {**overrides, x.name: at + s * direction}
                return self.evaluate(index, moved)[y.name]

            return [_stencil(along, STEP)]
        loss = op.operands[0]
        if op.kind == "vjp":
            weight, targets = env[op.operands[1].name], op.operands[2:]
        else:
            weight, targets = np.float64(1.0), op.operands[1:]
        gradients = []
        for target in targets:
            at = np.asarray(env[target.name], np.float64)
            gradient = np.zeros(target.shape)
            for position in np.ndindex(*target.shape):
                h = STEP * max(1.0, abs(float(at[position])))
                moved = self._mover(index, overrides, target, at, position)
                gradient[position] = _stencil(
                    lambda s, moved=moved: np.sum(moved(s)[loss.name] * weight), h
                )
            gradients.append(gradient)
        return gradients

    def _mover(
        self,
        index: int,
        overrides: dict[str, np.ndarray],
        target: Value,
        at: np.ndarray,
        position: tuple[int, ...],
    ) -> Callable[[float], dict[str, np.ndarray]]:
        """The prefix before op `index`, as a function of one element of
        `target` moved from its value `at` by s."""

        def moved(s: float) -> dict[str, np.ndarray]:
            x = at.copy()
            x[position] += s
            return self.evaluate(index, {**overrides, target.name: x})

        return moved


def _broadcast_back(op: Op, reduced: np.ndarray) -> np.ndarray:
    """A reduction's result broadcast back over its reduced axes."""
    shape = op.operands[0].shape
    return np.broadcast_to(np.expand_dims(reduced, tuple(op.attrs["axes"])), shape)


# --- the generator ------------------------------------------------------------


_F32_BINARY = entries(
    Form.ELEMENTWISE, arity=2, accepts=F32, derivative=Derivative.RULES
)
_F32_COMPARISONS = entries(Form.COMPARE, accepts=F32)


class Builder:
    """Adds ops one at a time, each evaluated at once against the data, and
    keeps what the choices need: the f32 values, which are literals, and which
    may not be targets.

    The vocabularies of its choices are the inventory's ops with the facts a
    choice needs, so a new op of those facts is generated without a change
    here; their order and weights are the generator's own."""

    UNARY = names(
        by_domain(
            entries(Form.ELEMENTWISE, arity=1, accepts=F32, derivative=Derivative.RULES)
        )
    )
    """The differentiable f32 ops of one operand, least restricted first."""
    BINARY = names(_F32_BINARY) + names(e for e in _F32_BINARY if not e.kink)
    """The differentiable f32 ops of two operands, the smooth ones twice as
    often as those with a kink (`max`: its near ties are rejected, and `tie`
    makes ties on purpose)."""
    COMPARISONS = names(e for e in _F32_COMPARISONS if not e.commutative) + names(
        _F32_COMPARISONS
    )
    """The f32 comparisons, the orderings (not commutative) twice as often:
    random data is seldom equal, so equality is nearly constant."""
    LOGICAL = names(entries(Form.ELEMENTWISE, arity=2, accepts=I1))
    """The ops that combine two conditions."""
    CONVERSIONS = names(entries(Form.CONVERSION))
    INTEGER = names(
        e
        for e in entries(Form.ELEMENTWISE, accepts=I32)
        if not e.accepts(I1) and e.domain.admits(INTEGER_LITERALS)
    )
    """The i32 arithmetic of a dead end: the elementwise i32 ops that do not
    also take i1 (the bitwise ops and `detach` do) and take any of the
    literals as their last operand."""

    def __init__(self, draw: Callable[[st.SearchStrategy[Any]], Any], seed: int):
        self.draw = draw
        self.rng = np.random.default_rng(seed)
        self.inputs: list[Value] = []
        self.data: dict[str, np.ndarray] = {}
        self.ops: list[Op] = []
        self.reference = Reference(self.data, self.ops)
        self.pool: list[Value] = []
        self.literals: set[str] = set()
        self.not_targets: set[str] = set()
        self.twin_targets = False
        """Whether a value with a twin may be a target (rule 6 refuses it)."""
        self.counter = itertools.count()

    # naming, values, choices

    def value(self, v: Value) -> np.ndarray:
        return self.reference.env[v.name]

    def new(self, shape: Shape, dtype: str = FLOAT) -> Value:
        return Value(f"v{next(self.counter)}", tuple(shape), dtype)

    def choose(self, options: Sequence[Any]) -> Any:
        return self.draw(st.sampled_from(list(options)))

    def flag(self, p: float = 0.5) -> bool:
        return self.draw(st.integers(0, 99)) < p * 100

    def pick(self, shape: Shape | None = None, rank: int | None = None) -> Value | None:
        """A value of the pool, recent ones first (they shrink to the last)."""
        candidates = [
            v
            for v in self.pool
            if (shape is None or v.shape == shape)
            and (rank is None or len(v.shape) >= rank)
        ]
        if not candidates:
            return None
        return candidates[-1 - self.draw(st.integers(0, len(candidates) - 1))]

    # adding inputs and ops

    def argument(self, shape: Shape, slot: bool = False, low: float = -1.5) -> Value:
        prefix = "s" if slot else "a"
        count = sum(v.slot == slot for v in self.inputs)
        v = Value(f"{prefix}{count}", tuple(shape), FLOAT, slot)
        self.inputs.append(v)
        data = self.rng.uniform(low, -low, size=shape).astype(np.float32)
        self.data[v.name] = np.asarray(data, np.float32)
        self.reference.env[v.name] = np.asarray(data, np.float64)
        return v

    def emit(
        self,
        kind: str,
        operands: Sequence[Value],
        results: Sequence[Value],
        /,
        evaluate: bool = True,
        **attrs: Any,
    ) -> Op | None:
        """Add an op, evaluated at the base point; drop it (and return None)
        if it is near a tie or a step, or a value is not moderate."""
        op = Op(kind, tuple(results), tuple(operands), attrs)
        self.ops.append(op)
        if not evaluate:
            return op
        try:
            with np.errstate(all="ignore"):
                self.reference.step(len(self.ops) - 1)
        except Reject:
            self.ops.pop()
            self.reference.done = len(self.ops)
            return None
        if any(
            r.dtype == FLOAT and not np.all(np.abs(self.value(r)) <= BOUND)
            for r in op.results
        ):
            self.reference.undo()
            self.ops.pop()
            return None
        return op

    def op(
        self, kind: str, operands: Sequence[Value], shape: Shape, /, **attrs: Any
    ) -> Value | None:
        """An f32 op of one result, added to the pool; None if dropped."""
        result = self.new(shape)
        if self.emit(kind, operands, [result], **attrs) is None:
            return None
        self.pool.append(result)
        return result

    def literal(self, shape: Shape, dtype: str = FLOAT) -> Value:
        result = self.new(shape, dtype)
        if dtype == FLOAT and shape and self.flag(0.4):
            value: object = self.rng.uniform(-2, 2, size=shape).astype(np.float32)
        elif dtype == FLOAT:
            value = self.choose([0.5, -1.0, 2.0, 0.25, 1.5, -0.75, 3.0])
        else:
            value = self.choose(INTEGER_LITERALS)
        op = self.emit("const", [], [result], value=value)
        assert op is not None
        if dtype == FLOAT:
            self.pool.append(result)
            self.literals.add(result.name)
        return result

    # shape adaptors: always give a value

    def scalar(self, v: Value) -> Value:
        if not v.shape:
            return v
        axes = list(_axes(v.shape))
        for kind in self.choose([("add", "max"), ("max", "add")]):
            result = self.op("reduce", [v], (), kind=kind, axes=axes)
            if result is not None:
                return result
        return self.literal(())

    def coerce(self, v: Value, shape: Shape) -> Value:
        """`v` made into `shape`: itself, broadcast, reshaped or reduced."""
        if v.shape == shape:
            return v
        if v.size == int(np.prod(shape, dtype=np.int64)):
            result = self.op("reshape", [v], shape)
        else:
            s = self.scalar(v)
            result = self.op("broadcast", [s], shape, dims=[])
        return result if result is not None else self.literal(shape)

    def operand_like(self, a: Value) -> Value:
        other = self.pick(a.shape)
        if other is None or self.flag(0.3):
            source = self.pick()
            assert source is not None
            other = self.coerce(source, a.shape)
        return other

    def positive(self, v: Value) -> Value:
        """A value of v's shape in [DOMAIN, BOUND], computed from v."""
        if self.flag() and np.max(np.abs(self.value(v))) <= 7:
            square = self.op("mul", [v, v], v.shape)
            if square is not None:
                lifted = self.op("add", [square, self.literal(v.shape)], v.shape)
                if lifted is not None and np.min(self.value(lifted)) >= DOMAIN:
                    return lifted
        sine = self.op("sin", [v], v.shape)
        assert sine is not None
        lifted = self.op("exp2", [sine], v.shape)
        assert lifted is not None
        return lifted

    # actions: each adds some ops (or none, if its choice does not fit)

    def twin(self) -> None:
        """A copy of an earlier pure op of one f32 result (same kind, operands
        and attributes): what `cse` merges. Only with `programs(twins=True)`."""
        pure = [
            op
            for op in self.ops
            if op.kind not in ("load", "call", "const", *DIFFERENTIATION)
            and len(op.results) == 1
            and op.results[0].dtype == FLOAT
        ]
        if not pure:
            return
        original = self.choose(pure)
        self.op(
            original.kind,
            list(original.operands),
            original.results[0].shape,
            **original.attrs,
        )

    def unary(self) -> None:
        v = self.pick()
        assert v is not None
        kind = self.choose(self.UNARY)
        values, domain = self.value(v), INVENTORY[kind].domain
        if domain is Domain.NONZERO and np.min(np.abs(values)) < DOMAIN:
            v = self.positive(v)
        if domain is Domain.POSITIVE and np.min(values) < DOMAIN:
            v = self.positive(v)
        if domain is Domain.MODERATE and np.max(values) > 4:
            v = self.op("sin", [v], v.shape) or v
        self.op(kind, [v], v.shape)

    def binary(self) -> None:
        a = self.pick()
        assert a is not None
        b = self.operand_like(a)
        kind = self.choose(self.BINARY)
        operands = [a, b] if self.flag() else [b, a]
        if self.op(kind, operands, a.shape) is None:
            self.op("add", operands, a.shape)

    def tie(self) -> None:
        a = self.pick()
        assert a is not None
        self.op("max", [a, a], a.shape)

    def condition(self, shape: Shape) -> Value | None:
        p = self.pick(shape) or self.literal(shape)
        q = self.operand_like(p) if self.flag(0.7) else self.literal(shape)
        kind = self.choose(self.COMPARISONS)
        c = self.new(shape, BOOL)
        if self.emit(kind, [p, q], [c]) is None:
            return None
        if self.flag(0.25):
            d = self.new(shape, BOOL)
            if self.emit("cmplt", [q, p], [d]) is not None:
                e = self.new(shape, BOOL)
                kind = self.choose(self.LOGICAL)
                if self.emit(kind, [c, d], [e]) is not None:
                    return e
        return c

    def where(self) -> None:
        a = self.pick()
        assert a is not None
        b = self.operand_like(a)
        c = self.condition(a.shape)
        if c is not None:
            self.op("where", [c, a, b] if self.flag() else [c, b, a], a.shape)

    def conversion(self) -> None:
        v = self.pick()
        assert v is not None
        self.op(self.choose(self.CONVERSIONS), [v], v.shape)

    def detach(self) -> None:
        v = self.pick()
        assert v is not None
        self.op("detach", [v], v.shape)

    def dead_end(self) -> None:
        """A route through i32 or i1 and back: it sends no gradient."""
        v = self.pick()
        assert v is not None
        route = self.choose(["cast", "cast", "bitcast", "i1"])
        if route == "bitcast":
            bits = self.new(v.shape, INT)
            if self.emit("bitcast", [v], [bits]) is None:
                return
            back = self.op("bitcast", [bits], v.shape)
        else:
            middle = self.new(v.shape, BOOL if route == "i1" else INT)
            if self.emit("cast", [v], [middle]) is None:
                return
            if route == "cast" and self.flag(0.6):
                kind = self.choose(self.INTEGER)
                other = middle if kind in ("add", "max") else self.literal(v.shape, INT)
                changed = self.new(v.shape, INT)
                operands = [middle] if INVENTORY[kind].arity == 1 else [middle, other]
                if self.emit(kind, operands, [changed]) is not None:
                    middle = changed
            back = self.op("cast", [middle], v.shape)
        if back is not None and self.flag():
            other = self.pick(v.shape)
            assert other is not None
            self.op(self.choose(["mul", "add"]), [back, other], v.shape)

    def reduce(self) -> None:
        v = self.pick(rank=1)
        if v is None:
            return
        mask = self.draw(
            st.lists(st.booleans(), min_size=len(v.shape), max_size=len(v.shape))
        )
        axes = [i for i, keep in enumerate(mask) if keep] or [len(v.shape) - 1]
        shape = tuple(d for i, d in enumerate(v.shape) if i not in axes)
        kind = self.choose(["add", "max"])
        self.op("reduce", [v], shape, kind=kind, axes=axes)

    def broadcast(self) -> None:
        v = self.pick()
        assert v is not None
        options = [
            (shape, list(dims))
            for shape in SHAPES
            for dims in itertools.combinations(range(len(shape)), len(v.shape))
            if all(s in (1, shape[d]) for s, d in zip(v.shape, dims, strict=True))
        ]
        if options:
            shape, dims = self.choose(options)
            self.op("broadcast", [v], shape, dims=dims)

    def reshape(self) -> None:
        v = self.pick()
        assert v is not None
        shapes = [s for s in SHAPES if int(np.prod(s, dtype=np.int64)) == v.size]
        self.op("reshape", [v], self.choose(shapes or [v.shape]))

    def permute(self) -> None:
        v = self.pick(rank=2)
        if v is None:
            return
        perm = self.draw(st.permutations(range(len(v.shape))))
        self.op("permute", [v], tuple(v.shape[p] for p in perm), perm=list(perm))

    def dot(self) -> None:
        a = self.pick(rank=2)
        if a is None or len(a.shape) != 2 or self.flag(0.3):
            source = self.pick()
            assert source is not None
            a = self.coerce(source, self.choose([(2, 3), (3, 2), (1, 3), (2, 2)]))
        m, k = a.shape
        rhs = [v for v in self.pool if len(v.shape) == 2 and v.shape[0] == k]
        if rhs and self.flag(0.7):
            b = rhs[-1 - self.draw(st.integers(0, len(rhs) - 1))]
        elif self.flag():
            b = self.literal((k, self.choose([1, 2, 3])))
        else:
            b = self.argument((k, self.choose([1, 2, 3])))
            self.pool.append(b)
        operands = [a, b]
        if self.flag(0.3):  # b^T a^T, through permutes
            at = self.op("permute", [a], (k, m), perm=[1, 0])
            bt = self.op("permute", [b], (b.shape[1], k), perm=[1, 0])
            if at is None or bt is None:
                return
            operands = [bt, at]
        self.op("dot", operands, (operands[0].shape[0], operands[1].shape[1]))

    def constant(self) -> None:
        self.literal(self.choose(SHAPES))

    def input(self) -> None:
        self.pool.append(self.argument(self.choose(SHAPES)))

    def load(self) -> None:
        shape = self.choose([s for s in SHAPES if s])
        slot = self.argument(shape, slot=True)
        if self.flag(0.3):
            index = self.draw(st.integers(0, shape[0] - 1))
            self.op("load", [slot], shape[1:], index=index)
        else:
            self.op("load", [slot], shape)

    def off_path(self) -> None:
        """`reduce mul` or `func.call` (no gradient rule) of data that no
        target reaches: a detached value or an input kept from targets."""
        if self.flag():
            v = self.pick()
            assert v is not None
            source = self.op("detach", [v], v.shape)
        else:
            source = self.argument(self.choose(SHAPES[1:]), low=-1.2)
        if source is None:
            return
        self.not_targets.add(source.name)
        if self.flag() and source.shape:
            self.op("reduce", [source], (), kind="mul", axes=list(_axes(source.shape)))
        else:
            self.op("call", [source], source.shape)

    # differentiation

    def ancestors(self, root: Value) -> set[str]:
        """The values root depends on (all SSA edges), and root."""
        before = {root.name}
        for op in reversed(self.ops):
            if any(r.name in before for r in op.results):
                before.update(o.name for o in op.operands)
        return before

    def twinned(self) -> set[str]:
        """The values that have a structurally equal twin (SPEC §4 rule 6):
        another result of an op of the same kind, attributes and types whose
        operands are the same values or twins. Such a value is never a target
        (the program would be invalid); loads and calls are never merged."""
        keys: dict[str, object] = {}
        names: dict[object, list[str]] = {}
        for op in self.ops:
            operands = tuple(keys.get(o.name, o.name) for o in op.operands)
            attrs = repr(
                sorted(
                    (k, v.tobytes() if isinstance(v, np.ndarray) else v)
                    for k, v in op.attrs.items()
                )
            )
            for i, r in enumerate(op.results):
                key: object = r.name
                if op.kind not in ("load", "call"):
                    types = tuple(o.type for o in op.operands)
                    key = (op.kind, attrs, operands, types, i, r.type)
                keys[r.name] = key
                names.setdefault(key, []).append(r.name)
        return {n for group in names.values() if len(group) > 1 for n in group}

    def targets(
        self, count: int, root: Value | None = None, exclude: Sequence[Value] = ()
    ) -> list[Value]:
        """Up to `count` values that may be targets, most of them values that
        `root` depends on; none with a twin unless `twin_targets`."""
        twinned = set() if self.twin_targets else self.twinned()
        values = [
            v
            for v in [*self.inputs, *(r for op in self.ops for r in op.results)]
            if v.dtype == FLOAT
            and not v.slot
            and v.name not in self.literals
            and v.name not in self.not_targets
            and v.name not in twinned
            and v not in exclude
        ]
        upstream = self.ancestors(root) if root is not None else set()
        chosen: list[Value] = []
        for _ in range(count):
            rest = [v for v in values if v not in chosen]
            related = [v for v in rest if v.name in upstream]
            if related and self.flag(0.85):
                rest = related
            if not rest:
                break
            chosen.append(rest[-1 - self.draw(st.integers(0, len(rest) - 1))])
        return chosen

    def output(self) -> Value:
        """A value that nothing uses yet, or any value."""
        used = {o.name for op in self.ops for o in op.operands}
        leaves = [v for v in self.pool if v.name not in used]
        if leaves and self.flag(0.8):
            return leaves[-1 - self.draw(st.integers(0, len(leaves) - 1))]
        v = self.pick()
        assert v is not None
        return v

    def loss(self) -> Value:
        """A scalar built from one to three values, mostly ones that nothing
        uses yet (so the loss depends on much of the program)."""
        used = {o.name for op in self.ops for o in op.operands}
        leaves = [v for v in self.pool if v.name not in used]
        parts = []
        for _ in range(self.draw(st.integers(1, 3))):
            if leaves and self.flag(0.8):
                v = leaves.pop(-1 - self.draw(st.integers(0, len(leaves) - 1)))
            else:
                v = self.pick() or self.literal(())
            parts.append(self.scalar(v))
        total = parts[0]
        for part in parts[1:]:
            total = self.op("add", [total, part], ()) or total
        return total

    def interior(self, sources: Sequence[Value], root: Value) -> set[str]:
        """Values strictly after a source on a route to root (all SSA edges).

        Later ops do not take them as targets: the expansion of a derivative
        of root reads them, while the reference computes that derivative by
        moving the source and re-evaluating them."""
        before = self.ancestors(root)
        inside: set[str] = set()
        for source in sources:
            after = {source.name}
            for op in self.ops:
                if any(o.name in after for o in op.operands):
                    after.update(r.name for r in op.results)
            inside |= (after & before) - {source.name}
        return inside

    def inner(self) -> None:
        """A differentiation op inside the program: what follows may use its
        results, so a later differentiation op differentiates through it, or
        with respect to them. Two reverse-mode ops may have one loss (they
        share one walk)."""
        kind = self.choose(DIFFERENTIATION)
        if kind == "jvp":
            y = self.pick()
            targets = self.targets(1, y)
            if y is None or not targets:
                return
            (x,) = targets
            tangent = self.argument(x.shape, low=-1.0)
            self.not_targets.add(tangent.name)
            result = self.new(y.shape)
            if self.emit("jvp", [y, x, tangent], [result]) is not None:
                self.pool.append(result)
                self.not_targets |= self.interior([x], y)
            return
        if kind == "vjp":
            y = self.pick()
            assert y is not None
            cotangent = self.argument(y.shape, low=-1.0)
            self.not_targets.add(cotangent.name)
            head = [y, cotangent]
        else:
            y = self.loss()
            head = [y]
        targets = self.targets(self.draw(st.integers(1, 2)), y)
        if not targets:
            return
        results = [self.new(t.shape) for t in targets]
        if self.emit(kind, [*head, *targets], results) is not None:
            self.pool.extend(results)
            self.not_targets |= self.interior(targets, y)

    ACTIONS: tuple[str, ...] = (
        "unary", "unary", "unary", "binary", "binary", "binary", "binary", "tie",
        "where", "conversion", "detach", "dead_end", "reduce", "reduce",
        "broadcast", "reshape", "permute", "dot", "dot", "constant", "input",
        "load", "off_path",
    )  # fmt: skip

    def body(self, steps: int, inner: int, twins: bool = False) -> None:
        for _ in range(self.draw(st.integers(1, 2))):
            self.pool.append(self.argument(self.choose(SHAPES)))
        if self.flag(0.3):
            self.load()
        actions = list(self.ACTIONS) + ["inner"] * (3 * inner)
        actions += ["twin"] * (4 if twins else 0)
        budget = inner
        for _ in range(self.draw(st.integers(min(4, steps), steps))):
            action = self.choose(actions)
            if action == "inner":
                if budget == 0:
                    continue
                budget -= 1
            getattr(self, action)()

    def program(self, returns: Sequence[Value], body: int, **info: Any) -> Program:
        info["reference"] = self.reference
        return Program(self.inputs, self.data, self.ops, list(returns), body, info)


@st.composite
def programs(
    draw: st.DrawFn,
    final: str = "gradient",
    inner: int = 1,
    steps: int = 14,
    targets: tuple[int, int] = (1, 3),
    twins: bool = False,
) -> Program:
    """A program whose `@main` returns the results of its final op(s):

    - "gradient": `grad.gradient` of a scalar loss w.r.t. `targets` (a range)
      targets, returning the loss and the gradients;
    - "vjp": `grad.vjp` of a value with a cotangent argument;
    - "jvp": `grad.jvp` of a value along a tangent argument;
    - "jvp_gradient": both `grad.jvp` and `grad.gradient` of one scalar loss
      w.r.t. one target.

    Up to `inner` differentiation ops come before, inside the body, so the
    final op may differentiate through them (second order). With `twins`, the
    body also copies earlier ops (equal ops that `cse` merges), and a target
    may be one of them: such a program is invalid (SPEC §4 rule 6), and the
    caller tells them apart. Otherwise no target has a twin."""
    builder = Builder(draw, draw(st.integers(0, 2**32 - 1)))
    b = builder
    b.twin_targets = twins
    b.body(steps, inner, twins)
    if final == "vjp":
        y = b.output()
        cotangent = b.argument(y.shape, low=-1.0)
        chosen = b.targets(draw(st.integers(*targets)), y, exclude=[cotangent])
        results = [b.new(t.shape) for t in chosen]
        body = len(b.ops)
        b.emit("vjp", [y, cotangent, *chosen], results, evaluate=False)
        return b.program(results, body, y=y, cotangent=cotangent, targets=chosen)
    loss = b.loss()
    if final == "gradient":
        chosen = b.targets(draw(st.integers(*targets)), loss)
        results = [b.new(t.shape) for t in chosen]
        body = len(b.ops)
        b.emit("gradient", [loss, *chosen], results, evaluate=False)
        return b.program([loss, *results], body, loss=loss, targets=chosen)
    y = loss if final == "jvp_gradient" else b.output()
    (x,) = b.targets(1, y) or [b.argument(())]
    tangent = b.argument(x.shape, low=-1.0)
    body = len(b.ops)
    derivative = b.new(y.shape)
    b.emit("jvp", [y, x, tangent], [derivative], evaluate=False)
    returns = [derivative]
    if final == "jvp_gradient":
        gradient = b.new(x.shape)
        b.emit("gradient", [loss, x], [gradient], evaluate=False)
        returns.append(gradient)
    return b.program(returns, body, y=y, target=x, tangent=tangent)
