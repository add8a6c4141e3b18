"""Issue 24's part in `predict`: nothing a path, a profile or a size can make
it do. A simulation is sized before it allocates (and its estimate is
checked against what a real small run allocates); a profile is read as a
regular file of bounded size and every value is checked, one line naming
the field; -o and --plot never write through a link, into a device or a
FIFO, or over a file that is not theirs without --force. Every refusal is
one line and exit status 2, in well under a second, and leaves the folder
as it was."""
import io
import json
import os
import signal
import tracemalloc
from contextlib import contextmanager, redirect_stderr, redirect_stdout

import pytest

from hpcbench.cli import main
from hpcbench.predict import (
    Machine,
    NetworkProfile,
    ProfileError,
    SizeError,
    WavefrontParams,
    allocate,
    simulate,
    simulation_cost,
    wavefront,
    wavefront_program,
)
from hpcbench.predict._bounds import available_memory, check_cost, check_simulation, model_cost, wavefront_events

HERE = os.path.dirname(os.path.abspath(__file__))
TABLE3 = os.path.join(os.path.dirname(HERE), "hpcbench", "examples", "francesca-profile.json")
BASE = ["--grid", "48x48x24", "--procs", "4x4", "--machine", "8x2x2", "--wg", "3e-7"]
GOOD_REGION = {"from_bytes": 0, "latency_us": 2.64, "bandwidth_GBps": 0.46}


@contextmanager
def deadline(seconds=20):
    """Fail instead of hanging (a FIFO opened for reading blocks)."""
    def expired(*_):
        raise TimeoutError(f"no answer within {seconds} s")
    old = signal.signal(signal.SIGALRM, expired)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def cli(*argv):
    out, err = io.StringIO(), io.StringIO()
    with deadline(), redirect_stdout(out), redirect_stderr(err):
        status = main(["predict", "wavefront", *argv])
    return status, out.getvalue(), err.getvalue()


