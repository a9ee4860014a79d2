"""`print-op-graph` and `-t dot`: Graphviz DOT of each function's data flow.

As MLIR's `--view-op-graph`, with what a user of gradopt wants to see: for each
differentiation op, the nodes on its path (SPEC §5.1, `path_between`) are
filled and the edges along which shares (reverse mode) or tangents (forward
mode) travel are labelled. Values are named as `grad-opt` prints them, so the
picture and the text read together:

    grad-opt f.mlir -t dot | dot -Tsvg -o f.svg
    grad-opt f.mlir -p print-op-graph{output=f.dot},expand-gradient

The pass leaves the module unchanged; without `output` it writes to standard
error (as MLIR's pass does), since standard output carries the module.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from io import StringIO
from typing import IO

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.dialects.func import FuncOp
from xdsl.ir import Block, Operation, OpResult, SSAValue
from xdsl.passes import ModulePass
from xdsl.printer import Printer
from xdsl.utils.target import Target

from gradopt.autodiff.walks import path_between
from gradopt.dialect.differentiation import DifferentiationOp, JvpOp
from gradopt.support.files import write_atomically

PATH_COLOURS = (
    ("lightblue", "steelblue"),
    ("palegreen", "forestgreen"),
    ("khaki", "darkgoldenrod"),
    ("lightpink", "crimson"),
    ("plum", "purple"),
)
"""Fill and edge colours of the paths of the differentiation ops of a
function, in program order."""


def _quote(text: str) -> str:
    """`text` as a DOT string: quotes escaped, newlines as DOT's `\\n`."""
    escaped = text.replace("\\", "\\\\").replace('"', '\\"')
    return '"' + escaped.replace("\n", "\\n") + '"'


NodeId = Callable[[object], str]


class _Names:
    """SSA names as the printer gives them (`%x`, `%0`): the module is printed
    once to assign them."""

    def __init__(self, module: ModuleOp):
        self._printer = Printer(stream=StringIO())
        self._printer.print_op(module)

    def __call__(self, value: SSAValue) -> str:
        return "%" + self._printer.print_ssa_value(value)


@dataclass
class _Paths:
    """For each differentiation op of a function: its path values, colour,
    and what travels along its edges."""

    op: DifferentiationOp
    path: set[SSAValue]
    colour: str
    edge_colour: str
    carries: str


def _functions(module: ModuleOp) -> Iterator[Operation]:
    """The functions of `module`, or the module itself if it has none."""
    functions = [op for op in module.walk() if isinstance(op, FuncOp)]
    yield from functions or [module]


def op_graph(module: ModuleOp) -> str:
    """DOT text of `module`: one cluster per function, a node per op and per
    block argument, an edge from each value to each use of it."""
    names = _Names(module)
    out = ["digraph gradopt {", "  node [fontname=monospace];"]
    counter = iter(range(1 << 62))
    ids: dict[object, str] = {}

    def node_id(thing: object) -> str:
        if thing not in ids:
            ids[thing] = f"n{next(counter)}"
        return ids[thing]

    for index, function in enumerate(_functions(module)):
        label = (
            f"@{function.sym_name.data}" if isinstance(function, FuncOp) else "module"
        )
        out.append(f"  subgraph cluster_{index} {{")
        out.append(f"    label={_quote(label)};")
        paths = [
            _Paths(
                op,
                path_between(op.root, op.differentiated)[1],
                *PATH_COLOURS[i % len(PATH_COLOURS)],
                "tangent" if isinstance(op, JvpOp) else "share",
            )
            for i, op in enumerate(
                o for o in function.walk() if isinstance(o, DifferentiationOp)
            )
        ]
        blocks = [b for r in function.regions for b in r.blocks]
        out += _nodes(blocks, names, node_id, paths)
        out += _edges(blocks, names, node_id, paths)
        out.append("  }")
    out.append("}")
    return "\n".join(out) + "\n"


def _owner(value: SSAValue) -> object:
    return value.op if isinstance(value, OpResult) else value


def _nodes(
    blocks: list[Block], names: _Names, node_id: NodeId, paths: list[_Paths]
) -> list[str]:
    lines = []
    for block in blocks:
        for arg in block.args:
            lines.append(_node(node_id(arg), f"{names(arg)}: {arg.type}", [arg], paths))
        for op in block.walk():
            if op.results:
                results = ", ".join(names(r) for r in op.results)
                types = ", ".join(str(r.type) for r in op.results)
                text = f"{results} = {op.name}\n{types}"
            else:
                text = op.name
            lines.append(_node(node_id(op), text, list(op.results), paths, op))
    return lines


def _node(
    id: str,
    label: str,
    values: list[SSAValue],
    paths: list[_Paths],
    op: Operation | None = None,
) -> str:
    attrs = [f"label={_quote(label)}"]
    attrs.append("shape=ellipse" if op is None else "shape=box")
    on = [p for p in paths if any(v in p.path for v in values)]
    if on:
        attrs += ["style=filled", f"fillcolor={on[0].colour}"]
    if any(v in p.op.differentiated for p in paths for v in values):
        attrs.append("peripheries=2")  # a target
    if op is not None and isinstance(op, DifferentiationOp):
        colour = next(p.colour for p in paths if p.op is op)
        attrs += ["style=filled", f"fillcolor={colour}", "penwidth=2"]
    return f"    {id} [{', '.join(attrs)}];"


def _edges(
    blocks: list[Block], names: _Names, node_id: NodeId, paths: list[_Paths]
) -> list[str]:
    lines = []
    for block in blocks:
        for op in block.walk():
            for index, operand in enumerate(op.operands):
                attrs = []
                if len(op.operands) > 1:
                    attrs.append(f"taillabel={index}")
                carriers = [
                    p
                    for p in paths
                    if operand in p.path
                    and any(r in p.path for r in op.results)
                    and not (isinstance(op, DifferentiationOp))
                ]
                if carriers:
                    label = ", ".join(
                        f"{p.carries} of {names(p.op.results[0])}" for p in carriers
                    )
                    attrs += [
                        f"label={_quote(label)}",
                        f"color={carriers[0].edge_colour}",
                        f"fontcolor={carriers[0].edge_colour}",
                        "penwidth=2",
                    ]
                edge = f"{node_id(_owner(operand))} -> {node_id(op)}"
                lines.append(
                    f"    {edge}" + (f" [{', '.join(attrs)}]" if attrs else "") + ";"
                )
    return lines


def write_op_graph(module: ModuleOp, stream: IO[str]) -> None:
    stream.write(op_graph(module))


@dataclass(frozen=True)
class PrintOpGraphPass(ModulePass):
    """Write Graphviz DOT of each function, with differentiation paths marked."""

    name = "print-op-graph"

    output: str | None = None
    """The file to write (standard error when not given)."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if self.output is None:
            write_op_graph(op, sys.stderr)
            return
        text = op_graph(op).encode()  # all or nothing, as every gradopt write
        write_atomically(self.output, lambda file: file.write(text))


@dataclass(frozen=True)
class DotTarget(Target):
    """`-t dot`: the module as Graphviz DOT instead of MLIR text."""

    name = "dot"

    def emit(self, ctx: Context, module: ModuleOp, output: IO[str]) -> None:
        write_op_graph(module, output)
