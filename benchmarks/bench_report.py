"""Figures for the HTML report (issue 17): the report of the largest shipped
example in under 5 s and under 5 MB, and SVG against PNG for the figures.

    python benchmarks/bench_report.py [--runs 5]

Prints, for the largest shipped example *-example.json (by bytes; the
installed hpcbench.examples):
  * the wall time of `python -m hpcbench report FILE` (a fresh interpreter,
    imports included), median and worst of `runs`, beside its peer in the
    same run, `python -m hpcbench show FILE` (the text summary of the same
    file), and the page's size;
then, in one process, for every shipped example: the time to build its page
and the page's size; and for every record's figure: the time and bytes of
SVG (what the report embeds), PNG at 100 dpi and PNG at 200 dpi (what a
sharp PNG on a high-density screen needs). Nothing is asserted.

Peer: `python -m hpcbench show` of the same file (part of hpcbench: the
text summary against the HTML page), run with this Python. The figures need
matplotlib.
"""
import argparse
import io
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

from build_peers import fail

SCRIPT = "bench_report.py"


def examples() -> list:
    """The paths of the installed package's shipped *-example.json files."""
    import hpcbench.examples
    return [hpcbench.examples.path(name) for name in hpcbench.examples.names() if name.endswith("-example.json")]


def wall(args: list, cwd: str) -> tuple:
    """(wall seconds, CPU seconds: user + system) of one command in a fresh interpreter, started
    in `cwd` (a scratch directory: a clone's hpcbench/ in the current one would shadow the installed one)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.monotonic()
    subprocess.run([sys.executable, "-m", "hpcbench", *args], check=True, capture_output=True, cwd=cwd)
    elapsed = time.monotonic() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return elapsed, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def command_line(runs: int) -> None:
    largest = max(examples(), key=os.path.getsize)
    with tempfile.TemporaryDirectory() as tmp:
        page = os.path.join(tmp, "report.html")
        report, show = [], []
        for _ in range(runs):             # interleaved: both see the same load on the machine
            report.append(wall(["report", largest, "-o", page], tmp))
            show.append(wall(["show", largest], tmp))
        size = os.path.getsize(page)
    r, s = statistics.median(w for w, _ in report), statistics.median(w for w, _ in show)
    rc, sc = statistics.median(c for _, c in report), statistics.median(c for _, c in show)
    worst = max(w for w, _ in report)
    print(f"largest example: {os.path.basename(largest)} ({os.path.getsize(largest) / 1e6:.2f} MB); "
          f"load average before: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    print(f"  hpcbench report: wall median {r:.2f} s, worst {worst:.2f} s over {runs} runs "
          f"(target < 5 s: {'met' if worst < 5 else 'NOT met'}); CPU (user + system) median {rc:.2f} s")
    print(f"  hpcbench show (peer, same runs): wall median {s:.2f} s, CPU median {sc:.2f} s; "
          f"report / show = {r / s:.1f} (wall), {rc / sc:.1f} (CPU)")
    print(f"  page: {size / 1e6:.2f} MB (target < 5 MB: {'met' if size < 5e6 else 'NOT met'})")


def in_process() -> None:
    import hpcbench
    from hpcbench import _registry
    from hpcbench.report import report_html

    print("\npages, built in one process (load + figures + HTML):")
    for path in examples():
        start = time.perf_counter()
        text = report_html(hpcbench.load(path))
        print(f"  {os.path.basename(path):<24} {time.perf_counter() - start:6.2f} s  {len(text) / 1e6:6.2f} MB")

    print("\nfigures: SVG (embedded) against PNG, time to encode and bytes (before base64)")
    print(f"  {'record':<34}{'SVG s':>7}{'SVG kB':>8}{'PNG100 s':>10}{'PNG100 kB':>11}{'PNG200 s':>10}"
          f"{'PNG200 kB':>11}")
    totals = [0.0] * 6
    for path in examples():
        for record in hpcbench.load(path).benchmarks:
            figure = _registry.get(record.name).plot(record)
            row = []
            for fmt, dpi in (("svg", None), ("png", 100), ("png", 200)):
                buffer = io.BytesIO()
                start = time.perf_counter()
                figure.savefig(buffer, format=fmt, dpi=dpi, metadata={"Date": None} if fmt == "svg" else None)
                row += [time.perf_counter() - start, len(buffer.getvalue()) / 1e3]
            totals = [t + v for t, v in zip(totals, row)]
            label = f"{os.path.basename(path)[:-13]}/{record.name}"
            print(f"  {label:<34}{row[0]:7.2f}{row[1]:8.0f}{row[2]:10.2f}{row[3]:11.0f}{row[4]:10.2f}{row[5]:11.0f}")
    print(f"  {'all':<34}{totals[0]:7.2f}{totals[1]:8.0f}{totals[2]:10.2f}{totals[3]:11.0f}{totals[4]:10.2f}"
          f"{totals[5]:11.0f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=5, help="runs of report and of show, interleaved (default 5)")
    args = ap.parse_args()
    if args.runs < 1:
        fail(SCRIPT, f"--runs must be at least 1, got {args.runs}")
    command_line(args.runs)
    in_process()


if __name__ == "__main__":
    main()