def refused(*argv) -> str:
    """The one line of a refusal (exit 2)."""
    status, out, err = cli(*argv)
    assert status == 2, (status, out, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert "Traceback" not in err and "internal error" not in err
    return lines[0]


def snapshot(folder):
    """Every entry of `folder`: its kind and, for files, its bytes."""
    out = {}
    for name in sorted(os.listdir(folder)):
        path = os.path.join(folder, name)
        if os.path.islink(path):
            out[name] = ("link", os.readlink(path))
        elif os.path.isfile(path):
            with open(path, "rb") as f:
                out[name] = ("file", f.read())
        else:
            out[name] = ("other", os.stat(path).st_mode)
    return out


# ------------------------------------------------------------ sizes

def test_the_event_count_is_exact_without_building():
    for p in (WavefrontParams(12, 12, 6, m=3, n=4, wg=1e-7),
              WavefrontParams(8, 8, 8, m=1, n=2, wg=1e-7, wg_pre=1e-8, h_tile=2, t_nonwavefront=1e-3),
              WavefrontParams(5, 7, 3, m=7, n=1, wg=1e-7, n_sweeps=3),
              WavefrontParams(1, 1, 4, m=1, n=1, wg=1e-7)):
        for iterations in (1, 2):
            assert wavefront_events(p, iterations) == wavefront_program(p, iterations).nevents


@pytest.mark.parametrize("sends", ["eager", "blocking"])
def test_the_memory_estimate_matches_what_a_real_run_allocates(sends):
    """The estimate against tracemalloc's peak over the same run (program
    and replay): within a generous factor, and never far below it."""
    params = WavefrontParams(96, 96, 20, m=24, n=24, wg=3e-7)
    profile = NetworkProfile.from_table(TABLE3)
    placement = allocate(params.nranks, Machine(params.nranks, 2, 2), "node-fill")
    estimate = simulation_cost(params, sends=sends)
    tracemalloc.start()
    try:
        simulate(wavefront_program(params), profile, placement, sends=sends)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert estimate.events > 10 ** 5
    assert 0.8 * peak <= estimate.bytes <= 3.0 * peak, (estimate.bytes, peak)


def test_a_million_ranks_are_refused_before_anything_is_allocated():
    """The estimate is petabytes: refused at once on any machine, with the
    estimate and the way round in the one line."""
    tracemalloc.start()
    try:
        line = refused("--profile", TABLE3, "--grid", "1000x1000x100000", "--procs", "1000x1000",
                       "--machine", "1000000x2x2", "--wg", "3e-7", "--simulate")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 64 << 20
    assert "1,000,000 ranks" in line and "of memory, more than the" in line and "available" in line
    assert "drop --simulate" in line and "analytical model" in line and "fewer processes" in line


def test_the_api_refuses_too_before_building():
    params = WavefrontParams(1000, 1000, 100000, m=1000, n=1000, wg=3e-7)
    with pytest.raises(SizeError, match=r"needs about .* of memory.*analytical model"):
        wavefront_program(params)
    with pytest.raises(SizeError, match="analytical model"):
        check_simulation(params)


def test_the_limit_is_the_memory_given():
    params = WavefrontParams(48, 48, 24, m=4, n=4, wg=3e-7)
    cost = simulation_cost(params)
    assert check_simulation(params, available=cost.bytes) == cost
    with pytest.raises(SizeError, match=r"more than the 1 MiB this machine has available"):
        check_simulation(params, available=1 << 20)
    room = available_memory()
    assert room is None or room > 0


def test_an_absurdly_long_replay_is_refused_and_says_so():
    """A 1 x 10**6 array holds few events but replays for hours: its rounds
    follow the pipeline across a million ranks."""
    line = refused("--profile", TABLE3, "--grid", "1000000x1x1", "--procs", "1x1000000", "--machine",
                   "1000000x2x2", "--wg", "3e-7", "--simulate")
    assert "would take at least about" in line and "hours" in line and "limit of" in line
    assert "drop --simulate" in line


def test_a_time_beyond_the_limit_is_refused_whatever_the_memory():
    params = WavefrontParams(10 ** 6, 1, 1, m=1, n=10 ** 6, wg=3e-7)
    with pytest.raises(SizeError, match="would take at least"):
        check_cost(simulation_cost(params), "it", "do less", available=1 << 60)


def test_the_model_stays_fast_for_a_long_thin_array():
    """A 1 x 10**6 array is one vector step of the model, not 10**6 (the
    old diagonal walk took seconds); checked against a count, not a clock:
    the answer must equal the walk along the row."""
    n = 200_000
    params = WavefrontParams(n, 1, 4, m=1, n=n, wg=3e-7)
    profile = NetworkProfile.from_table(TABLE3)
    r = wavefront(params, profile, allocate(n, Machine(n, 2, 2), "node-fill"))
    steps = [r.start[0, i + 1] - r.start[0, i] for i in (0, 1, 2, 3)]
    assert r.start[0, 0] == 0 and all(s > 0 for s in steps)
    assert r.t_fullfill == pytest.approx(float(r.start[0, -1]), rel=0)
    assert r.start[0, -1] == pytest.approx(sum(r.start[0, i + 1] - r.start[0, i] for i in range(n - 1)), rel=1e-9)


def test_a_huge_model_or_sweep_count_is_refused_with_its_estimate():
    line = refused("--profile", TABLE3, "--grid", "100000x100000x1", "--procs", "100000x100000", "--machine",
                   "2500000000x2x2", "--wg", "3e-7")
    assert "the model of 10,000,000,000 ranks needs about" in line and "fewer processes" in line
    line = refused("--profile", TABLE3, *BASE, "--sweep", "4,100000000000000000")
    assert "--sweep" in line and "needs about" in line
    assert model_cost(10 ** 6).bytes < 1 << 30


@pytest.mark.parametrize("argv, words", [
    (["--grid", "1" + "0" * 400], "up to 2**53"),
    (["--procs", "99999999999999999999x1"], "up to 2**53"),
    (["--machine", "999999999999999999999999x2x2", "--alloc", "round-robin"], "up to 2**31"),
    (["--wg", "1e300"], "at most 1000"),
])
def test_numbers_out_of_any_range_are_one_line(argv, words):
    args = dict(zip(BASE[::2], BASE[1::2]))
    args.update(zip(argv[::2], argv[1::2]))
    assert words in refused("--profile", TABLE3, *[x for kv in args.items() for x in kv])


# ------------------------------------------------------------ --profile

def test_a_fifo_or_a_device_as_the_profile_is_refused_at_once(tmp_path):
    fifo = tmp_path / "profile.json"
    os.mkfifo(fifo)
    assert "is a FIFO, not a regular file" in refused("--profile", str(fifo), *BASE)
    for device in ("/dev/zero", "/dev/urandom"):
        assert "character device, not a regular file" in refused("--profile", device, *BASE)


def test_a_profile_larger_than_any_table_is_refused(tmp_path):
    big = tmp_path / "big.json"
    big.write_bytes(b" " * (5 << 20))
    assert "more than the limit" in refused("--profile", str(big), *BASE)


def _table(tmp_path, classes=None, overheads=None, text=None):
    path = tmp_path / "table.json"
    if text is None:
        data = {"format": "hpcbench-network-profile",
                "classes": classes if classes is not None else {"off-node": [dict(GOOD_REGION)]}}
        if overheads is not None:
            data["overheads"] = overheads
        text = json.dumps(data)
    path.write_text(text)
    return str(path)


def _region(**change):
    return {"off-node": [dict(GOOD_REGION, **change)]}


@pytest.mark.parametrize("classes, field, got", [
    (_region(latency_us=-1), 'classes["off-node"][0].latency_us must be a finite number >= 0', "-1"),
    (_region(latency_us=True), 'classes["off-node"][0].latency_us must be a finite number >= 0', "true"),
    (_region(latency_us="2.6"), 'classes["off-node"][0].latency_us must be a finite number >= 0', '"2.6"'),
    (_region(latency_us=None), 'classes["off-node"][0].latency_us must be a finite number >= 0', "null"),
    (_region(bandwidth_GBps=0), 'classes["off-node"][0].bandwidth_GBps must be a finite number > 0', "0"),
    (_region(bandwidth_GBps=-0.5), 'classes["off-node"][0].bandwidth_GBps must be a finite number > 0', "-0.5"),
    (_region(bandwidth_GBps=False), 'classes["off-node"][0].bandwidth_GBps must be a finite number > 0', "false"),
    (_region(from_bytes=-8), 'classes["off-node"][0].from_bytes must be a whole number of bytes >= 0', "-8"),
    (_region(from_bytes=1.5), 'classes["off-node"][0].from_bytes must be a whole number of bytes >= 0', "1.5"),
    (_region(from_bytes=True), 'classes["off-node"][0].from_bytes must be a whole number of bytes >= 0', "true"),
    ({"off-node": [GOOD_REGION, 3]}, 'classes["off-node"][1] must be an object', "3"),
    ({"off-node": {"a": 1}}, 'classes["off-node"] must list its regions', '{"a": 1}'),
    ({"off-node": [{"latency_us": 1}]}, 'classes["off-node"][0] has no bandwidth_GBps', None),
])
def test_every_bad_region_value_is_one_line_naming_its_field(tmp_path, classes, field, got):
    path = _table(tmp_path, classes)
    line = refused("--profile", path, *BASE)
    assert line.startswith(f"hpcbench predict: profile {path}: {field}"), line
    if got is not None:
        assert line.endswith(f"got {got}"), line


@pytest.mark.parametrize("overheads, field", [
    ({"off-node": {"sizes": [0, 8], "send_us": [1, -1], "recv_us": [1, 1], "gap_us": [1, 1]}},
     'overheads["off-node"].send_us[1] must be a finite number >= 0, got -1'),
    ({"off-node": {"sizes": [0, 8], "send_us": [1, 1], "recv_us": [True, 1], "gap_us": [1, 1]}},
     'overheads["off-node"].recv_us[0] must be a finite number >= 0, got true'),
    ({"off-node": {"sizes": [0, -8], "send_us": [1, 1], "recv_us": [1, 1], "gap_us": [1, 1]}},
     'overheads["off-node"].sizes[1] must be a whole number of bytes >= 0, got -8'),
    ({"off-node": {"sizes": [8, 0], "send_us": [1, 1], "recv_us": [1, 1], "gap_us": [1, 1]}},
     'overheads["off-node"].sizes must increase'),
    ({"off-node": {"sizes": [0, 8], "send_us": [1], "recv_us": [1, 1], "gap_us": [1, 1]}},
     'overheads["off-node"]: sizes, send_us, recv_us, gap_us need one value per size, got 2, 1, 2, 2'),
    ({"off-node": {"sizes": [0], "send_us": [1], "recv_us": [1]}},
     'overheads["off-node"].gap_us must be a list of numbers, got null'),
    ({"off-node": [1, 2]}, 'overheads["off-node"] must be an object with sizes'),
])
def test_every_bad_overhead_value_is_one_line_naming_its_field(tmp_path, overheads, field):
    path = _table(tmp_path, overheads=overheads)
    line = refused("--profile", path, *BASE)
    assert line.startswith(f"hpcbench predict: profile {path}: {field}"), line


@pytest.mark.parametrize("constant", ["NaN", "Infinity", "-Infinity"])
def test_json_constants_are_refused(tmp_path, constant):
    text = '{"classes": {"off-node": [{"latency_us": CONSTANT, "bandwidth_GBps": 1}]}}'
    path = _table(tmp_path, text=text.replace("CONSTANT", constant))
    line = refused("--profile", path, *BASE)
    assert "is not JSON" in line and constant.lstrip("-") in line


def test_a_number_too_large_for_a_float_is_refused_as_infinite(tmp_path):
    path = _table(tmp_path, text='{"classes": {"off-node": [{"latency_us": 1, "bandwidth_GBps": 1e999}]}}')
    line = refused("--profile", path, *BASE)
    assert line.endswith('classes["off-node"][0].bandwidth_GBps must be a finite number > 0, got Infinity'), line


def test_not_text_not_json_and_deep_nesting_are_one_line(tmp_path):
    path = tmp_path / "t.json"
    path.write_bytes(b"\xff\xfe{}")
    assert "not UTF-8" in refused("--profile", str(path), *BASE)
    path.write_text("[" * 200_000)
    assert "profile" in refused("--profile", str(path), *BASE)


def test_one_class_given_twice_under_two_names_is_refused(tmp_path):
    path = _table(tmp_path, {"off-node": [GOOD_REGION], "other node": [GOOD_REGION]})
    assert "give each class once" in refused("--profile", path, *BASE)


def test_control_characters_of_a_class_name_are_escaped(tmp_path):
    path = _table(tmp_path, {"\x1b[2Joff": [dict(GOOD_REGION, latency_us=-1)]})
    line = refused("--profile", path, *BASE)
    assert "\x1b" not in line and "\\u001b[2Joff" in line


def test_the_api_reads_a_mapping_with_the_same_checks():
    with pytest.raises(ProfileError, match=r'classes\["off-node"\]\[0\].latency_us .* got true'):
        NetworkProfile.from_table({"classes": _region(latency_us=True)})
    assert NetworkProfile.from_table(TABLE3).classes      # Table 3 itself still reads


# ------------------------------------------------------------ -o and --plot

def test_o_writes_a_prediction_that_starts_with_its_format_and_replaces_its_own(tmp_path):
    path = tmp_path / "p.json"
    assert cli("--profile", TABLE3, *BASE, "-o", str(path))[0] == 0
    assert path.read_text().startswith('{\n "format": "hpcbench-prediction",')
    assert cli("--profile", TABLE3, *BASE, "-o", str(path), "--what-if", "latency=+10%")[0] == 0
    assert "latency" in json.loads(path.read_text())["what_if"]


def test_o_refuses_a_notes_file_unless_forced(tmp_path):
    notes = tmp_path / "notes.json"
    notes.write_text("my notes\n")
    before = snapshot(tmp_path)
    line = refused("--profile", TABLE3, *BASE, "-o", str(notes))
    assert "is not an hpcbench prediction" in line and "--force" in line
    assert snapshot(tmp_path) == before
    status, _, err = cli("--profile", TABLE3, *BASE, "-o", str(notes), "--force")
    assert status == 0, err
    assert json.loads(notes.read_text())["format"] == "hpcbench-prediction"


def test_o_never_writes_through_a_link_a_fifo_or_a_device(tmp_path):
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me\n")
    os.symlink(victim, tmp_path / "link.json")
    os.mkfifo(tmp_path / "fifo.json")
    before = snapshot(tmp_path)
    for target, words in (("link.json", "symbolic link"), ("fifo.json", "a FIFO")):
        for force in ((), ("--force",)):
            line = refused("--profile", TABLE3, *BASE, "-o", str(tmp_path / target), *force)
            assert words in line
    assert "character device" in refused("--profile", TABLE3, *BASE, "-o", "/dev/zero", "--force")
    assert snapshot(tmp_path) == before


def test_plot_never_writes_through_a_link_nor_over_a_non_png(tmp_path):
    plots = tmp_path / "plots"
    plots.mkdir()
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me\n")
    os.symlink(victim, plots / "wavefront-idle.png")
    before = snapshot(plots), snapshot(tmp_path)
    line = refused("--profile", TABLE3, *BASE, "--simulate", "--plot", str(plots), "--force")
    assert "symbolic link" in line and "wavefront-idle.png" in line
    os.unlink(plots / "wavefront-idle.png")
    (plots / "wavefront-idle.png").write_text("not an image\n")
    line = refused("--profile", TABLE3, *BASE, "--simulate", "--plot", str(plots))
    assert "is not a PNG image" in line
    assert snapshot(tmp_path)["victim.txt"] == before[1]["victim.txt"]
    status, _, err = cli("--profile", TABLE3, *BASE, "--simulate", "--plot", str(plots), "--force")
    assert status == 0, err
    assert all((plots / f).read_bytes().startswith(b"\x89PNG") for f in os.listdir(plots))
    status, _, err = cli("--profile", TABLE3, *BASE, "--simulate", "--plot", str(plots))   # its own: replaced
    assert status == 0, err
    assert sorted(os.listdir(plots)) == ["wavefront-communication.png", "wavefront-idle.png"]


def test_a_prediction_is_recognised_indented_or_compact_and_nothing_else_is():
    from hpcbench.predict._output import looks_like_png, looks_like_prediction
    assert looks_like_prediction(b'{\n "format": "hpcbench-prediction",\n "code"')
    assert looks_like_prediction(b'{"format": "hpcbench-prediction", "code": "wavefront"')
    for other in (b"my notes", b'{"format": "hpcbench-results"', b'{"code": "wavefront", "format": '
                  b'"hpcbench-prediction"}', b"", b"\x89PNG\r\n\x1a\n"):
        assert not looks_like_prediction(other)
    assert looks_like_png(b"\x89PNG\r\n\x1a\n....") and not looks_like_png(b"PNG")


def test_an_unknown_class_name_is_one_line(tmp_path):
    path = _table(tmp_path, {"the moon": [GOOD_REGION]})
    line = refused("--profile", path, *BASE)
    assert line.startswith(f"hpcbench predict: profile {path}: ") and "the moon" in line
