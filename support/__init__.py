"""The ground floor: located diagnostics and `GradoptError`, atomic files,
determinism and the GC switch. It knows xDSL and NumPy, and nothing of gradopt."""
