"""`import gradopt.optim as optim`: optax-shaped optimizers (`sgd`,
`momentum`, `adam`, `adamw`, `rmsprop`, `clip_by_global_norm`, `chain`,
`apply_updates`), defined in `gradopt.frontend.optim`."""

from gradopt.frontend.optim import *  # noqa: F403
from gradopt.frontend.optim import __all__ as __all__
