# ruff: noqa: E501 (MLIR text: one op a line, as MLIR prints it)
"""The per-call path of a prepared program: what is
chosen once per program or signature and kept (BLAS's threads, the float
error state, the jit's signature key) gives the answers and the errors that
choosing it at each call gave, and the paths that skip `Program.run`'s
checks give its bits."""

from __future__ import annotations

import collections
import warnings
from contextlib import nullcontext
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import gradopt
import gradopt.numpy as gnp
from gradopt import GradoptError, Program
from gradopt.runtime.threads import OPENBLAS_ONE_THREAD_PRODUCT
from gradopt.support import determinism
from gradopt.support.floats import ignoring_float_errors

needs_openblas = pytest.mark.skipif(
    determinism.blas_threads() is None, reason="NumPy's BLAS here is not OpenBLAS"
)


def dot_program(m: int, k: int, n: int, extra: str = "") -> str:
    return f"""func.func @main(%a: tensor<{m}x{k}xf32>, %b: tensor<{k}x{n}xf32>) -> tensor<{m}x{n}xf32> {{
  %c = grad.dot %a, %b : tensor<{m}x{k}xf32>, tensor<{k}x{n}xf32> to tensor<{m}x{n}xf32>{extra}
  func.return %c : tensor<{m}x{n}xf32>
}}"""


LINALG = """
  %z = tensor.empty() : tensor<2x2xf32>
  %m = linalg.matmul ins(%c, %c : tensor<2x2xf32>, tensor<2x2xf32>) outs(%z : tensor<2x2xf32>) -> tensor<2x2xf32>"""


@needs_openblas
@pytest.mark.parametrize(
    ("shape", "extra", "limited"),
    [
        ((64, 64, 64), "", False),  # 2^18 multiply-adds: OpenBLAS's one thread
        ((64, 65, 64), "", True),
        ((96, 96, 1), "", False),  # a matrix-vector product of 9216 elements
        ((97, 96, 1), "", True),
        ((2, 2, 2), LINALG, True),  # linalg's products are not counted
    ],
)
def test_the_thread_limit_is_chosen_once_and_only_where_it_changes_something(
    shape: tuple[int, int, int], extra: str, limited: bool
) -> None:
    program = Program(dot_program(*shape, extra))
    assert program.blas_threads is program.blas_threads  # chosen once
    assert isinstance(program.blas_threads, nullcontext) != limited
    assert (np.prod(shape) > OPENBLAS_ONE_THREAD_PRODUCT) <= limited
    m, k, n = shape
    rng = np.random.default_rng(0)
    args = [rng.standard_normal(s).astype(np.float32) for s in ((m, k), (k, n))]
    before = determinism.blas_threads()
    free = program.run(args=args).results[0]
    assert determinism.blas_threads() == before
    fixed = program.run(args=args, deterministic=True).results[0]
    assert free.tobytes() == fixed.tobytes()


@needs_openblas
def test_the_limit_leaves_a_library_on_one_thread_as_it_is() -> None:
    """Set to one thread by someone else, OpenBLAS stays on one during and
    after a limited run, and the run after that is limited as before."""
    library = determinism._openblas()
    assert library is not None
    set_threads = determinism._function(library, determinism._SET)
    before = determinism.blas_threads()
    program = Program(dot_program(64, 65, 64))
    args = [np.ones((64, 65), np.float32), np.ones((65, 64), np.float32)]
    expected = program.run(args=args).results[0]
    set_threads(1)
    try:
        with determinism.single_threaded_blas():
            assert determinism.blas_threads() == 1
        assert determinism.blas_threads() == 1
        assert program.run(args=args).results[0].tobytes() == expected.tobytes()
        assert determinism.blas_threads() == 1
    finally:
        set_threads(before)
    with determinism.single_threaded_blas():
        assert determinism.blas_threads() == 1
    assert determinism.blas_threads() == before


def test_float_errors_are_ignored_inside_and_as_before_outside() -> None:
    one, zero = np.float32(1.0), np.float32(0.0)
    with np.errstate(divide="raise"):
        for _ in range(2):  # the second time from the kept state
            with ignoring_float_errors():
                assert np.isinf(one / zero)
            with pytest.raises(FloatingPointError):
                _ = one / zero
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(RuntimeWarning):
            _ = one / zero
        size = np.getbufsize()
        try:
            np.setbufsize(2 * size)  # a new state: the kept one is not reused
            with ignoring_float_errors():
                assert np.getbufsize() == 2 * size
                assert np.isinf(one / zero)
        finally:
            np.setbufsize(size)


