"""The helpers of tests/test_hostile.py (issue 24): run the real CLI in a
subprocess, snapshot a folder before and after, judge a refusal or a safe
success, and build the hostile inputs (results files with hostile host names
and strings, fake mpi4py, FIFOs, symlinks to places outside the folder).

A probe never asserts a duration: a hang shows up as the subprocess timeout
(TIMEOUT seconds, HPCBENCH_HOSTILE_TIMEOUT overrides it while developing),
which fails the test instead of blocking the suite."""
from __future__ import annotations

import hashlib
import json
import os
import re
import resource
import stat
import subprocess
import sys
from dataclasses import dataclass

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
EXAMPLES = os.path.join(ROOT, "hpcbench", "examples")

#: Seconds a probe may take before it counts as a hang (never a measured figure: only a bound).
TIMEOUT = float(os.environ.get("HPCBENCH_HOSTILE_TIMEOUT", "60"))
#: Address space of a probe that may try to read an endless file or allocate without bound, so that a
#: failing probe ends in MemoryError instead of taking the shared machine's memory.
MEMORY_CAP = 3 << 30

#: What a user keeps in a folder and must never lose.
NOTES = "my notes: do not lose me\n"

# ---------------------------------------------------------------------------------------------- running


@dataclass
class Result:
    """A finished probe: exit status, stdout and stderr as text (undecodable
    bytes kept as surrogates so the checks see them)."""
    argv: list
    returncode: int
    stdout: str
    stderr: str

    def __str__(self) -> str:
        return (f"{' '.join(map(str, self.argv))!r} exited {self.returncode}\n"
                f"--- stdout ---\n{self.stdout[:3000]!r}\n--- stderr ---\n{self.stderr[:3000]!r}")


def probe_env(extra: dict | None = None, drop: tuple = ()) -> dict:
    """The environment of a probe: this one without its HPCBENCH_* settings
    (HPCBENCH_DEBUG would turn a refusal into a traceback) and without the
    names in `drop`, bytecode not written (the snapshot must not see
    __pycache__), hpcbench importable from the checkout, Open MPI allowed to
    run as root and to oversubscribe (tools/mpienv.sh), plus `extra`."""
    env = {k: v for k, v in os.environ.items() if k not in drop and not k.startswith("HPCBENCH_")}
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env["PYTHONPATH"] = ROOT + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    if os.geteuid() == 0:
        env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    env["OMPI_MCA_rmaps_base_oversubscribe"] = "1"
    env.update(extra or {})
    return env


def _cap_memory() -> None:      # runs in the child between fork and exec
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_CAP, MEMORY_CAP))


def run_cli(args: list, cwd, env: dict | None = None, cap_memory: bool = False, timeout: float | None = None,
            prefix: list | None = None) -> Result:
    """`python -m hpcbench ARGS` in `cwd`; fails the test (not blocks) if it
    does not end within the timeout. `prefix` goes before the interpreter
    (setpriv ...)."""
    argv = [*(prefix or []), sys.executable, "-m", "hpcbench", *map(str, args)]
    return run_argv(argv, cwd, env, cap_memory, timeout)


def run_argv(argv: list, cwd, env: dict | None = None, cap_memory: bool = False,
             timeout: float | None = None) -> Result:
    """Any command, judged like run_cli."""
    try:
        proc = subprocess.run(argv, cwd=str(cwd), env=env if env is not None else probe_env(),
                              stdin=subprocess.DEVNULL, capture_output=True, timeout=timeout or TIMEOUT,
                              preexec_fn=_cap_memory if cap_memory else None)
    except subprocess.TimeoutExpired as e:
        err = (e.stderr or b"").decode("utf-8", "surrogateescape")
        pytest.fail(f"hang: {' '.join(map(str, argv))!r} did not end within {timeout or TIMEOUT:g} s "
                    f"(stderr so far: {err[-500:]!r})", pytrace=False)
    return Result(argv, proc.returncode, proc.stdout.decode("utf-8", "surrogateescape"),
                  proc.stderr.decode("utf-8", "surrogateescape"))


# ---------------------------------------------------------------------------------------------- judging

#: C0 controls but \t and \n, DEL, C1 controls, the Unicode line and paragraph separators (a line break
#: to many viewers), the bidirectional embeddings, overrides and isolates (they reorder what a line
#: says), and lone surrogates (bytes that were not UTF-8).
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f\x80-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e"
                      "\u2066-\u2069\ud800-\udfff]")


def control_chars(text: str) -> list:
    """The control characters of `text` a terminal would act on (as repr)."""
    return sorted({repr(c) for c in _CONTROL.findall(text)})


def assert_clean(r: Result) -> None:
    """No control character reaches stdout or stderr except \\n and \\t."""
    for name, text in (("stdout", r.stdout), ("stderr", r.stderr)):
        bad = control_chars(text)
        assert not bad, f"control characters {bad} reach {name}:\n{r}"


