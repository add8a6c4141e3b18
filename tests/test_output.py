"""A run's results file is never lost: checked and locked before measuring,
first written when the first benchmark finishes, the old results kept as
NAME.bak, a failed save (full disk) retried without losing the last good
file, no temporary file left by a kill; killed runs (SIGKILL, SIGINT) at
random moments always leave the old file or a newer complete one."""
import errno
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time

import pytest

import hpcbench
from hpcbench import _atomic, _output
from hpcbench._output import OutputError, OutputFile, check_output_path, is_results_file

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXAMPLE = os.path.join(ROOT, "hpcbench", "examples", "node-example.json")
FAST = ["--cache-max", "2MiB", "--cache-passes", "1", "--cache-samples", "1", "--no-cache-refine",
        "--mbsp-hmax", "8", "--mbsp-niters", "10", "--mbsp-max-vector", "12", "--memory-size", "8MiB",
        "--memory-reps", "2", "--memory-rounds", "1", "--shared-rounds", "1"]


def leftovers(folder, keep=()):
    """Files in folder other than the results, its backup and `keep`."""
    return sorted(f for f in os.listdir(folder) if f not in {"r.json", "r.json.bak", *keep})


@pytest.mark.parametrize("make, message", [
    (lambda d: "", "must not be empty"),
    (lambda d: str(d) + "/", "not a directory"),
    (lambda d: str(d), "not a directory"),
    (lambda d: str(d / "missing" / "r.json"), "does not exist"),
    (lambda d: (d / "notes.txt").write_text("my notes") and str(d / "notes.txt"), "not an hpcbench results file"),
    (lambda d: (d / "empty.json").write_text("") or str(d / "empty.json"), "not an hpcbench results file"),
])
def test_paths_that_cannot_take_results(tmp_path, make, message):
    with pytest.raises(OutputError, match=message):
        check_output_path(make(tmp_path))


def test_an_existing_results_file_is_accepted_and_recognised(tmp_path):
    shutil.copy(EXAMPLE, tmp_path / "r.json")
    assert check_output_path(str(tmp_path / "r.json")) == str(tmp_path / "r.json")
    assert is_results_file(EXAMPLE) and not is_results_file(__file__)


def test_nothing_is_written_before_the_first_save_and_the_old_file_becomes_the_backup(tmp_path):
    path = tmp_path / "r.json"
    shutil.copy(EXAMPLE, path)
    old = path.read_bytes()
    with OutputFile(str(path)) as out:
        assert path.read_bytes() == old and not (tmp_path / "r.json.bak").exists()
        assert out.save('{"format": "hpcbench-results", "new": 1}', "cache")
        assert (tmp_path / "r.json.bak").read_bytes() == old
        assert json.loads(path.read_text())["new"] == 1
        assert out.save('{"format": "hpcbench-results", "new": 2}', "memory")
        assert (tmp_path / "r.json.bak").read_bytes() == old      # one backup per run, of the old file
    assert leftovers(tmp_path) == []                             # the lock file went with the run


def test_a_second_run_on_the_same_path_is_refused(tmp_path):
    path = str(tmp_path / "r.json")
    with OutputFile(path), pytest.raises(OutputError, match=f"another hpcbench run \\(pid {os.getpid()}\\) is writing"):
        OutputFile(path).acquire()
    with OutputFile(path):              # free again
        pass


def test_a_failed_save_keeps_the_last_good_file_and_the_next_one_catches_up(tmp_path, monkeypatch):
    path = tmp_path / "r.json"
    with OutputFile(str(path)) as out:
        assert out.save('{"format": "hpcbench-results", "n": 1}', "cache")
        real = _output.atomic_write_text

        def full_disk(p, text):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        monkeypatch.setattr(_output, "atomic_write_text", full_disk)
        assert not out.save('{"format": "hpcbench-results", "n": 2}', "memory")
        assert out.unsaved == ["memory"] and "No space left" in out.error
        assert json.loads(path.read_text())["n"] == 1
        monkeypatch.setattr(_output, "atomic_write_text", real)
        assert out.save('{"format": "hpcbench-results", "n": 3}', "multibsp")
        assert out.unsaved == [] and json.loads(path.read_text())["n"] == 3


