"""hpcbench: characterise HPC nodes and clusters by benchmarking them.

    python -m hpcbench run            # the default suite, results to a JSON file
    python -m hpcbench show FILE      # a summary of a results file

From Python: hpcbench.load(path) reads a results file; hpcbench.cache and
hpcbench.topology hold the measurement and analysis functions.
"""
__version__ = "0.1.0"

from .results import Results, ResultsError, load  # noqa: E402

__all__ = ["Results", "ResultsError", "load", "__version__"]