def assert_no_crash(r: Result) -> None:
    for text in (r.stdout, r.stderr):
        assert "Traceback" not in text and "internal error" not in text, str(r)


def assert_refused(r: Result, *words: str) -> str:
    """Exit status not 0, stderr exactly one non-empty line (no traceback,
    no 'internal error', no control character), containing every one of
    `words` (case-insensitive); returns that line."""
    assert r.returncode != 0, f"not refused:\n{r}"
    assert r.returncode > 0, f"killed by signal {-r.returncode} instead of refusing:\n{r}"
    lines = r.stderr.splitlines()
    assert len(lines) == 1 and lines[0].strip(), f"a refusal is one line on stderr:\n{r}"
    assert_no_crash(r)
    assert_clean(r)
    for word in words:
        assert word.lower() in lines[0].lower(), f"the refusal does not say {word!r}:\n{r}"
    return lines[0]


def assert_succeeded(r: Result) -> None:
    """Exit 0, no traceback or internal error, no control character out."""
    assert r.returncode == 0, f"failed:\n{r}"
    assert_no_crash(r)
    assert_clean(r)


def assert_no_forged_line(r: Result, marker: str = "FORGED") -> None:
    """`marker` follows a line break inside every hostile string: it must
    never start a line of the output (the break was escaped or refused)."""
    for name, text in (("stdout", r.stdout), ("stderr", r.stderr)):
        for line in re.split("[\n\r\x0b\x0c\x1c-\x1e\x85\u2028\u2029]", text):
            assert not line.lstrip().startswith(marker), f"a hostile string starts a line of {name}:\n{r}"


# ---------------------------------------------------------------------------------------------- snapshots


def snapshot(folder) -> dict:
    """Every entry under `folder` (recursively, links not followed): relative
    path -> (type, mode, sha256 of a regular file's bytes or a link's target)."""
    out = {}
    folder = str(folder)
    for top, dirs, files in os.walk(folder):
        for name in dirs + files:
            path = os.path.join(top, name)
            info = os.lstat(path)
            mode = info.st_mode
            if stat.S_ISREG(mode):
                with open(path, "rb") as f:
                    what = hashlib.sha256(f.read()).hexdigest()
            elif stat.S_ISLNK(mode):
                what = os.readlink(path)
            else:
                what = ""
            out[os.path.relpath(path, folder)] = (stat.S_IFMT(mode), stat.S_IMODE(mode), what)
    return out


def changes(before: dict, after: dict) -> set:
    """Paths created, removed or changed between two snapshots."""
    return {p for p in before.keys() | after.keys() if before.get(p) != after.get(p)}


def assert_only_changed(before: dict, after: dict, allowed=(), may_vanish=()) -> set:
    """Nothing changed in the folder but the entries in `allowed` (created or
    replaced) and `may_vanish` (removed); returns what changed."""
    changed = changes(before, after)
    unexpected = {p for p in changed if p not in allowed and not (p in may_vanish and p not in after)}
    assert not unexpected, "changed in the folder: " + ", ".join(
        f"{p}: {before.get(p)} -> {after.get(p)}" for p in sorted(unexpected))
    return changed


def assert_device_intact() -> None:
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode), "/dev/null is no longer a character device"


# ---------------------------------------------------------------------------------------------- inputs


def example(name: str) -> dict:
    with open(os.path.join(EXAMPLES, name), encoding="utf-8") as f:
        return json.load(f)


def write_json(path, data) -> str:
    with open(path, "w", encoding="utf-8") as f:
        json.dump(data, f)
    return str(path)


def write_text(path, text: str) -> str:
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    return str(path)


#: Host names a hostile or unlucky results file may hold, by the name of the probe.
HOSTILE_HOSTS = {
    "newline": "hpcb1\nrank 9=evil slot=0",
    "option": "-Fevilcfg",
    "space": "hpcb1 evil",
    "semicolon": "hpcb1;touch pwned",
    "command": "$(touch pwned)",
    "osc-title": "\x1b]0;title\x07",
    "unicode-controls": "hpcb1\u0085FORGED\u2028x\u202e\x9b2J",
}

#: A string that tries every way to act on a terminal or forge a line: clear screen, window title,
#: hyperlink, carriage return, a line break followed by the marker assert_no_forged_line looks for,
#: C1 CSI, NEL and a right-to-left override.
HOSTILE_TEXT = ("x\x1b[2J\x1b]0;pwned\x07\x1b]8;;http://evil/\x1b\\link\x1b]8;;\x1b\\\r"
                "\nFORGED line\x9b31m\u0085FORGED\u202eeol")

#: An RFC 1123 host name (labels of letters, digits and inner hyphens, dot-separated).
_LABEL = r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
HOSTNAME = re.compile(rf"{_LABEL}(?:\.{_LABEL})*\Z")

#: One line of each launcher file, with the host as group 1.
LAUNCHER_LINE = {
    "rankfile": re.compile(r"rank \d+=(\S+) slot=[0-9,:-]+\Z"),
    "srun": re.compile(r"(\S+)\Z"),
    "hydra": re.compile(r"(\S+):\d+\Z"),
}