def test_atomic_write_leaves_nothing_when_it_fails(tmp_path, monkeypatch):
    target = tmp_path / "f.txt"
    target.write_text("old")

    def broken_replace(*args, **kwargs):
        raise OSError(errno.EIO, "simulated")
    monkeypatch.setattr(_atomic.os, "replace", broken_replace)
    with pytest.raises(OSError):
        _atomic.atomic_write_text(str(target), "new")
    assert target.read_text() == "old" and os.listdir(tmp_path) == ["f.txt"]


def test_temporaries_of_dead_writers_are_swept(tmp_path):
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    stale = tmp_path / f".r.json.{dead.pid}.0.tmp"
    mine = tmp_path / f".r.json.{os.getpid()}.7.tmp"
    other = tmp_path / f".x.json.{dead.pid}.0.tmp"
    for f in (stale, mine, other):
        f.write_text("partial")
    with OutputFile(str(tmp_path / "r.json")):
        pass
    assert not stale.exists() and mine.exists() and other.exists()


def cli(*args, timeout=300, **kw):
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.run([sys.executable, "-m", "hpcbench", *args], capture_output=True, text=True,
                          timeout=timeout, env=env, **kw)


def test_the_cli_refuses_to_overwrite_what_is_not_results(tmp_path):
    notes = tmp_path / "notes.txt"
    notes.write_text("do not lose me")
    proc = cli("run", "cache", "-q", "-o", str(notes), *FAST)
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1 and "never overwritten" in proc.stderr
    assert notes.read_text() == "do not lose me"


@pytest.mark.slow       # three cache runs at once: 5 s here
def test_concurrent_runs_on_one_path_one_runs_the_other_is_refused(tmp_path):
    path = str(tmp_path / "r.json")
    env = dict(os.environ, PYTHONPATH=ROOT)
    cmd = [sys.executable, "-m", "hpcbench", "run", "cache", "-q", "-o", path, *FAST]
    procs = [subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
             for _ in range(3)]
    outs = [p.communicate(timeout=300) for p in procs]
    codes = sorted(p.returncode for p in procs)
    assert codes[0] == 0, outs
    refused = [err for p, (_, err) in zip(procs, outs) if p.returncode == 2]
    assert all("another hpcbench run" in err for err in refused)
    assert hpcbench.load(path).names() == ["cache"]
    assert leftovers(tmp_path) == []


@pytest.mark.slow       # a cache run: 4 s here
def test_a_full_disk_keeps_the_old_file_and_reports_what_was_not_saved(tmp_path):
    """A real small filesystem (tmpfs, root only): the first save cannot fit."""
    mnt = tmp_path / "small"
    mnt.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(mnt)], capture_output=True).returncode:
        pytest.skip("cannot mount a small tmpfs here (needs root)")
    try:
        old = '{"format": "hpcbench-results", "format_version": 1, "context": {}, "benchmarks": []}\n'
        (mnt / "r.json").write_text(old)
        fd = os.open(mnt / "filler", os.O_WRONLY | os.O_CREAT)     # take every free block
        try:
            while os.write(fd, b"\0" * 4096):
                pass
        except OSError:
            pass
        finally:
            os.close(fd)
        proc = cli("run", "cache", "-q", "-o", str(mnt / "r.json"), *FAST, cwd=str(tmp_path))
        assert proc.returncode == 1, proc.stderr
        assert "could not save" in proc.stderr and "No space left" in proc.stderr
        assert "still holds the previous results, unchanged" in proc.stderr    # the truth, not "last good file"
        assert "cache levels on" in proc.stdout            # what was measured is printed
        assert (mnt / "r.json").read_text() == old
        assert sorted(os.listdir(mnt)) == ["filler", "r.json", "r.json.bak"]   # no temporary survives
        # ... and kept in the working folder, the first fallback, which the last line names
        fallback = [f for f in os.listdir(tmp_path) if f.startswith("hpcbench-unsaved-")]
        assert len(fallback) == 1 and str(tmp_path / fallback[0]) in proc.stderr.splitlines()[-1]
        assert [r.name for r in hpcbench.load(str(tmp_path / fallback[0])).benchmarks] == ["cache"]
    finally:
        subprocess.run(["umount", str(mnt)], capture_output=True)


