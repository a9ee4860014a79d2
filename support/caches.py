"""In-memory caches of prepared programs, bounded in entries and in bytes.

`gradopt.run` keeps the programs it prepared by text, and each `jit` function
one program per input signature. A count alone does not bound their memory:
a prepared program of 3000 ops holds about 17 MB, one that closes over a
64 MB array at least that. So each cache also has a byte budget, spent by an
estimate of each entry's size (`module_bytes`), and drops its least recently
used entries beyond either bound; an entry larger than the budget is not kept.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Hashable, Iterator
from typing import Generic, TypeVar

from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, ModuleOp

OP_BYTES = 4096
"""What one op of a prepared program costs, about: its IR objects, those of
its copy with the gradients expanded, and its step in the interpreter's plan
(measured with `tracemalloc`: 1.8 to 5.8 KB an op for 4000 to 12 000 ops)."""

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


def module_bytes(module: ModuleOp) -> int:
    """The estimated memory of a program prepared from `module`: `OP_BYTES`
    for each op, and the data of its dense literals, which can be any size."""
    total = 0
    for op in module.walk():
        total += OP_BYTES
        for value in op.properties.values():
            if isinstance(value, DenseIntOrFPElementsAttr):
                total += len(value.data.data)
    return total


class BoundedCache(Generic[K, V]):
    """A least-recently-used map that may be used from several threads."""

    def __init__(self) -> None:
        self._entries: OrderedDict[K, tuple[V, int]] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()

    def __iter__(self) -> Iterator[K]:
        with self._lock:
            return iter(list(self._entries))

    def __len__(self) -> int:
        return len(self._entries)

    @property
    def bytes(self) -> int:
        """The estimated size of what is kept."""
        return self._bytes

    def get(self, key: K) -> V | None:
        """The value kept for `key` (now the most recently used), or None."""
        with self._lock:
            if (known := self._entries.get(key)) is None:
                return None
            self._entries.move_to_end(key)
            return known[0]

    def put(self, key: K, value: V, size: int, entries: int, budget: int) -> None:
        """Keep `value` (of `size` bytes), then drop the least recently used
        entries until at most `entries` remain, of at most `budget` bytes."""
        with self._lock:
            if (old := self._entries.pop(key, None)) is not None:
                self._bytes -= old[1]
            if size <= budget and entries > 0:
                self._entries[key] = (value, size)
                self._bytes += size
            while self._entries and (
                len(self._entries) > entries or self._bytes > budget
            ):
                _, (_, dropped) = self._entries.popitem(last=False)
                self._bytes -= dropped
