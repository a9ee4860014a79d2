"""`gradopt.tree_util`: JAX's pytree functions over the trees the front end
accepts (nested tuples, lists, namedtuples and dicts of leaves, `None` an
empty node), so that parameters, gradients and optimizer states can be mapped
together leaf by leaf, inside or outside a trace."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from gradopt.frontend.trace import error
from gradopt.frontend.tree import TreeDef, flatten

__all__ = [
    "TreeDef",
    "tree_flatten",
    "tree_leaves",
    "tree_map",
    "tree_structure",
    "tree_unflatten",
]


def tree_flatten(tree: Any) -> tuple[list[Any], TreeDef]:
    """The leaves of `tree`, left to right (dict keys sorted), and its structure."""
    return flatten(tree)


def tree_leaves(tree: Any) -> list[Any]:
    return flatten(tree)[0]


def tree_structure(tree: Any) -> TreeDef:
    return flatten(tree)[1]


def tree_unflatten(treedef: TreeDef, leaves: Any) -> Any:
    """The tree of structure `treedef` holding `leaves` in order."""
    leaves = list(leaves)
    if len(leaves) != treedef.count:
        raise error(
            f"tree_unflatten: the structure has {treedef.count} leaves, "
            f"got {len(leaves)}"
        )
    return treedef.unflatten(iter(leaves))


def tree_map(function: Callable[..., Any], tree: Any, *rest: Any) -> Any:
    """`function` applied to the leaves of `tree` and the matching leaves of
    each tree of `rest` (all of `tree`'s structure), in a tree of that
    structure, as `jax.tree_util.tree_map`."""
    leaves, treedef = flatten(tree)
    others = []
    for other in rest:
        other_leaves, other_def = flatten(other)
        if other_def != treedef:
            raise error(
                "tree_map: the trees must have one structure, got "
                f"{treedef} and {other_def}"
            )
        others.append(other_leaves)
    results = [function(*xs) for xs in zip(leaves, *others, strict=True)]
    return treedef.unflatten(iter(results))