@pytest.mark.slow       # four runs killed at random moments up to 12 s in: 15 s
@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGINT])
def test_killed_runs_never_lose_results(tmp_path, sig):
    """Runs over an existing results file, killed at random moments: the path
    always holds a complete results file that is the old one or a newer one,
    the newer ones never hold fewer benchmarks than an earlier look saw,
    the old file is at NAME.bak once it has been replaced, and nothing but
    the lock file of a SIGKILLed run (swept by the next run) is left."""
    rng = random.Random(1000 + int(sig))
    path = tmp_path / "r.json"
    shutil.copy(EXAMPLE, path)
    old = path.read_bytes()
    env = dict(os.environ, PYTHONPATH=ROOT)
    cmd = [sys.executable, "-m", "hpcbench", "run", "cache", "shared-caches", "memory", "multibsp", "-q",
           "-o", str(path), *FAST]
    for attempt in range(4):
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
        deadline = time.monotonic() + rng.uniform(0.5, 12.0)
        seen = 0
        while time.monotonic() < deadline and proc.poll() is None:
            current = path.read_bytes()
            assert current == old or is_results_file(str(path))
            if current != old:
                names = hpcbench.load(str(path)).names()      # complete: it loads
                assert len(names) >= seen, (attempt, names)
                seen = len(names)
                assert (tmp_path / "r.json.bak").read_bytes() == old
            time.sleep(0.05)
        proc.send_signal(sig)
        _, stderr = proc.communicate(timeout=60)        # (reads and closes the pipe: no ResourceWarning)
        # A SIGINT before the interpreter has its handler ends it at once
        # (-SIGINT, nothing written yet); after, it is one line.
        if sig == signal.SIGINT and proc.returncode not in (0, -signal.SIGINT):
            assert "interrupted" in stderr.decode()
        final = path.read_bytes()
        if final != old:
            assert len(hpcbench.load(str(path)).names()) >= seen
            assert (tmp_path / "r.json.bak").read_bytes() == old
        assert leftovers(tmp_path, keep={".r.json.lock"}) == []
        shutil.copy(EXAMPLE, path)
        if (tmp_path / "r.json.bak").exists():
            os.unlink(tmp_path / "r.json.bak")
    assert leftovers(tmp_path, keep={".r.json.lock"}) == []


# ---------------------------------------------------------------- planted files (issue 24)

def snapshot(folder):
    """Every entry of `folder`: kind, and the bytes of files or the target of links."""
    out = {}
    for name in os.listdir(folder):
        p = os.path.join(folder, name)
        if os.path.islink(p):
            out[name] = ("link", os.readlink(p))
        elif os.path.isfile(p):
            with open(p, "rb") as f:
                out[name] = ("file", f.read())
        else:
            out[name] = ("other", os.lstat(p).st_mode)
    return out


def test_a_link_planted_as_the_lock_file_is_refused_and_left_alone(tmp_path):
    victim = tmp_path / "victim.sh"
    victim.write_text("#!/bin/sh\necho do not overwrite me\n")
    os.symlink(str(victim), str(tmp_path / ".r.json.lock"))
    before = snapshot(tmp_path)
    with pytest.raises(OutputError, match="is a symbolic link; a lock file is never followed"):
        OutputFile(str(tmp_path / "r.json")).acquire()
    assert snapshot(tmp_path) == before


def test_a_hard_link_planted_as_the_lock_file_is_refused(tmp_path):
    victim = tmp_path / "victim.txt"
    victim.write_text("precious")
    os.link(str(victim), str(tmp_path / ".r.json.lock"))
    before = snapshot(tmp_path)
    with pytest.raises(OutputError, match="a hard link"):
        OutputFile(str(tmp_path / "r.json")).acquire()
    assert snapshot(tmp_path) == before


def test_a_fifo_planted_as_the_lock_file_is_refused_at_once(tmp_path):
    os.mkfifo(str(tmp_path / ".r.json.lock"))
    with pytest.raises(OutputError, match="is a FIFO"):
        OutputFile(str(tmp_path / "r.json")).acquire()


def test_a_lock_file_replaced_during_the_run_is_not_deleted(tmp_path):
    out = OutputFile(str(tmp_path / "r.json"))
    out.acquire()
    os.unlink(tmp_path / ".r.json.lock")
    (tmp_path / ".r.json.lock").write_text("someone else's")
    out.release()
    assert (tmp_path / ".r.json.lock").read_text() == "someone else's"


