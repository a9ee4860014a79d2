"""Source locations and located errors: `FILE:LINE:COL: error: MESSAGE`.

xDSL's parser knows where each op starts but does not record it, and its
verifier reports a failure by dumping the whole module. Here the parser stamps a
`FileLineColLoc` on every op it reads, the verifier names the failing op, and
every error a user can cause is rendered in the compiler style with its source
line and a caret.
"""

from __future__ import annotations

import difflib
import re
import struct
import sys
from bisect import bisect_right
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects.builtin import (
    AnyFloat,
    ComplexType,
    FileLineColLoc,
    IndexType,
    IntAttr,
    IntegerType,
    ModuleOp,
    StringAttr,
)
from xdsl.ir import AttributeInvT, Operation, SSAValue, TypeAttribute
from xdsl.parser import AttrParser, Parser, UnresolvedOperand
from xdsl.parser.core import ForwardDeclaredValue
from xdsl.parser.generic_parser import ParserState
from xdsl.utils.exceptions import ParseError
from xdsl.utils.lexer import Input, Span
from xdsl.utils.mlir_lexer import MLIRLexer


@dataclass(frozen=True)
class Location:
    file: str
    line: int
    column: int


def location_of(op: Operation) -> Location | None:
    """The source location of `op`, or of the nearest enclosing op that has one."""
    current: Operation | None = op
    while current is not None:
        loc = current.location
        if isinstance(loc, FileLineColLoc):
            return Location(loc.filename.data, loc.line.data, loc.column.data)
        current = current.parent_op()
    return None


class LocatedError(Exception):
    """An error at a known source location, or about a named input (`line` 0)."""

    def __init__(self, location: Location, message: str, notes: Sequence = ()):
        super().__init__(message)
        self.location = location
        self.message = message
        self.notes: list[tuple[Location, str]] = list(notes)


def locate(
    op: Operation,
    message: str,
    notes: Sequence[tuple[Operation, str]],
    fallback: str,
) -> LocatedError:
    """An error about `op` (with notes about others) at their source locations;
    an op without one is reported against `fallback`, the input's name."""

    def where(op: Operation) -> Location:
        return location_of(op) or Location(fallback, 0, 0)

    return LocatedError(
        where(op), message, [(where(other), text) for other, text in notes]
    )


def did_you_mean(name: str, known: Iterable[str]) -> str:
    """`; did you mean 'NAME'?` for the known name nearest to `name`, or ''.
    Op names are compared without their shared dialect prefix, which would
    make any two `grad.` names look alike."""
    prefix = name[: name.index(".") + 1] if "." in name else ""
    bare = {k[len(prefix) :]: k for k in known if k.startswith(prefix)}
    close = difflib.get_close_matches(name[len(prefix) :], list(bare), 1, 0.75)
    return f"; did you mean '{bare[close[0]]}'?" if close else ""


_NEWLINE = re.compile("\n")
_UNREGISTERED = re.compile(r"Operation (\S+) is not registered")
_PLAIN_TYPE = re.compile(r"(?:tensor|memref)<(?:[0-9]+x)*(?:f32|i32|i1)>")


class _AtOpError(ParseError):
    """A `ParseError` already located at the op it is about."""


class _LinearLexer(MLIRLexer):
    r"""xDSL's lexer, with a string-literal pattern that runs in linear time.

    xDSL matches a string literal with `"(?:[^"\\\n\v\f]+|\\(?:...))*"`, whose
    nested repetition backtracks exponentially when the string is not closed on
    its line: a 30-character `"grad.add(%a, ...` missing its closing quote takes
    minutes. One character per repetition accepts the same strings."""

    _unescaped_characters_regex = re.compile(
        r'"(?:[^"\\\n\v\f]|\\(?:["nt\\]|[0-9A-Fa-f]{2}))*"'
    )