MIXED = """func.func @main(%x: tensor<2x3xf32>, %s: memref<3xf32>, %f: f32, %i: tensor<i32>) -> (tensor<2x3xf32>, tensor<3x2xf32>, f32, tensor<i32>) {
  %w = grad.load %s : memref<3xf32>
  %b = grad.broadcast %w [1] : tensor<3xf32> to tensor<2x3xf32>
  %y = grad.add %x, %b : tensor<2x3xf32>
  %t = grad.permute %x [1, 0] : tensor<2x3xf32> to tensor<3x2xf32>
  func.return %y, %t, %f, %i : tensor<2x3xf32>, tensor<3x2xf32>, f32, tensor<i32>
}"""


def test_staged_inputs_are_read_in_place_and_never_handed_back() -> None:
    """Arguments in the order of the signature (an input, a slot, a scalar,
    a 0-d tensor); a view of an input is a result of its own; an
    unaligned or Fortran-ordered input gives the bits of a C-ordered one."""
    program = Program(MIXED)
    x = np.arange(6, dtype=np.float32).reshape(2, 3) / 7
    slot = np.array([1.0, 2.0, 3.0], np.float32)
    y, t, f, i = program.run(slots=[slot], args=[x, 2.5, 7]).results
    np.testing.assert_array_equal(y, x + slot)
    assert not np.shares_memory(t, x) and t.flags.writeable
    np.testing.assert_array_equal(t, x.T)
    assert (f.dtype, f.item(), i.dtype, i.item()) == (np.float32, 2.5, np.int32, 7)
    raw = np.zeros(x.nbytes + 1, np.uint8)
    unaligned = np.frombuffer(raw.data, np.float32, 6, offset=1).reshape(2, 3)
    unaligned[...] = x
    assert not unaligned.flags.aligned
    for other in (unaligned, np.asfortranarray(x), x.astype(np.float64)):
        again = program.run(slots=[slot], args=[other, 2.5, 7]).results
        assert again[0].tobytes() == y.tobytes() and again[1].tobytes() == t.tobytes()
    layout = program.entry("main").args[0]
    assert program.checked("arg", 0, layout, x, read_only=True) is x
    assert program.checked("arg", 0, layout, unaligned, read_only=True).flags.aligned
    with pytest.raises(GradoptError, match=r"arg 0: error: expected float32 data"):
        program.run(slots=[slot], args=[x.T, 2.5, 7])


def test_exact_arrays_are_read_as_they_are_and_others_checked() -> None:
    """Read-only inputs given as a list or tuple of arrays that are each
    exactly of their layout are taken as they are; any other is converted
    or refused as one by one (`Program.checked`)."""
    program = Program(MIXED)
    known = program.entry("main")
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    f, i = np.array(2.5, np.float32), np.array(7, np.int32)

    def read(given: Any) -> list[np.ndarray]:
        return program.inputs("arg", known.args, given, (), read_only=True)

    for values in ([x, f, i], (x, f, i)):
        assert all(a is b for a, b in zip(read(values), values, strict=True))
    assert read(None)[0].shape == (2, 3)  # zeros, as before
    converted = read([x.astype(np.float64), f, i])
    assert converted[0].dtype == np.float32 and converted[1] is f
    fortran = np.asfortranarray(x)
    assert not fortran.flags.c_contiguous
    assert read([fortran, f, i])[0].flags.c_contiguous
    assert read([x, 2.5, i])[1].dtype == np.float32
    with pytest.raises(GradoptError, match=r"arg 0: error: expected float32 data"):
        read([x.T, f, i])
    with pytest.raises(GradoptError, match=r"no such arg"):
        read([x, f, i, i])
    assert not program.inputs("arg", (), None, (), read_only=True)


