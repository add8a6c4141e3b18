"""Every notebook runs, cell by cell, against the example results shipped in
hpcbench/examples/ (no Jupyter kernel needed: the cells run in one namespace)."""
import json
import os
from pathlib import Path

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
matplotlib = pytest.importorskip("matplotlib")


# report.ipynb draws whole reports (5 s here) and simulate.ipynb replays sweeps (a minute): slow.
@pytest.mark.parametrize("name, produced, figures", [("cache.ipynb", "levels", 3), ("node.ipynb", "scalability", 3),
                                                      ("comm.ipynb", "layers", 4),
                                                      ("network.ipynb", "rat_nc", 2),
                                                      ("multibsp.ipynb", "ratios", 3),
                                                      pytest.param("report.ipynb", "ratios", 0, marks=pytest.mark.slow),
                                                      ("matrix.ipynb", "fits", 1),
                                                      ("micro.ipynb", "ratios", 3),
                                                      ("stream.ipynb", "ratios", 1),
                                                      ("bandwidth.ipynb", "table", 2),
                                                      ("flops.ipynb", "rates", 1),
                                                      ("numa.ipynb", "ratios", 1),
                                                      ("netmap.ipynb", "findings", 2),
                                                      ("check.ipynb", "verdicts", 1),
                                                      ("mapping.ipynb", "mapping", 1),
                                                      ("predict.ipynb", "errors", 3),
                                                      ("history.ipynb", "moves", 1),
                                                      pytest.param("simulate.ipynb", "improvements", 4,
                                                                   marks=pytest.mark.slow)])
def test_notebook_runs(name, produced, figures, monkeypatch):
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    monkeypatch.chdir(os.path.join(ROOT, "notebooks"))
    monkeypatch.delenv("HPCBENCH_RESULTS", raising=False)
    monkeypatch.setattr(plt, "show", lambda *a, **k: None)
    nb = json.loads(Path(name).read_text())
    namespace = {"__name__": "__main__"}
    for cell in nb["cells"]:
        if cell["cell_type"] == "code":
            exec(compile("".join(cell["source"]), f"{name} cell", "exec"), namespace)
    # The notebook re-ran the analysis and drew its figures.
    assert namespace[produced] and len(plt.get_fignums()) >= figures
    plt.close("all")