class _HexElement(Parser._TensorLiteralElement):
    """A hexadecimal tensor literal element: the bits of a float element."""

    def to_type(
        self, parser: AttrParser, type: AnyFloat | IntegerType | IndexType | ComplexType
    ) -> float | int | tuple[float, float] | tuple[int, int]:
        value = self.value
        if isinstance(type, AnyFloat) and isinstance(value, int) and value >= 0:
            width = type.bitwidth
            if value < 1 << width:
                code = {16: "e", 32: "f", 64: "d"}[width]
                return struct.unpack(code, value.to_bytes(width // 8, "little"))[0]
        return super().to_type(parser, type)


class LocatedParser(Parser):
    """A parser that records each op's source position as its location (and
    lexes with `_LinearLexer`).

    An unknown op is reported at the op, with the nearest op name of its
    dialect, or with `hints[name]`: how to write an op that users expect but
    that the dialect does not have (`'grad.exp' is not an op: ...`)."""

    def __init__(
        self,
        ctx: Context,
        text: str,
        name: str,
        line_offset: int = 0,
        hints: Mapping[str, str] | None = None,
    ):
        self._hints = hints or {}
        self._file = StringAttr(name)
        self._line_offset = line_offset
        self._line_starts = [0] + [m.end() for m in _NEWLINE.finditer(text)]
        self._first_uses: dict[str, int] = {}
        self._forward_names: dict[SSAValue, str] = {}
        self._types: dict[str, TypeAttribute | None] = {}
        super().__init__(ctx, "", name)
        try:
            self._parser_state = ParserState(_LinearLexer(Input(text, name)))
        except ParseError as error:  # the lexer reads the first token at once
            raise LocatedError(self.location(error.span.start), error.msg) from None

    def parse_optional_type(self) -> TypeAttribute | None:
        """xDSL's, remembering each plain tensor or memref type by its text: a
        program names the same few types hundreds of times, and xDSL's parser
        takes about a quarter of a program's preparation to read them."""
        match = _PLAIN_TYPE.match(self.lexer.input.content, self.pos)
        if match is None:
            return super().parse_optional_type()
        if (known := self._types.get(match.group(0))) is None:
            known = self._types[match.group(0)] = super().parse_optional_type()
        else:  # xDSL has no public way to resume at a position
            self._resume_from(match.end())  # pyright: ignore[reportPrivateUsage]
        return known

    def _parse_tensor_literal_element(self) -> Parser._TensorLiteralElement:
        """xDSL's, but a hexadecimal integer (`dense<0xFF800000> :
        tensor<f32>`, as MLIR and IREE print -inf) stands for the bits of a
        float element, as in MLIR, where xDSL reads it as a number."""
        element = super()._parse_tensor_literal_element()
        text = element.span.text.lstrip("-")
        if isinstance(element.value, int) and text[:2] in ("0x", "0X"):
            return _HexElement(element.is_negative, element.value, element.span)
        return element

    def at_end(self) -> bool:
        """Whether nothing but whitespace and comments is left."""
        return self.pos == len(self.lexer.input.content)

    def location(self, position: int) -> Location:
        line = bisect_right(self._line_starts, position)
        column = position - self._line_starts[line - 1] + 1
        return Location(self._file.data, line + self._line_offset, column)

    def parse_operation(self) -> Operation:
        start = self.pos
        try:
            op = super().parse_operation()
        except ParseError as error:
            # xDSL reports an unknown op after its name; point at the op instead
            if isinstance(error, _AtOpError):
                raise
            span = Span(start, start, self.lexer.input)
            if (unknown := _UNREGISTERED.fullmatch(error.msg)) is not None:
                raise _AtOpError(span, self._unknown(unknown.group(1))) from None
            if self._past_the_op(start, error):
                raise _AtOpError(span, error.msg) from None
            raise
        except RecursionError:
            raise
        except Exception as error:
            # an op's parser or constructor that raises something else (a
            # VerifyException, a ValueError) is wrong about this op: point at
            # it, not at where the lexer stopped (the end of the input)
            message = str(error) or (  # such as a bare `assert` in xDSL's parser
                f"malformed input (xDSL's parser raised {type(error).__name__} here)"
            )
            position = start
            if long := _long_integer(self.lexer.input.content, self.pos, message):
                position, message = long
            span = Span(position, position, self.lexer.input)
            raise _AtOpError(span, message) from None
        if not isinstance(op.location, FileLineColLoc):
            where = self.location(start)
            op.location = FileLineColLoc(
                self._file, IntAttr(where.line), IntAttr(where.column)
            )
        return op

    def _past_the_op(self, start: int, error: ParseError) -> bool:
        """Whether `error`, raised while parsing the op at `start`, points at
        the token after the op: an op's parser that finds its op wrong once
        it has read it (`parser.raise_error("Expected memref type")`) points
        at the lookahead, on a later line or at the end of the input, where
        with `--split-input-file` the `// -----` line would be shown. The
        error is about the op: point at the op. A fragment (" in block
        definition") is the parser's own syntax error, left where it is."""
        text = self.lexer.input.content
        at = error.span.start
        if error.msg.startswith(" ") or at <= start:
            return False
        line_start = text.rfind("\n", 0, at) + 1
        first_on_line = not text[line_start:at].strip() and line_start > start
        return at >= len(text) or first_on_line

    def _unknown(self, name: str) -> str:
        if (hint := self._hints.get(name)) is not None:
            return f"'{name}' is not an op: {hint}"
        if "." not in name:
            return f"unknown operation '{name}'"
        prefix, short = name.split(".", 1)
        dialect = self.ctx.get_optional_dialect(prefix)
        known = (
            [op.name.split(".", 1)[1] for op in dialect.operations] if dialect else []
        )
        hint = did_you_mean(short, known).replace("'", f"'{prefix}.", 1)
        return f"unknown operation '{name}'{hint}"

    def resolve_operand(
        self, operand: UnresolvedOperand, type: AttributeInvT
    ) -> SSAValue[AttributeInvT]:
        if operand.operand_name not in self.ssa_values:
            self._first_uses.setdefault(operand.operand_name, operand.span.start)
        value = super().resolve_operand(operand, type)
        if isinstance(value, ForwardDeclaredValue):
            self._forward_names.setdefault(value, operand.operand_name)
        return value

    def check_no_dangling_use(self, module: ModuleOp) -> None:
        """Raise a `LocatedError` for an operand still forward-declared.

        xDSL's parser drops a forward reference that a block argument defines
        without replacing it when the op using it is created after the block:
        in `scf.for %i = %c0 to %i`, the loop's `%i` is defined by its body,
        which is parsed before the loop op exists. The use is left pointing at
        nothing, and the verifier fails inside xDSL."""
        for op in module.walk():
            for operand in op.operands:
                if isinstance(operand, ForwardDeclaredValue):
                    name = self._forward_names[operand]
                    raise LocatedError(
                        self.location(self._first_uses[name]),
                        f"use of undefined value %{name}",
                    )

    def first_undefined_use(self) -> tuple[int, str] | None:
        """The position and name of the first use of a value never defined."""
        uses = [
            (self._first_uses[name], name)
            for name in self.forward_ssa_references
            if name in self._first_uses
        ]
        return min(uses, default=None)


_INT_LIMIT = re.compile(r"Exceeds the limit \(\d+ digits\) for integer string")


def _long_integer(text: str, position: int, message: str) -> tuple[int, str] | None:
    """Where and what the error is if `message` is Python's refusal to convert
    a long integer literal (past `sys.get_int_max_str_digits()`): its advice
    to call that function speaks to a programmer, not to the user, and the
    parser stands past the literal by then."""
    if not _INT_LIMIT.match(message):
        return None
    digits = sys.get_int_max_str_digits() + 1
    literals = list(re.finditer(f"[0-9]{{{digits},}}", text[: position + 1]))
    if not literals:
        return None
    literal = literals[-1]
    length = literal.end() - literal.start()
    return literal.start(), f"integer literal of {length} digits is too long"


def parse_module(
    ctx: Context,
    text: str,
    name: str,
    line_offset: int = 0,
    implicit: bool = True,
    hints: Mapping[str, str] | None = None,
) -> ModuleOp:
    """Parse `text`, raising a `LocatedError` for any problem in it (`hints`:
    see `LocatedParser`)."""
    parser = LocatedParser(ctx, text, name, line_offset, hints)
    if implicit and parser.at_end():
        return ModuleOp([])  # an empty input is an empty module, as in MLIR
    try:
        module = parser.parse_module(implicit)
    except ParseError as error:
        undefined = parser.first_undefined_use()
        if error.msg.startswith("values used but not defined") and undefined:
            position, value = undefined
            raise LocatedError(
                parser.location(position), f"use of undefined value %{value}"
            ) from None
        message = error.msg
        if message.startswith(" "):  # a fragment, such as " in block definition"
            found = f"'{error.span.text}'" if error.span.text else "end of input"
            message = f"unexpected {found}{message}"
        raise LocatedError(parser.location(error.span.start), message) from None
    except RecursionError:
        raise LocatedError(
            parser.location(parser.pos), "input is nested too deeply"
        ) from None
    except Exception as error:  # xDSL raises various errors on malformed input
        message = str(error) or (  # such as a bare `assert` in xDSL's parser
            f"malformed input (xDSL's parser raised {type(error).__name__} here)"
        )
        position = parser.pos
        if long := _long_integer(text, position, message):
            position, message = long
        raise LocatedError(parser.location(position), message) from None
    parser.check_no_dangling_use(module)
    return module


@dataclass
class SourceText:
    """The text of the input files, to show the line an error points at."""

    files: dict[str, list[str]] = field(default_factory=dict[str, list[str]])

    def add(self, name: str, text: str, hidden: str | None = None) -> None:
        """Keep `text` as file `name`; lines starting with `hidden` (the
        `// -----` of split inputs) are not shown: an error at the end of a
        chunk points at one, and it is no source line of the chunk."""
        lines = text.split("\n")
        if hidden is not None:
            lines = ["" if line.startswith(hidden) else line for line in lines]
        self.files[name] = lines

    def render(self, error: LocatedError) -> str:
        parts = [self._render(error.location, "error", error.message)]
        parts += [
            self._render(where, "note", message) for where, message in error.notes
        ]
        return "".join(parts)

    def _render(self, where: Location, severity: str, message: str) -> str:
        if where.line == 0:
            return f"{where.file}: {severity}: {message}\n"
        head = f"{where.file}:{where.line}:{where.column}: {severity}: {message}\n"
        lines = self.files.get(where.file)
        if lines is None or not 1 <= where.line <= len(lines):
            return head
        line = lines[where.line - 1].rstrip("\r")
        if not line.strip():
            return head
        return f"{head}{line}\n{' ' * (where.column - 1)}^\n"


class GradoptError(LocatedError):
    """A located error, whose `str` is the rendered report with its source line."""

    def __init__(self, error: LocatedError, source: SourceText):
        super().__init__(error.location, error.message, error.notes)
        self.report = source.render(error)

    def __str__(self) -> str:
        return self.report
