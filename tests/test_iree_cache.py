"""The IREE cache and constants under attack.

A corrupt entry (truncated, emptied, random bytes, one flipped byte of native
code) used to fail every later run with "internal error: ValueError", crash
the process, or give a wrong result; a symlink to `/dev/zero` read until the
OOM killer came, a FIFO hung. Every entry now carries a digest and only
regular files of a sane size are read; bad ones are deleted with a one-line
warning and compiled again. Splat constants are O(1) in their shape.

The cache's own logic is tested without IREE (its compiler stood in for by
a function); the end-to-end tests need IREE and are skipped without it."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np
import pytest

from gradopt import GradoptError, Program
from gradopt.runtime import iree
from gradopt.tools import grad_run

ROOT = Path(__file__).resolve().parent.parent
CUBIC = ROOT / "examples" / "cubic.mlir"
HAVE_IREE = importlib.util.find_spec("iree") is not None and all(
    importlib.util.find_spec(m) for m in ("iree.compiler", "iree.runtime")
)
needs_iree = pytest.mark.skipif(
    not HAVE_IREE, reason="IREE is not installed: pip install 'gradopt[iree]'"
)


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "cache"
    monkeypatch.setenv("GRADOPT_CACHE_DIR", str(folder))
    monkeypatch.delenv(iree.CACHE_LIMIT_VARIABLE, raising=False)
    return folder


def entry(cache: Path, text: str) -> Path:
    """The fake compiler's entry for `text`, named as real entries are (64
    hex digits), since eviction deletes nothing else."""
    return cache / f"{text.encode().hex():0>64}.vmfb"


@pytest.fixture
def fake_compiler(cache: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """`iree._compile` replaced by a function that records its calls, and
    entries keyed by the text alone (the real key asks IREE its version)."""
    calls: list[str] = []

    def compile(text: str, untiled: bool = False) -> bytes:
        calls.append(text)
        return b"module of " + text.encode()

    monkeypatch.setattr(iree, "_compile", compile)
    monkeypatch.setattr(
        iree, "entry_path", lambda text, untiled=False: entry(cache, text)
    )
    yield calls


def compiled(text: str) -> tuple[bytes, list[str]]:
    """`iree.compile_text(text)` and the warnings it gave."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        module = iree.compile_text(text)
    return module, [str(w.message) for w in caught if w.category is iree.CacheWarning]


# --- the entries --------------------------------------------------------------


def test_an_entry_is_written_with_its_digest_and_read_back(
    fake_compiler: list[str], cache: Path
) -> None:
    assert compiled("p") == (b"module of p", [])
    assert compiled("p") == (b"module of p", [])
    assert fake_compiler == ["p"]
    data = entry(cache, "p").read_bytes()
    assert data.startswith(iree._MAGIC) and data.endswith(b"module of p")
    assert stat_mode(cache) == 0o700


def stat_mode(path: Path) -> int:
    return path.stat().st_mode & 0o777


def _flip(path: Path) -> None:
    data = bytearray(path.read_bytes())
    data[-3] ^= 0x10
    path.write_bytes(bytes(data))


def _truncate(path: Path) -> None:
    path.write_bytes(path.read_bytes()[:30])


def _empty(path: Path) -> None:
    path.write_bytes(b"")


def _random(path: Path) -> None:
    path.write_bytes(np.random.default_rng(0).bytes(500))


def _raw_module(path: Path) -> None:
    """An entry of the old format: the module alone, without a digest."""
    path.write_bytes(b"module of p")


def _dev_zero(path: Path) -> None:
    path.unlink()
    path.symlink_to("/dev/zero")


def _fifo(path: Path) -> None:
    path.unlink()
    os.mkfifo(path)


def _directory(path: Path) -> None:
    path.unlink()
    path.mkdir()


CORRUPTIONS: dict[str, tuple[Callable[[Path], None], str]] = {
    "a flipped byte": (_flip, "its contents do not match their digest"),
    "truncated": (_truncate, "not a gradopt cache entry, or truncated"),
    "emptied": (_empty, "not a gradopt cache entry, or truncated"),
    "random bytes": (_random, "not a gradopt cache entry, or truncated"),
    "the old format": (_raw_module, "not a gradopt cache entry, or truncated"),
    "a symlink to /dev/zero": (_dev_zero, "a symbolic link"),
    "a FIFO": (_fifo, "not a regular file"),
}


