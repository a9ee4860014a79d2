"""`util.call` derives from `func.call` and shares its derivative
(`gradopt.autodiff.rules.func`), which is loaded with the first `util` op."""

import gradopt.autodiff.rules.func  # noqa: F401  # pyright: ignore[reportUnusedImport]
