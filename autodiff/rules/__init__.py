"""The derivatives of each dialect's ops, one module per dialect, named as the
dialect (`grad.py` for `grad`): `gradopt.autodiff.registry` imports the module
the first time it is asked about an op of that dialect, and the module
registers its rules with `register_derivative`."""