def test_a_linked_results_path_is_refused(tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    real = elsewhere / "real.json"
    real.write_text('{"format": "hpcbench-results", "n": 1}')
    os.symlink(str(real), str(tmp_path / "r.json"))
    before, there = snapshot(tmp_path), snapshot(elsewhere)
    with pytest.raises(OutputError, match="is a symbolic link"):
        OutputFile(str(tmp_path / "r.json"))
    assert snapshot(tmp_path) == before and snapshot(elsewhere) == there


@pytest.mark.parametrize("plant", ["notes", "link"])
def test_a_backup_that_is_not_results_is_never_replaced(tmp_path, plant):
    (tmp_path / "r.json").write_text('{"format": "hpcbench-results", "n": 1}')
    if plant == "notes":
        (tmp_path / "r.json.bak").write_text("my notes")
    else:
        (tmp_path / "target.txt").write_text("my notes")
        os.symlink("target.txt", str(tmp_path / "r.json.bak"))
    before = snapshot(tmp_path)
    with pytest.raises(OutputError, match="r.json.bak"):
        OutputFile(str(tmp_path / "r.json"))
    assert snapshot(tmp_path) == before


def test_a_path_swapped_for_a_link_during_the_run_is_not_written_through(tmp_path, monkeypatch):
    spare = tmp_path / "spare"
    spare.mkdir()
    monkeypatch.setattr(_output, "fallback_folders", lambda folder: [str(spare)])
    victim = tmp_path / "victim.txt"
    victim.write_text("precious")
    with OutputFile(str(tmp_path / "r.json")) as out:
        assert out.save('{"format": "hpcbench-results", "n": 1}', "cache")
        os.unlink(tmp_path / "r.json")
        os.symlink(str(victim), str(tmp_path / "r.json"))
        assert not out.save('{"format": "hpcbench-results", "n": 2}', "memory")
        assert "symbolic link" in out.error and out.unsaved == ["memory"]
        assert out.fallback is not None and os.path.dirname(out.fallback) == str(spare)
        with open(out.fallback) as f:
            assert json.load(f)["n"] == 2
    assert victim.read_text() == "precious" and os.path.islink(tmp_path / "r.json")


def test_what_is_on_disk_is_said_truly(tmp_path, monkeypatch):
    """Never "the last good file is kept" when there is none."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(_output, "fallback_folders", lambda folder: [])

    def full_disk(p, text):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
    monkeypatch.setattr(_output, "atomic_write_text", full_disk)
    with OutputFile(str(tmp_path / "new.json")) as out:
        assert not out.save('{"format": "hpcbench-results", "n": 1}', "cache")
        assert out.on_disk() == f"nothing of this run was written to {tmp_path / 'new.json'}"
        assert out.fallback is None


def test_signals_wait_until_a_save_is_over(tmp_path, monkeypatch):
    """A SIGTERM during a save stops the run after it: the stop message then
    says exactly what the file holds."""
    seen = []

    def slow_write(p, text):
        os.kill(os.getpid(), signal.SIGTERM)      # arrives in the middle of the save
        seen.append("written")
        real(p, text)
    real = _output.atomic_write_text
    monkeypatch.setattr(_output, "atomic_write_text", slow_write)
    def handler(*args):
        seen.append("signal")
        _output.stop_or_defer(KeyboardInterrupt())
    old = signal.signal(signal.SIGTERM, handler)
    try:
        with OutputFile(str(tmp_path / "r.json")) as out:
            with pytest.raises(KeyboardInterrupt):
                out.save('{"format": "hpcbench-results", "n": 1}', "cache")
            assert out.saved == ["cache"] and is_results_file(str(tmp_path / "r.json"))
    finally:
        signal.signal(signal.SIGTERM, old)
    assert seen == ["signal", "written"]


def test_sigterm_says_the_run_was_stopped_and_what_is_on_disk(tmp_path):
    """A batch job's log must say that the run was stopped and what is on
    disk: one line, exit 128 + 15."""
    proc = subprocess.Popen([sys.executable, "-m", "hpcbench", "run", "cache", "memory", "-o",
                             str(tmp_path / "r.json"), *FAST], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, cwd=str(tmp_path),
                            env=dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", "")))
    for line in proc.stderr:         # progress lines: stop it once the first benchmark is on disk
        if line.split("]", 1)[-1].strip().startswith("memory (") and "running" in line:
            break
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=300)
    assert proc.returncode == 128 + signal.SIGTERM
    last = [line for line in err.splitlines() if not line.startswith("[hpcbench")]
    assert len(last) == 1 and last[0].startswith("hpcbench run: stopped by SIGTERM while memory ran; ")
    assert "holds 1 benchmark(s) of this run (cache)" in last[0]
    assert [r.name for r in hpcbench.load(str(tmp_path / "r.json")).benchmarks] == ["cache"]
