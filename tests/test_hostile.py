"""Issue 24: nothing a path, a results file or the environment can make
hpcbench do. Every probe of the issue runs the real CLI in a subprocess in
a fresh folder and checks, byte for byte, that nothing in the folder changed
but the output the probe names; then that the command either refused (exit
status not 0, one line on stderr, no traceback) or succeeded without letting
the hostile content through (no control character to the terminal, no forged
line, no extra line or option-like host in a launcher file, no MPI start).

Layout of each probe's folder (pytest's tmp_path): `work/` is the current
directory of the command, `elsewhere/` holds the victims links point at.
Helpers: tests/hostile_probes.py. No probe asserts a duration; a hang is the
subprocess timeout."""
import os
import shutil
import signal
import stat
import subprocess
import sys

import hostile_probes as hp
import pytest
from hostile_probes import NOTES, assert_only_changed, assert_refused, run_cli, snapshot

#: The cheapest run that writes a results file: a cache sweep up to 64 KiB, one pass, one sample.
RUN = ["run", "cache", "-q", "--cache-max", "64KiB", "--cache-passes", "1", "--cache-samples", "1",
       "--no-cache-refine", "--no-cache-extend"]
#: What a run on work/r.json may create or change.
RUN_OUTPUTS = {"work/r.json", "work/r.json.bak", "work/r.degr"}

VICTIM = "#!/bin/sh\necho the user's script\n"


@pytest.fixture
def box(tmp_path):
    """(root, work): work/ is the command's folder, elsewhere/victim.sh and
    elsewhere/notes.txt are files outside it a link may point at."""
    work = tmp_path / "work"
    work.mkdir()
    (tmp_path / "elsewhere").mkdir()
    hp.write_text(tmp_path / "elsewhere" / "victim.sh", VICTIM)
    hp.write_text(tmp_path / "elsewhere" / "notes.txt", NOTES)
    return tmp_path, work


# ------------------------------------------------------------------ 1, 2: the lock file, symlinked -o and .bak

def test_symlink_planted_at_the_lock_path_is_not_followed(box):
    root, work = box
    os.symlink("../elsewhere/victim.sh", work / ".r.json.lock")
    before = snapshot(root)
    r = run_cli([*RUN, "-o", "r.json"], work)
    after = snapshot(root)
    assert_only_changed(before, after, allowed=RUN_OUTPUTS)      # the link stays, the victim is unchanged
    if r.returncode:
        assert_refused(r)
    else:
        hp.assert_succeeded(r)
        assert hp.is_results_text(work / "r.json")


def test_hard_link_planted_at_the_lock_path_leaves_its_file_alone(box):
    root, work = box
    os.link(root / "elsewhere" / "victim.sh", work / ".r.json.lock")
    before = snapshot(root)
    r = run_cli([*RUN, "-o", "r.json"], work)
    after = snapshot(root)
    assert_only_changed(before, after, allowed=RUN_OUTPUTS | {"work/.r.json.lock"})
    assert (root / "elsewhere" / "victim.sh").read_text() == VICTIM
    if r.returncode:
        assert_refused(r)
    else:
        hp.assert_succeeded(r)


