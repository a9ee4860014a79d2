"""Running programs: `Program`, `run` and `Signature` (`gradopt.runtime.program`)
over the NumPy interpreter, and the IREE backend (`gradopt.runtime.iree`)."""