def test_the_jit_path_gives_the_bits_of_program_run(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def f(params, scale):
        w, b = params["w"], params["b"]
        return gnp.sum(gnp.tanh(w * scale + b) ** 2)

    step = gradopt.jit(gradopt.value_and_grad(f))
    rng = np.random.default_rng(1)
    params = {"w": rng.standard_normal((5, 4)).astype(np.float32), "b": np.float32(0.5)}
    value, grads = step(params, 1.5)
    program = step.compile((params, 1.5), {}).program
    expected = program.run(args=[params["b"], params["w"], 1.5]).results
    assert value.tobytes() == expected[0].tobytes()
    assert grads["b"].tobytes() == expected[1].tobytes()
    assert grads["w"].tobytes() == expected[2].tobytes()
    assert not np.shares_memory(grads["w"], params["w"])
    # Fortran-ordered and unaligned data give the signature's C-ordered,
    # aligned arrays (one entry); aligned float32 data is read in place
    seen: list[list[object]] = []
    call = program.interpreter.call
    monkeypatch.setattr(
        program.interpreter, "call", lambda name, a: seen.append(a) or call(name, a)
    )
    raw = np.zeros(params["w"].nbytes + 1, np.uint8)
    unaligned = np.frombuffer(raw.data, np.float32, 20, offset=1).reshape(5, 4)
    unaligned[...] = params["w"]
    for w in (np.asfortranarray(params["w"]), unaligned):
        again = step({"w": w, "b": 0.5}, 1.5)
        assert again[0].tobytes() == value.tobytes()
        assert again[1]["w"].tobytes() == grads["w"].tobytes()
        assert seen[-1][1].flags.aligned and seen[-1][1].dtype == np.float32
    step(params, 1.5)
    assert seen[-1][1] is params["w"]
    assert len(step.cache) == 1
    with pytest.raises(GradoptError, match="not float64"):
        step({"w": params["w"].astype(np.float64), "b": 0.5}, 1.5)


def test_the_jit_key_tells_every_signature_apart() -> None:
    """A new dtype, shape, structure or static value is a new signature,
    traced anew; the errors for unusable leaves are as before."""
    traces: list[object] = []

    def f(x, n=1):
        traces.append(x)
        return x * n if not isinstance(x, tuple | list) else x[0] * n

    g = gradopt.jit(f, static_argnums=1)
    ones = np.ones(3, np.float32)
    f32, i32 = np.dtype(np.float32), np.dtype(np.int32)
    calls = [
        ((ones, 2), [2.0, 2.0, 2.0], f32),
        ((ones, 2), [2.0, 2.0, 2.0], f32),  # a hit
        ((np.ones(3, np.int32), 2), [2, 2, 2], i32),
        ((np.ones(4, np.float32), 2), [2.0] * 4, f32),
        ((ones, 3), [3.0, 3.0, 3.0], f32),
        (((ones,), 2), [2.0, 2.0, 2.0], f32),
        (([ones], 2), [2.0, 2.0, 2.0], f32),
        ((3.0, 2), 6.0, f32),
        ((3, 2), 6, i32),
    ]
    for args, expected, dtype in calls:
        out = g(*args)
        np.testing.assert_array_equal(out, expected)
        assert out.dtype == dtype
    assert len(traces) == len(calls) - 1
    with pytest.raises(GradoptError, match="not an array"):
        g("text", 2)
    with pytest.raises(GradoptError, match="float32, int32 or bool data, not complex"):
        g(np.ones(2, np.complex64), 2)
    with pytest.raises(GradoptError, match="out of range for int32"):
        g(1 << 40, 2)
    with pytest.raises(GradoptError, match="static arguments must be hashable"):
        g(ones, [2])
    g(ones, 2)  # the last signature: an array as the static argument is keyed
    assert g.last is not None and g.last[1] == ((1, 2),)
    np.testing.assert_array_equal(g(ones, 3), [3.0, 3.0, 3.0])  # not the last's
    with pytest.raises(GradoptError, match="static arguments must be hashable"):
        g(ones, np.array([2, 3]))
    assert len(traces) == len(calls) - 1


def test_the_last_signature_is_matched_as_its_key_would_be() -> None:
    """A call is first tried against the last signature's match, which must
    take exactly the arguments the key takes: any other tree, dtype, shape
    or leaf type goes to the key, is traced once, and gives what a trace of
    its own gives."""
    traces: list[object] = []

    def f(p, x, scale=None):
        traces.append(1)
        leaves = list(p.values()) if isinstance(p, dict) else list(p)
        total = x * 2 if scale is None else x * scale
        for leaf in leaves:
            total = total + gnp.sum(leaf)
        return total

    g = gradopt.jit(f)
    a, b = np.ones(3, np.float32), np.full(2, 2, np.float32)
    x = np.arange(3, dtype=np.float32)
    Pair = collections.namedtuple("Pair", "a b")

    class Sub(np.ndarray):
        pass

    calls = [  # 12 signatures, and the key's hits
        ((a, b), x),
        ((a, b), x),  # the last signature
        ([a, b], x),
        (Pair(a, b), x),
        ((a, b, b), x),
        ((a,), x),
        ({"a": a, "b": b}, x),
        ({"b": b, "a": a}, x),  # the same signature, keys in another order
        ({"a": a, "c": b}, x),
        ({"a": a, "b": b, "c": b}, x),
        (collections.OrderedDict(a=a, b=b), x),  # keyed as a dict
        ((a, b), x.astype(np.int32)),
        ((a, b), x[:2]),
        ((a, b), x.view(Sub)),  # keyed as an array
        ((a, b), 1.5),
        ((a, b), np.float32(1.5)),  # keyed as 1.5
        ((a, np.ones(2, bool)), x),
        ((a, b), x),  # back to the first: a hit in the cache, no trace
    ]
    for p, value in calls:
        expected = gradopt.jit(f)(p, value)
        np.testing.assert_array_equal(g(p, value), expected)
        assert g(p, value).dtype == expected.dtype
    scaled = g((a, b), x, scale=np.array(3, np.float32))
    np.testing.assert_array_equal(scaled, x * 3 + 7)
    assert g.last is not None and g.last[0].match is not None
    kept = g.last
    g((a, b), 1.5)  # a Python number: never matched, always keyed
    assert g.last is kept
    assert len(g.cache) == 13  # and one trace each, besides the references'
    assert len(traces) == len(calls) + 13


def test_a_signature_the_cache_does_not_keep_is_not_matched(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """With GRADOPT_JIT_CACHE_BYTES=0 every call traces again, as the cache
    keeps nothing: the last signature is not kept either."""
    traces: list[object] = []

    @gradopt.jit
    def f(x):
        traces.append(1)
        return x + 1

    x = np.zeros(2, np.float32)
    f(x)
    f(x)
    assert len(traces) == 1 and f.last is not None
    monkeypatch.setenv("GRADOPT_JIT_CACHE_BYTES", "0")
    f(np.zeros(3, np.float32))
    assert f.last is None
    f(np.zeros(3, np.float32))
    assert len(traces) == 3


def _trees() -> st.SearchStrategy[Any]:
    leaves = st.one_of(
        st.builds(
            np.zeros,
            st.sampled_from([(), (2,), (3,), (2, 2)]),
            st.sampled_from([np.float32, np.int32, np.bool_, np.float64]),
        ),
        st.sampled_from([1.5, 2, None]),
    )
    return st.recursive(
        leaves,
        lambda children: st.one_of(
            st.lists(children, max_size=3),
            st.lists(children, max_size=3).map(tuple),
            st.dictionaries(st.sampled_from("abc"), children, max_size=3),
        ),
        max_leaves=6,
    )


@settings(max_examples=300, deadline=None)
@given(_trees(), _trees())
def test_a_match_takes_exactly_the_trees_of_its_key(first: Any, second: Any) -> None:
    """`_matcher(key)` takes only trees to which `_structure` gives that key,
    giving their leaves in the key's order, and takes every such tree of
    tuples, lists, dicts and arrays of gradopt's dtypes (the others go to
    the key, as a traced function's first call checks)."""
    from gradopt.frontend.array import ELEMENTS
    from gradopt.frontend.transforms import _matcher, _structure

    def key(tree: Any) -> tuple[object, list[Any]]:
        leaves: list[Any] = []
        try:
            return _structure(tree, leaves), leaves
        except GradoptError:  # float64 data: no key, no match
            return None, leaves

    def plain(tree: Any) -> bool:
        if type(tree) is np.ndarray:
            return tree.dtype in ELEMENTS
        if type(tree) in (tuple, list):
            return all(map(plain, tree))
        return type(tree) is dict and all(map(plain, tree.values()))

    structure, _ = key(first)
    if structure is None:
        return
    match = _matcher(structure)
    assert (match is not None) >= plain(first)
    if match is None:
        return
    for tree in (first, second):
        found: list[Any] = []
        other, leaves = key(tree)
        matched = match(tree, found)
        if matched:
            assert other == structure
            assert len(found) == len(leaves)
            assert all(a is b for a, b in zip(found, leaves, strict=True))
        else:
            assert other != structure or not plain(tree)