@pytest.mark.parametrize("case", list(CORRUPTIONS))
def test_a_bad_entry_is_deleted_with_a_warning_and_compiled_again(
    fake_compiler: list[str], cache: Path, case: str
) -> None:
    corrupt, reason = CORRUPTIONS[case]
    compiled("p")
    path = entry(cache, "p")
    corrupt(path)
    module, warned = compiled("p")
    assert module == b"module of p" and fake_compiler == ["p", "p"]
    assert warned == [
        f"IREE cache entry {path} is unusable ({reason}); deleted it and compiled "
        "the program again"
    ]
    assert path.is_file() and not path.is_symlink()  # written anew, intact
    assert compiled("p") == (b"module of p", [])


def test_an_entry_that_cannot_be_deleted_is_still_survived(
    fake_compiler: list[str], cache: Path
) -> None:
    compiled("p")
    path = entry(cache, "p")
    _directory(path)
    (path / "inside").write_text("x")  # a directory that unlink cannot remove
    module, warned = compiled("p")
    assert module == b"module of p"
    assert len(warned) == 1 and "could not delete it" in warned[0]


def test_an_entry_larger_than_the_limit_is_not_read(
    fake_compiler: list[str], cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    compiled("p")
    path = entry(cache, "p")
    with open(path, "ab") as file:
        file.truncate(1 << 40)  # sparse: a terabyte that takes no space
    monkeypatch.setenv(iree.CACHE_LIMIT_VARIABLE, str(1 << 20))
    module, warned = compiled("p")
    assert module == b"module of p"
    assert warned and "larger than the limit of 1048576 bytes" in warned[0]


def test_least_recently_used_entries_are_evicted_past_the_limit(
    fake_compiler: list[str], cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    size = len(iree._MAGIC) + iree._DIGEST + len(b"module of a")
    monkeypatch.setenv(iree.CACHE_LIMIT_VARIABLE, str(3 * size))
    for number, name in enumerate("abc"):
        compiled(name)
        os.utime(entry(cache, name), ns=(number * 10**9, number * 10**9))
    compiled("a")  # a hit: a is now the most recently used
    compiled("d")  # four entries: the least recently used, b, goes
    assert sorted(cache.glob("*.vmfb")) == [entry(cache, n) for n in "acd"]
    assert fake_compiler == ["a", "b", "c", "d"]


def test_a_limit_of_zero_turns_the_cache_off(
    fake_compiler: list[str], cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(iree.CACHE_LIMIT_VARIABLE, "0")
    compiled("p")
    compiled("p")
    assert fake_compiler == ["p", "p"] and not cache.exists()
    monkeypatch.setenv(iree.CACHE_LIMIT_VARIABLE, "-1")
    with pytest.raises(iree.BackendError, match="GRADOPT_CACHE_MAX_BYTES must be"):
        compiled("p")


def test_the_cache_never_writes_through_a_symlink(
    fake_compiler: list[str], cache: Path, tmp_path: Path
) -> None:
    victim = tmp_path / "victim"
    victim.write_text("precious")
    cache.mkdir()
    iree.write_entry(cache / "q.vmfb", b"x", 1 << 20)
    (cache / "q.vmfb").unlink()
    (cache / "q.vmfb").symlink_to(victim)
    iree.write_entry(cache / "q.vmfb", b"module", 1 << 20)
    assert victim.read_text() == "precious"


# --- the entries, with IREE ---------------------------------------------------


@needs_iree
def test_the_key_includes_the_runtime_version(
    cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import iree.runtime.version as runtime_version

    before = iree._key("text")
    monkeypatch.setattr(runtime_version, "VERSION", "0.0.0-other")
    assert iree._key("text") != before


@needs_iree
@pytest.mark.parametrize("case", ["a flipped byte", "a symlink to /dev/zero", "a FIFO"])
def test_grad_run_survives_a_bad_entry_with_one_warning(
    cache: Path, case: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """In a subprocess with a time limit: reading the FIFO used to hang."""
    argv = [str(CUBIC), "--slot", "0=[1,2,3,4,5]", "--backend", "iree"]
    assert grad_run.main(argv) == 0
    good = capsys.readouterr().out
    (path,) = cache.glob("*.vmfb")
    CORRUPTIONS[case][0](path)
    result = subprocess.run(
        [Path(sys.executable).parent / "grad-run", *argv],
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    out, err = result.stdout, result.stderr
    assert out == good
    assert err.startswith(f"grad-run: warning: IREE cache entry {path} is unusable (")
    assert err.count("\n") == 1


@needs_iree
def test_a_flipped_byte_in_native_code_is_caught_through_the_api(cache: Path) -> None:
    """One flipped byte in the middle of the module (its native code) gave
    SIGSEGV, SIGILL or a wrong result; the digest catches it first."""
    text = CUBIC.read_text()
    expected = Program(text).run([[1, 2, 3, 4, 5]], backend="iree").slots[1]
    (path,) = cache.glob("*.vmfb")
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0x01
    path.write_bytes(bytes(data))
    with pytest.warns(iree.CacheWarning, match="do not match their digest"):
        again = Program(text).run([[1, 2, 3, 4, 5]], backend="iree").slots[1]
    assert again.tobytes() == expected.tobytes()


# --- splat constants ----------------------------------------------------------


_LOWER_SPLATS = """
import resource, sys, tracemalloc
resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))  # fail, never swap
from gradopt import Program
from gradopt.runtime import iree
program = Program(sys.stdin.read())
tracemalloc.start()
lowered = iree.lower(program.module)
print(tracemalloc.get_traced_memory()[1])
print(lowered)
"""


def test_a_huge_splat_lowers_in_constant_memory() -> None:
    """`from_list` repeated the bytes over the shape and printing unpacked
    every element: a 64 MB splat peaked at 1.4 GB, this 1 GiB one would need
    about 22 GB (so the subprocess is capped, and fails, at 3 GiB)."""
    text = """func.func @main() -> (tensor<16384x16384xf32>, tensor<8192x8192xi32>) {
  %c = grad.const 1.5 : tensor<16384x16384xf32>
  %d = grad.const -3 : tensor<8192x8192xi32>
  func.return %c, %d : tensor<16384x16384xf32>, tensor<8192x8192xi32>
}"""
    result = subprocess.run(
        [sys.executable, "-c", _LOWER_SPLATS],
        input=text,
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    peak, lowered = result.stdout.split("\n", 1)
    assert int(peak) < 16 << 20
    assert "arith.constant dense<1.500000e+00> : tensor<16384x16384xf32>" in lowered
    assert "arith.constant dense<-3> : tensor<8192x8192xi32>" in lowered


def test_a_dense_literal_with_equal_elements_lowers_as_a_splat() -> None:
    text = """func.func @main() -> (tensor<2x2xf32>, tensor<3xf32>) {
  %a = grad.const dense<[[0.5, 0.5], [0.5, 0.5]]> : tensor<2x2xf32>
  %b = grad.const dense<[1.0, 2.0, 1.0]> : tensor<3xf32>
  func.return %a, %b : tensor<2x2xf32>, tensor<3xf32>
}"""
    lowered = iree.lower(Program(text).module)
    assert "dense<5.000000e-01> : tensor<2x2xf32>" in lowered
    assert "dense<[1.000000e+00, 2.000000e+00, 1.000000e+00]>" in lowered


@needs_iree  # the backend asks for IREE's runtime before it lowers
def test_running_out_of_memory_while_lowering_is_located(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from gradopt.passes import convert_grad_to_standard as lowering

    def exhausted(*args: object) -> object:
        raise MemoryError

    monkeypatch.setattr(lowering, "splat_attr", exhausted)
    text = """func.func @main() -> tensor<4xf32> {
  %c = grad.const 1.0 : tensor<4xf32>
  func.return %c : tensor<4xf32>
}"""
    with pytest.raises(GradoptError) as caught:
        Program(text, "big.mlir").run(backend="iree")
    assert str(caught.value).startswith(
        "big.mlir:2:3: error: 'grad.const' op has a value too large to lower: out "
        "of memory"
    )


_HUGE = """
import resource, sys
resource.setrlimit(resource.RLIMIT_AS, (8 << 30, 8 << 30))
from gradopt.tools import grad_run
sys.exit(grad_run.main(sys.argv[1:]))
"""


@needs_iree
def test_a_40_gb_splat_on_iree_is_a_clear_error(cache: Path, tmp_path: Path) -> None:
    """It ended in `internal error: MemoryError:` with an empty message."""
    program = tmp_path / "huge.mlir"
    program.write_text(
        "func.func @main() -> tensor<10000000000xf32> {\n"
        "  %c = grad.const 1.0 : tensor<10000000000xf32>\n"
        "  func.return %c : tensor<10000000000xf32>\n}\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", _HUGE, str(program), "--backend", "iree", "-q"],
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
    )
    assert (result.returncode, result.stdout) == (1, "")
    assert result.stderr == f"{program}: error: IREE ran out of memory running @main\n"
