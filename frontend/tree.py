"""Nested tuples, lists and dicts of arrays (JAX's pytrees, reduced to what a
NumPy user passes): flattened to leaves for tracing and rebuilt around the
results, so that outputs come back with the structure the function returned.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cached_property
from itertools import islice
from typing import Any


@dataclass(frozen=True)
class TreeDef:
    """The structure of a tree: `kind` None is a leaf, `NoneType` an empty
    node; dict keys are sorted, as in JAX."""

    kind: type | None = None
    keys: tuple[object, ...] = ()
    children: tuple[TreeDef, ...] = ()

    @property
    def count(self) -> int:
        """How many leaves the tree has."""
        if self.kind is None:
            return 1
        return sum(child.count for child in self.children)

    def unflatten(self, leaves: Iterator[Any]) -> Any:
        return self.builder(leaves)

    @cached_property
    def builder(self) -> Callable[[Iterator[Any]], Any]:
        """What `unflatten` calls: the tree's nodes read once, where reading
        them at each call took 4 us of a jitted small MLP step's 64 on IREE
        (a tuple of leaves, the common case, is one `islice`)."""
        kind = self.kind
        if kind is None:
            return next
        if kind is type(None):
            return lambda leaves: None
        if kind is tuple and all(child.kind is None for child in self.children):
            count = len(self.children)
            return lambda leaves: tuple(islice(leaves, count))
        builders = [child.builder for child in self.children]
        if kind is dict:
            keys = self.keys
            return lambda leaves: dict(
                zip(keys, [build(leaves) for build in builders], strict=True)
            )
        if hasattr(kind, "_fields"):  # a namedtuple
            return lambda leaves: kind(*[build(leaves) for build in builders])
        return lambda leaves: kind([build(leaves) for build in builders])


def flatten(tree: Any) -> tuple[list[Any], TreeDef]:
    leaves: list[Any] = []
    return leaves, _flatten(tree, leaves)


def _flatten(tree: Any, leaves: list[Any]) -> TreeDef:
    if tree is None:
        return TreeDef(type(None))
    if isinstance(tree, tuple | list):
        children = tuple(_flatten(child, leaves) for child in tree)
        return TreeDef(type(tree), (), children)
    if isinstance(tree, dict):
        keys = tuple(sorted(tree))
        children = tuple(_flatten(tree[key], leaves) for key in keys)
        return TreeDef(dict, keys, children)
    leaves.append(tree)
    return TreeDef()


def tree_map(function: Callable[[Any], Any], tree: Any) -> Any:
    leaves, treedef = flatten(tree)
    return treedef.unflatten(iter([function(leaf) for leaf in leaves]))
