"""A subset of IREE's `util` dialect: the function ops IREE's input form
wraps every jitted program in (`iree-compile --compile-to=input`, SPEC §10.5).

`util.func`, `util.return` and `util.call` mean what `func.func`,
`func.return` and `func.call` mean, and derive from them, so that everything
in gradopt that knows functions (the interpreter, the drivers' entry lookup,
the verifier, the passes) treats them alike. IREE's attributes on them
(`iree.reflection`, `iree.abi.*`) are kept as they are. xDSL's IRDL turns an
op's fields into accessors, so a derived op declares them again.
"""

from __future__ import annotations

from xdsl.dialects import func
from xdsl.dialects.builtin import (
    ArrayAttr,
    DictionaryAttr,
    FlatSymbolRefAttrConstr,
    FunctionType,
    StringAttr,
    SymbolNameConstraint,
)
from xdsl.ir import Dialect
from xdsl.irdl import (
    irdl_op_definition,
    opt_prop_def,
    prop_def,
    region_def,
    var_operand_def,
    var_result_def,
)
from xdsl.parser import Parser


@irdl_op_definition
class FuncOp(func.FuncOp):
    """`util.func public @main(%x: tensor<4xf32>) -> tensor<f32> { ... }`."""

    name = "util.func"
    body = region_def()
    sym_name = prop_def(SymbolNameConstraint())
    function_type = prop_def(FunctionType)
    sym_visibility = opt_prop_def(StringAttr)
    arg_attrs = opt_prop_def(ArrayAttr[DictionaryAttr])
    res_attrs = opt_prop_def(ArrayAttr[DictionaryAttr])

    @classmethod
    def parse(cls, parser: Parser) -> FuncOp:
        parsed = func.FuncOp.parse(parser)
        return cls.create(
            properties=dict(parsed.properties),
            attributes=dict(parsed.attributes),
            regions=[parsed.detach_region(parsed.body)],
        )


@irdl_op_definition
class ReturnOp(func.ReturnOp):
    """`util.return %r : tensor<f32>`."""

    name = "util.return"
    assembly_format = None  # func.return's printer and parser, inherited
    arguments = var_operand_def()


@irdl_op_definition
class CallOp(func.CallOp):
    """`%r = util.call @f(%x) : (tensor<4xf32>) -> tensor<4xf32>`."""

    name = "util.call"
    assembly_format = None  # func.call's printer and parser, inherited
    arguments = var_operand_def()
    callee = prop_def(FlatSymbolRefAttrConstr)
    res = var_result_def()


Util = Dialect("util", [FuncOp, ReturnOp, CallOp])