def assert_launcher_file(text: str, fmt: str, nprocs: int) -> None:
    """Every line of a launcher file but '#' comments is a line of its
    format with an RFC 1123 host name; no extra line (rankfile and srun: one
    a rank); no control character anywhere."""
    lines = text.split("\n")
    assert lines[-1] == "", f"{fmt}: no final newline: {text!r}"
    bad = control_chars(text)
    assert not bad, f"{fmt}: control characters {bad} in the launcher file:\n{text!r}"
    lines = [line for line in lines[:-1] if not line.startswith("#")]     # comments: the tool's own header
    for line in lines:
        m = LAUNCHER_LINE[fmt].match(line)
        assert m and HOSTNAME.match(m.group(1)) and len(m.group(1)) <= 253, \
            f"{fmt}: line {line!r} is not a line of the format with a valid host name:\n{text!r}"
    if fmt in ("rankfile", "srun"):
        assert len(lines) == nprocs, f"{fmt}: {len(lines)} lines for {nprocs} ranks:\n{text!r}"
    else:
        assert 1 <= len(lines) <= nprocs, text


def mapping_with_host(bad: str, victim: str = "hpcb1") -> dict:
    """mapping-example.json with host `victim` renamed `bad` wherever a host
    name lives: context.hosts, every record's node, every placement's host."""
    data = example("mapping-example.json")

    def rename(obj):
        if isinstance(obj, dict):
            return {k: (bad if v == victim and k in ("host", "node") else rename(v)) for k, v in obj.items()}
        if isinstance(obj, list):
            return [rename(v) for v in obj]
        return obj
    data = rename(data)
    data["context"]["hosts"] = [bad if h == victim else h for h in data["context"]["hosts"]]
    assert json.dumps(data).count(json.dumps(bad)) >= 3      # the rename reached the records
    return data


#: Where a hostile string can sit in a results file shown by `show`.
SHOW_PLACES = ("cpu-model", "hosts", "node", "warning", "failed-error", "skipped-reason", "unknown-benchmark")


def cache_with_hostile(places=SHOW_PLACES, text: str = HOSTILE_TEXT) -> dict:
    """cache-example.json with `text` in each of `places`."""
    data = example("cache-example.json")
    rec = data["benchmarks"][0]
    started = rec["started"]
    if "cpu-model" in places:
        data["context"]["cpu_model"] = "EPYC " + text
    if "hosts" in places:
        data["context"]["hosts"] = ["vm" + text]
    if "node" in places:
        rec["node"] = "vm" + text
    if "warning" in places:
        rec["warnings"] = list(rec.get("warnings", [])) + ["warn " + text]
    if "failed-error" in places:
        data["benchmarks"].append({"name": "cache", "node": "vm", "started": started, "status": "failed",
                                   "error": "boom " + text, "traceback": "tb " + text})
    if "skipped-reason" in places:
        data["benchmarks"].append({"name": "memory", "node": "vm", "started": started, "status": "skipped",
                                   "reason": "why " + text})
    if "unknown-benchmark" in places:
        data["benchmarks"].append({"name": "evil" + text, "node": "vm", "started": started, "status": "ok",
                                   "parameters": {}, "raw": {}, "derived": {}})
    return data


def non_ascii_cache() -> dict:
    data = example("cache-example.json")
    data["context"]["hosts"] = ["nœud-ü-ノード"]
    data["context"]["cpu_model"] = "Prozessor™ — µarch «ζ»"
    data["benchmarks"][0]["node"] = "nœud-ü-ノード"
    return data


def francesca_with(cls: str, index: int, field: str, value) -> dict:
    """The Table 3 profile with one value replaced."""
    data = example("francesca-profile.json")
    data["classes"][cls][index][field] = value
    return data


def fake_mpi4py(folder) -> str:
    """A folder holding an `mpi4py` package whose import fails loudly; put
    it first on PYTHONPATH to prove a command never imports mpi4py."""
    pkg = os.path.join(str(folder), "mpi4py")
    os.makedirs(pkg)
    write_text(os.path.join(pkg, "__init__.py"), 'raise ImportError("mpi4py must not be imported")\n')
    return str(folder)


def no_mpi_env(fake_folder: str) -> dict:
    """The fake mpi4py first on the path, and an Open MPI that cannot
    initialise (a point-to-point layer that does not exist): a command that
    reaches MPI_Init through hpcbench._core rather than mpi4py fails too."""
    env = probe_env({"OMPI_MCA_pml": "hpcbench_hostile_probe_no_such_pml"})
    env["PYTHONPATH"] = fake_folder + os.pathsep + env["PYTHONPATH"]
    return env


def is_results_text(path) -> bool:
    with open(path, "rb") as f:
        head = f.read(200).decode("utf-8", "replace")
    return '"hpcbench-results"' in head

