"""One self-contained HTML page of a results file (`python -m hpcbench
report RESULTS`), or of two side by side (`report A.json B.json`).

The report only loops over the records and asks each one's benchmark (from
the registry) for what the protocol gives: `summary` (the table `show`
prints), `plot` (the figure, drawn with matplotlib without pyplot and
embedded as SVG), `meaning` (what it means, in sentences), `disagreements`
(highlighted) and `headlines` (the numbers the side-by-side view compares).
A new benchmark joins the report by implementing those methods in its own
package; nothing here names a benchmark (docs/report.md).
"""
from .._headline import Headline
from ._compare import comparison_html
from ._page import report_html
from ._write import ReportError, Written, write_report

__all__ = ["Headline", "ReportError", "Written", "comparison_html", "report_html", "write_report"]
