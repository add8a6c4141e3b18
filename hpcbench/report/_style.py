"""The report's one stylesheet, inlined into the page (no external request):
light, printable, readable on a ticket; red for disagreements, amber for
warnings."""

CSS = """
:root { --ink: #1f2328; --muted: #59636e; --line: #d0d7de; --page: #f5f6f8; --card: #ffffff;
  --bad: #b42318; --bad-bg: #fdeceb; --warn: #8a5300; --warn-bg: #fff5e1; --good: #1a7f37; --good-bg: #e7f5ea;
  --accent: #1f4e79; }
* { box-sizing: border-box; }
body { margin: 0; background: var(--page); color: var(--ink);
  font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", Arial, sans-serif; }
header.page { background: var(--accent); color: #fff; padding: 18px 28px 16px; }
header.page h1 { margin: 0 0 4px; font-size: 22px; font-weight: 650; }
header.page p { margin: 0; opacity: 0.9; font-size: 14px; }
main { max-width: 1180px; margin: 0 auto; padding: 8px 24px 32px; }
h2 { font-size: 19px; margin: 0 0 2px; }
h2 .title { font-weight: 400; color: var(--muted); font-size: 15px; }
h3 { font-size: 14px; text-transform: uppercase; letter-spacing: 0.04em; color: var(--muted); margin: 16px 0 6px; }
section { background: var(--card); border: 1px solid var(--line); border-radius: 8px; padding: 14px 20px 16px;
  margin: 18px 0; }
a { color: var(--accent); }
.meta { color: var(--muted); font-size: 13px; margin: 2px 0 8px; }
table { border-collapse: collapse; font-size: 14px; }
th, td { text-align: left; vertical-align: top; padding: 3px 14px 3px 0; }
table.grid th, table.grid td { border-bottom: 1px solid var(--line); padding: 4px 12px 4px 6px; }
table.grid thead th { border-bottom: 2px solid var(--line); color: var(--muted); font-weight: 600; }
table.context { width: 100%; }
table.context td:first-child { color: var(--muted); font-weight: 600; white-space: nowrap; width: 11em; }
table.grid.context td:not(:first-child) { width: 44%; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
tr.differs td { background: #fffbe6; }
.badge { display: inline-block; padding: 0 8px; border-radius: 10px; font-size: 12px; font-weight: 650;
  vertical-align: 2px; margin-left: 6px; }
.badge.ok { background: var(--good-bg); color: var(--good); }
.badge.failed { background: var(--bad-bg); color: var(--bad); }
.badge.skipped, .badge.absent { background: #eceff1; color: var(--muted); }
.count-bad { color: var(--bad); font-weight: 650; }
.count-warn { color: var(--warn); font-weight: 650; }
.meaning { background: #eef4fb; border-left: 4px solid var(--accent); padding: 6px 14px; margin: 10px 0;
  border-radius: 0 6px 6px 0; }
.meaning ul, .findings ul { margin: 4px 0; padding-left: 20px; }
.findings { padding: 6px 14px; margin: 10px 0; border-radius: 0 6px 6px 0; }
.findings.bad { background: var(--bad-bg); border-left: 4px solid var(--bad); }
.findings.warn { background: var(--warn-bg); border-left: 4px solid #d99400; }
.findings.failed { background: var(--bad-bg); border-left: 4px solid var(--bad); }
.findings.skipped { background: #eceff1; border-left: 4px solid #90a4ae; }
.findings strong { display: block; font-size: 13px; text-transform: uppercase; letter-spacing: 0.04em; }
.findings.bad strong, .findings.failed strong { color: var(--bad); }
.findings.warn strong { color: var(--warn); }
#answer { border-left: 4px solid var(--accent); }
#answer ul.wrong li { color: var(--bad); }
#answer ul.wrong li a { font-size: 13px; }
#answer p.fine { color: var(--good); font-weight: 600; }
figure { margin: 12px 0 6px; text-align: center; }
figure img { max-width: 100%; height: auto; border: 1px solid #eaeef2; border-radius: 4px; background: #fff; }
pre.table { font: 12.5px/1.4 ui-monospace, "DejaVu Sans Mono", Menlo, Consolas, monospace; background: #f6f8fa;
  border: 1px solid var(--line); border-radius: 6px; padding: 10px 12px; overflow-x: auto; margin: 6px 0 0; }
pre.table span.bad { color: var(--bad); font-weight: 700; background: var(--bad-bg); }
details { margin-top: 8px; }
.wide { overflow-x: auto; }
table.across td { white-space: nowrap; }
summary { cursor: pointer; color: var(--muted); font-size: 13px; }
.pair { display: grid; grid-template-columns: 1fr 1fr; gap: 18px; }
.pair > div { min-width: 0; }
.pair h4 { margin: 8px 0 0; font-size: 14px; }
.better { color: var(--good); font-weight: 650; }
.worse { color: var(--bad); font-weight: 650; }
.note { color: var(--muted); font-size: 13px; }
footer { color: var(--muted); font-size: 12px; text-align: center; padding: 4px 0 24px; }
@media print { body { background: #fff; } section { border: none; } pre.table { white-space: pre-wrap; }
  figure { break-inside: avoid-page; }
  header.page { background: #fff; color: var(--ink); border-bottom: 2px solid var(--accent); } }
"""