def start_long_run(work, output: str) -> subprocess.Popen:
    """A run of some seconds on `output` (read its first progress line:
    it holds the results file's lock by then)."""
    argv = [sys.executable, "-m", "hpcbench", "run", "cache", "shared-caches", "-o", output, "--cache-passes", "2"]
    proc = subprocess.Popen(argv, cwd=str(work), env=hp.probe_env(), stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    return proc


def stop(proc: subprocess.Popen) -> tuple:
    """SIGTERM, then (stdout, stderr); killed if it does not end within the timeout."""
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
    try:
        return proc.communicate(timeout=hp.TIMEOUT)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        pytest.fail("the run did not end after SIGTERM", pytrace=False)


def test_a_second_run_through_another_path_meets_the_same_lock(box):
    """work/alias is a link to work itself: alias/r.json is r.json by
    another name, and the lock must see that (device and inode)."""
    root, work = box
    shutil.copy(os.path.join(hp.EXAMPLES, "cache-example.json"), work / "r.json")
    os.symlink(".", work / "alias")
    before = snapshot(root)
    first = start_long_run(work, "r.json")
    try:
        assert first.stderr.readline(), "the first run printed no progress line"
        second = run_cli([*RUN, "-o", "alias/r.json"], work)
    finally:
        stop(first)
    assert_only_changed(before, snapshot(root), allowed=RUN_OUTPUTS)
    assert_refused(second, "another")


def test_symlinked_output_of_run_is_refused(box):
    root, work = box
    shutil.copy(os.path.join(hp.EXAMPLES, "cache-example.json"), root / "elsewhere" / "real.json")
    os.symlink("../elsewhere/real.json", work / "link.json")
    before = snapshot(root)
    r = run_cli([*RUN, "-o", "link.json"], work)
    assert_only_changed(before, snapshot(root))
    assert_refused(r)


@pytest.mark.parametrize("bak", ["symlink", "notes"])
def test_a_backup_that_is_not_a_results_file_is_not_clobbered(box, bak):
    root, work = box
    shutil.copy(os.path.join(hp.EXAMPLES, "cache-example.json"), work / "r.json")
    if bak == "symlink":
        os.symlink("../elsewhere/notes.txt", work / "r.json.bak")
    else:
        hp.write_text(work / "r.json.bak", NOTES)
    before = snapshot(root)
    r = run_cli([*RUN, "-o", "r.json"], work)
    assert_only_changed(before, snapshot(root))        # the old results would have no backup to go to
    assert_refused(r)


def test_under_mpiexec_a_deprecated_flag_and_a_bad_output_are_one_line(box):
    """Open MPI's own banner stays (it is the launcher's); hpcbench says one
    line, not a deprecation note before the refusal."""
    root, work = box
    mpiexec = shutil.which("mpiexec")
    if mpiexec is None:
        pytest.skip("no mpiexec")
    hp.write_text(work / "notes.txt", NOTES)
    before = snapshot(root)
    r = hp.run_argv([mpiexec, "-n", "2", sys.executable, "-m", "hpcbench", "run", "shared-caches", "--rounds", "2",
                     "-q", "-o", "notes.txt"], work)
    assert_only_changed(before, snapshot(root))
    assert r.returncode != 0, str(r)
    hp.assert_no_crash(r)
    ours = [line for line in r.stderr.splitlines() if line.startswith("hpcbench")]
    assert len(ours) == 1 and "never overwritten" in ours[0], str(r)


# ------------------------------------------------------------------ 3: output flags onto what is not theirs

PREDICT = ["predict", "wavefront", "--profile", "example:francesca-profile", "--grid", "240", "--procs", "16x16",
           "--machine", "64x2x2", "--wg", "3.3e-7"]
WRITERS = {
    "map": ["map", "example:mapping", "-n", "2", "--kind", "memory", "--format", "rankfile"],
    "degr": ["degr", "example:network"],
    "predict": PREDICT,
    "report": ["report", "example:node"],
}
FORCEABLE = ("map", "degr", "predict")


def make_target(root, work, kind: str) -> str:
    """work/out.txt as a probe wants it; returns its name relative to work."""
    target = work / "out.txt"
    if kind == "notes":
        hp.write_text(target, NOTES)
    elif kind == "fifo":
        os.mkfifo(target)
    elif kind == "symlink-devnull":           # a device reached through the folder: never /dev/null itself
        os.symlink("/dev/null", target)
    elif kind == "symlink-outside":
        os.symlink("../elsewhere/victim.sh", target)
    return "out.txt"


@pytest.mark.parametrize("kind", ["notes", "fifo", "symlink-devnull", "symlink-outside"])
@pytest.mark.parametrize("command", list(WRITERS))
def test_output_flag_never_replaces_what_is_not_its_own(box, command, kind):
    root, work = box
    name = make_target(root, work, kind)
    before = snapshot(root)
    r = run_cli([*WRITERS[command], "-o", name], work)
    assert_only_changed(before, snapshot(root))
    hp.assert_device_intact()
    assert_refused(r)


@pytest.mark.parametrize("command", FORCEABLE)
def test_force_replaces_a_users_file(box, command):
    root, work = box
    make_target(root, work, "notes")
    before = snapshot(root)
    r = run_cli([*WRITERS[command], "-o", "out.txt", "--force"], work)
    hp.assert_succeeded(r)
    assert_only_changed(before, snapshot(root), allowed={"work/out.txt"})
    assert (work / "out.txt").read_text(encoding="utf-8") != NOTES


@pytest.mark.parametrize("kind", ["fifo", "symlink-outside"])
@pytest.mark.parametrize("command", FORCEABLE)
def test_force_never_writes_through_a_link_or_into_a_fifo(box, command, kind):
    root, work = box
    make_target(root, work, kind)
    before = snapshot(root)
    r = run_cli([*WRITERS[command], "-o", "out.txt", "--force"], work)
    assert_only_changed(before, snapshot(root))
    hp.assert_device_intact()
    assert_refused(r)


# ------------------------------------------------------------------ 4: hostile host names to launcher files

NPROCS = 4          # one rank on each of the example's four hosts, so the renamed one is used


def map_args(results: str, fmt: str) -> list:
    return ["map", results, "-n", str(NPROCS), "--kind", "memory", "--format", fmt]


def judge_mapping(r, fmt: str, written: str | None) -> None:
    """Refused with one line about the host, or a launcher file whose every
    line is well formed with a valid host (a listing: escaped, no extra line)."""
    hp.assert_clean(r)
    hp.assert_no_forged_line(r)
    if r.returncode:
        assert_refused(r, "host")
        return
    hp.assert_succeeded(r)
    text = written if written is not None else r.stdout
    if fmt == "list":
        assert len(text.splitlines()) == 2 + NPROCS, f"the listing has extra lines:\n{r}"
    else:
        hp.assert_launcher_file(text, fmt, NPROCS)


#: Every name through the rankfile; the line breakers and the option through the other formats (the
#: listing is for a terminal: escaped names are fine there, extra lines are not).
HOST_CASES = [pytest.param(name, fmt, id=f"{name}-{fmt}") for name in hp.HOSTILE_HOSTS for fmt in ["rankfile"]]
HOST_CASES += [pytest.param(name, fmt, id=f"{name}-{fmt}")
               for name in ("newline", "option", "unicode-controls") for fmt in ("srun", "hydra")]
HOST_CASES += [pytest.param(name, "list", id=f"{name}-list") for name in ("newline", "unicode-controls")]


@pytest.mark.parametrize("name, fmt", HOST_CASES)
def test_hostile_host_names_to_stdout(box, name, fmt):
    root, work = box
    hp.write_json(work / "m.json", hp.mapping_with_host(hp.HOSTILE_HOSTS[name]))
    before = snapshot(root)
    r = run_cli(map_args("m.json", fmt), work)
    assert_only_changed(before, snapshot(root))
    judge_mapping(r, fmt, None)


@pytest.mark.parametrize("fmt", ["rankfile", "srun", "hydra"])
def test_the_launcher_checks_accept_a_clean_mapping(box, fmt):
    """The control of the probes above: the example's own hosts pass the
    same checks (with -o; the rankfile to stdout too), so a refusal above is
    the name's."""
    root, work = box
    if fmt == "rankfile":
        r = run_cli(map_args("example:mapping", fmt), work)
        judge_mapping(r, fmt, None)
        assert r.returncode == 0
    r = run_cli([*map_args("example:mapping", fmt), "-o", "launch.txt"], work)
    judge_mapping(r, fmt, (work / "launch.txt").read_text(encoding="utf-8"))
    assert r.returncode == 0


@pytest.mark.parametrize("name, fmt", [("newline", "rankfile"), ("newline", "srun"), ("newline", "hydra"),
                                       ("option", "rankfile")])
def test_hostile_host_names_to_a_launcher_file(box, name, fmt):
    root, work = box
    hp.write_json(work / "m.json", hp.mapping_with_host(hp.HOSTILE_HOSTS[name]))
    before = snapshot(root)
    r = run_cli([*map_args("m.json", fmt), "-o", "launch.txt"], work)
    assert_only_changed(before, snapshot(root), allowed={"work/launch.txt"})
    written = (work / "launch.txt").read_text(encoding="utf-8", errors="surrogateescape") \
        if (work / "launch.txt").exists() else None
    if r.returncode:
        assert written is None, "a refused mapping still wrote its file"
    else:
        assert written is not None, f"-o did not write the file:\n{r}"
    judge_mapping(r, fmt, written)


@pytest.mark.parametrize("name", ["newline", "option", "command"])
def test_hostile_host_names_given_with_hosts(box, name):
    root, work = box
    before = snapshot(root)
    r = run_cli([*map_args("example:mapping", "rankfile"), "--hosts", f"hpcb0,{hp.HOSTILE_HOSTS[name]},hpcb2,hpcb3"],
                work)
    assert_only_changed(before, snapshot(root))
    judge_mapping(r, "rankfile", None)


# ------------------------------------------------------------------ 5: escape sequences and line breaks through show

def judge_display(r) -> None:
    hp.assert_clean(r)
    hp.assert_no_forged_line(r)
    if r.returncode:
        assert_refused(r)
    else:
        hp.assert_succeeded(r)


@pytest.mark.parametrize("place", hp.SHOW_PLACES)
def test_show_text_escapes_hostile_strings(box, place):
    root, work = box
    hp.write_json(work / "h.json", hp.cache_with_hostile([place]))
    before = snapshot(root)
    r = run_cli(["show", "h.json"], work)
    assert_only_changed(before, snapshot(root))
    judge_display(r)


@pytest.mark.parametrize("fmt", ["text", "csv", "json"])
def test_show_every_format_escapes_hostile_strings_everywhere(box, fmt):
    root, work = box
    hp.write_json(work / "h.json", hp.cache_with_hostile())
    before = snapshot(root)
    r = run_cli(["show", "h.json", "--format", fmt], work)
    assert_only_changed(before, snapshot(root))
    judge_display(r)


def test_map_listing_escapes_a_hostile_cpu_model_and_node(box):
    root, work = box
    data = hp.mapping_with_host("hpcb1")
    data["context"]["cpu_model"] = hp.HOSTILE_TEXT
    data["benchmarks"][1]["warnings"] = ["warn " + hp.HOSTILE_TEXT]
    hp.write_json(work / "m.json", data)
    before = snapshot(root)
    r = run_cli(map_args("m.json", "list"), work)
    assert_only_changed(before, snapshot(root))
    judge_display(r)


# ------------------------------------------------------------------ 6: FIFOs and endless files to every reader

@pytest.fixture(scope="module")
def degr_check(tmp_path_factory):
    """tests/degr_check.c built against libhpcbdegr (as test_degr_capi.py does)."""
    cc = shutil.which(os.environ.get("CC", "cc")) or shutil.which("gcc")
    if cc is None:
        pytest.skip("no C compiler")
    flags = subprocess.run([sys.executable, "-m", "hpcbench", "config", "--cflags", "--libs"],
                           capture_output=True, text=True, check=True, env=hp.probe_env()).stdout.split()
    exe = str(tmp_path_factory.mktemp("capi") / "degr_check")
    subprocess.run([cc, "-std=c99", "-Wall", "-Werror", os.path.join(hp.HERE, "degr_check.c"), "-o", exe, *flags],
                   check=True)
    return exe


ADVISE = ["advise", "grid", "--rows", "2", "--cols", "2", "--row-volume", "1000000", "--col-volume", "1000000"]
MAP = ["--kind", "memory", "--format", "rankfile", "-n", "2"]
READERS = {
    "show-fifo": ["show", "FIFO"],
    "show-devzero": ["show", "/dev/zero"],
    "report-fifo": ["report", "FIFO"],
    "report-second-fifo": ["report", "example:node", "FIFO", "-o", "cmp.html"],
    "degr-fifo": ["degr", "FIFO", "-o", "x.degr"],
    "map-fifo": ["map", "FIFO", *MAP],
    "map-topology-fifo": ["map", "example:mapping", *MAP, "--topology", "FIFO"],
    "map-topology-devzero": ["map", "example:mapping", *MAP, "--topology", "/dev/zero"],
    "predict-profile-fifo": [*PREDICT[:2], "--profile", "FIFO", *PREDICT[4:]],
    "predict-profile-urandom": [*PREDICT[:2], "--profile", "/dev/urandom", *PREDICT[4:]],
    "predict-profile-devzero": [*PREDICT[:2], "--profile", "/dev/zero", *PREDICT[4:]],
    "predict-results-fifo": [*PREDICT[:2], "--results", "FIFO", *PREDICT[4:]],
    "advise-results-fifo": [*ADVISE, "--results", "FIFO"],
}


@pytest.mark.parametrize("reader", list(READERS))
def test_readers_refuse_fifos_and_endless_files(box, reader):
    root, work = box
    os.mkfifo(work / "FIFO")
    before = snapshot(root)
    r = run_cli(READERS[reader], work, cap_memory=True)
    assert_only_changed(before, snapshot(root))
    assert_refused(r)


PY_DEGR_READER = """
import sys
from hpcbench.network import read_degradation_file
try:
    read_degradation_file(sys.argv[1])
except ValueError as e:
    sys.exit(f"refused: {e}")
print("read a FIFO")
"""


@pytest.mark.parametrize("path", ["FIFO", "/dev/zero"])
def test_python_degradation_reader_refuses_a_fifo(box, path):
    root, work = box
    os.mkfifo(work / "FIFO")
    before = snapshot(root)
    r = hp.run_argv([sys.executable, "-c", PY_DEGR_READER, path], work, cap_memory=True)
    assert_only_changed(before, snapshot(root))
    assert_refused(r, "refused:")


@pytest.mark.parametrize("path", ["FIFO", "/dev/zero"])
def test_c_degradation_reader_refuses_a_fifo(box, degr_check, path):
    root, work = box
    os.mkfifo(work / "FIFO")
    before = snapshot(root)
    r = hp.run_argv([degr_check, path, "1", "1"], work, cap_memory=True)
    assert_only_changed(before, snapshot(root))
    assert r.returncode == 0, str(r)
    load = next(line for line in r.stdout.splitlines() if line.startswith("load "))
    assert load.split()[1].startswith("-"), f"the C API loaded {path}:\n{r}"


# ------------------------------------------------------------------ 7: commands that measure nothing never start MPI

NO_MPI = {
    "list": (["list"], set()),
    "show": (["show", "example:cache"], set()),
    "report": (["report", "example:node", "-o", "x.html"], {"work/x.html"}),
    "map": (["map", "example:mapping", *MAP], set()),
    "degr": (["degr", "example:network", "-o", "n.degr"], {"work/n.degr"}),
    "advise": ([*ADVISE, "--results", "example:network"], set()),
    "predict": (PREDICT, set()),
    "config": (["config", "--cflags", "--libs"], set()),
}


@pytest.mark.parametrize("command", list(NO_MPI))
def test_commands_that_measure_nothing_never_start_mpi(box, command):
    root, work = box
    fake = hp.fake_mpi4py(root / "fake")
    args, outputs = NO_MPI[command]
    before = snapshot(root)
    r = run_cli(args, work, env=hp.no_mpi_env(fake))
    assert_only_changed(before, snapshot(root), allowed=outputs)
    hp.assert_succeeded(r)
    assert "mpi4py must not be imported" not in r.stderr


def test_import_and_load_never_start_mpi(box):
    root, work = box
    fake = hp.fake_mpi4py(root / "fake")
    before = snapshot(root)
    r = hp.run_argv([sys.executable, "-c", "import hpcbench; print(hpcbench.load('example:cache').names())"], work,
                    env=hp.no_mpi_env(fake))
    assert_only_changed(before, snapshot(root))
    hp.assert_succeeded(r)
    assert "cache" in r.stdout


def unprivileged_prefix() -> list:
    """setpriv to uid/gid 65534, or pytest.skip saying why it cannot be used."""
    if os.geteuid() != 0:
        pytest.skip("not root: cannot switch to an unprivileged user")
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        pytest.skip("no setpriv")
    prefix = [setpriv, "--reuid=65534", "--regid=65534", "--clear-groups"]
    proc = subprocess.run([*prefix, sys.executable, "-c", "import numpy, hpcbench"], capture_output=True, text=True,
                          cwd="/", env=hp.probe_env(), timeout=hp.TIMEOUT)
    if proc.returncode:
        pytest.skip("uid 65534 cannot import numpy and hpcbench from this interpreter: "
                    + (proc.stderr.strip().splitlines() or ["?"])[-1])
    return prefix


@pytest.mark.parametrize("args", [["list"], ["show", "example:cache"]], ids=["list", "show"])
def test_unwritable_tmpdir_and_home(box, args):
    """This user, with nowhere to put temporary files: a command that
    measures nothing needs none (Open MPI's session folder would)."""
    root, work = box
    fake = hp.fake_mpi4py(root / "fake")
    env = hp.no_mpi_env(fake)
    env.update(TMPDIR="/nonexistent", HOME="/nonexistent")
    before = snapshot(root)
    r = run_cli(args, work, env=env)
    assert_only_changed(before, snapshot(root))
    hp.assert_succeeded(r)
    assert r.stderr == "", str(r)


@pytest.mark.parametrize("args", [["list"], ["show", "example:cache"]], ids=["list", "show"])
def test_unprivileged_user_with_unwritable_tmpdir(args):
    prefix = unprivileged_prefix()
    env = hp.probe_env({"TMPDIR": "/nonexistent", "HOME": "/nonexistent"})
    r = run_cli(args, "/", env=env, prefix=prefix)
    hp.assert_succeeded(r)
    assert r.stderr == "", str(r)


# ------------------------------------------------------------------ 8: absurd inputs, bounded before work starts

def test_simulate_a_million_ranks_is_refused_before_allocating(box):
    root, work = box
    before = snapshot(root)
    r = run_cli([*PREDICT[:4], "--grid", "1000", "--procs", "1000x1000", "--machine", "250000x2x2", "--wg", "3.3e-7",
                 "--simulate"], work, cap_memory=True)
    assert_only_changed(before, snapshot(root))
    assert_refused(r)


def test_advise_refuses_non_finite_costs(box):
    root, work = box
    before = snapshot(root)
    r = run_cli([*ADVISE, "--ratdist", "1e308,1e308"], work)
    assert_only_changed(before, snapshot(root))
    assert_refused(r)


#: (class, region, field, value, words the refusal must say one of). Infinity and NaN are written as
#: the bare literals Python's json emits and strict JSON has no place for: refusing the file as not JSON
#: is the right answer there, since no field can be named before the text parses.
PROFILE_CASES = {
    "negative-latency": ("on-chip", 0, "latency_us", -0.655, ("latency",)),
    "infinite-bandwidth": ("off-node", 1, "bandwidth_GBps", float("inf"), ("bandwidth", "JSON")),
    "inf-text-bandwidth": ("off-node", 0, "bandwidth_GBps", "inf", ("bandwidth",)),
    "true-latency": ("off-processor", 1, "latency_us", True, ("latency",)),
    "nan-latency": ("off-node", 0, "latency_us", float("nan"), ("latency", "JSON")),
    "zero-bandwidth": ("on-chip", 0, "bandwidth_GBps", 0, ("bandwidth",)),
}


@pytest.mark.parametrize("case", list(PROFILE_CASES))
def test_non_physical_profile_values_are_refused_naming_the_field(box, case):
    root, work = box
    cls, index, field, value, words = PROFILE_CASES[case]
    hp.write_json(work / "profile.json", hp.francesca_with(cls, index, field, value))
    before = snapshot(root)
    r = run_cli([*PREDICT[:2], "--profile", "profile.json", *PREDICT[4:]], work)
    assert_only_changed(before, snapshot(root))
    line = assert_refused(r)
    assert not words or any(w.lower() in line.lower() for w in words), f"the refusal names no field of {words}:\n{r}"


# ------------------------------------------------------------------ 9: any locale, any PYTHONIOENCODING

LOCALES = {
    "ioencoding-ascii": {"PYTHONIOENCODING": "ascii"},
    "C": {"LANG": "C", "LC_ALL": "C"},
    "C-no-utf8-mode": {"LANG": "C", "LC_ALL": "C", "PYTHONUTF8": "0"},
}


@pytest.mark.parametrize("results", ["example", "non-ascii"])
@pytest.mark.parametrize("locale", list(LOCALES))
def test_show_under_any_locale(box, locale, results):
    root, work = box
    path = "example:cache"
    if results == "non-ascii":
        path = hp.write_json(work / "u.json", hp.non_ascii_cache())
    before = snapshot(root)
    r = run_cli(["show", path], work, env=hp.probe_env(LOCALES[locale], drop=("LC_CTYPE", "LANGUAGE")))
    assert_only_changed(before, snapshot(root))
    hp.assert_succeeded(r)
    assert "cache levels on" in r.stdout


def test_show_csv_of_non_ascii_hosts_with_ascii_output(box):
    root, work = box
    hp.write_json(work / "u.json", hp.non_ascii_cache())
    before = snapshot(root)
    r = run_cli(["show", "u.json", "--format", "csv"], work, env=hp.probe_env(LOCALES["ioencoding-ascii"]))
    assert_only_changed(before, snapshot(root))
    hp.assert_succeeded(r)


# ------------------------------------------------------------------ 10: a disk full for the whole run

def test_a_run_whose_disk_is_full_from_the_start_says_where_its_results_went(box):
    """The target folder is a 16 KiB tmpfs (root only): no results file ever
    fits. The run must not claim a last good file is kept, and must name the
    fallback file it wrote (the run's folder, $TMPDIR or $HOME: all three
    are inside the snapshot)."""
    root, work = box
    mnt = root / "full"
    mnt.mkdir()
    if os.geteuid() != 0:
        pytest.skip("not root: cannot mount a small tmpfs")
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=16k", "tmpfs", str(mnt)], capture_output=True,
                             text=True)
    if mounted.returncode:
        pytest.skip(f"cannot mount a 16 KiB tmpfs here: {mounted.stderr.strip()}")
    try:
        fd = os.open(mnt / "filler", os.O_WRONLY | os.O_CREAT)     # every free block: not even a small file fits
        try:
            while os.write(fd, b"\0" * 4096):
                pass
        except OSError:
            pass
        finally:
            os.close(fd)
        for d in ("tmp", "home"):
            (root / d).mkdir()
        before = snapshot(root)
        env = hp.probe_env({"TMPDIR": str(root / "tmp"), "HOME": str(root / "home")})
        r = run_cli([*RUN, "-o", str(mnt / "r.json")], work, env=env)
        after = snapshot(root)
        assert r.returncode > 0, str(r)
        hp.assert_no_crash(r)
        assert "last good file" not in r.stderr, f"claims a last good file where there is none:\n{r}"
        new = {p for p in hp.changes(before, after) if p in after and not p.startswith("full/")
               and not p.startswith(("tmp/ompi.", "tmp/prte."))}          # Open MPI's session folder
        full_files = [p for p in after if p.startswith("full/") and p not in before]
        assert not [p for p in full_files if not p.endswith(".lock")], f"left in the full folder: {full_files}"
        results = [p for p in new if after[p][0] == stat.S_IFREG and hp.is_results_text(root / p)]
        assert len(results) == 1 and len(new) == 1, f"expected one fallback results file, got {sorted(new)}:\n{r}"
        assert os.path.basename(results[0]) in r.stderr, f"the fallback file is not named:\n{r}"
    finally:
        subprocess.run(["umount", str(mnt)], capture_output=True)


# ------------------------------------------------------------------ 11: SIGTERM during a run

def test_sigterm_during_a_run_says_it_stopped_and_what_is_on_disk(box):
    root, work = box
    before = snapshot(root)
    proc = start_long_run(work, "r.json")
    try:
        first = proc.stderr.readline()         # the first progress line: the run is measuring
        assert first, "the run printed no progress line"
    finally:
        out, err = stop(proc)
    after = snapshot(root)
    r = hp.Result(proc.args, proc.returncode, out.decode("utf-8", "replace"), (first + err).decode("utf-8", "replace"))
    assert_only_changed(before, after, allowed=RUN_OUTPUTS)
    assert r.returncode != 0, str(r)
    hp.assert_no_crash(r)
    progress = [line for line in r.stderr.splitlines() if line.startswith("[hpcbench")]
    said = [line for line in r.stderr.splitlines() if line not in progress and line.strip()]
    assert len(said) == 1, f"SIGTERM must give one line (besides the progress):\n{r}"
    assert "stop" in said[0].lower() and "r.json" in said[0], f"the line does not say stopped and where:\n{r}"
    if (work / "r.json").exists():
        assert hp.is_results_text(work / "r.json")
