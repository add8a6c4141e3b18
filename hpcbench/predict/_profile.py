"""The network profile: Hammond et al.'s regionalised model of a message's
cost (2009, section 5.1, Table 3), one set of regions per placement class.

For a message of x bytes between two ranks of class c, in the region of c
that holds x (region k covers first_k <= x < first_{k+1}):

    t_send(x) = x / B + n_l      the sender's time (it also sets up the transfer)
    t_recv(x) = x / B            the receiver's time (it accepts the data)

Where the transport moves a message while the CPUs go on (TCP's eager
sends, a NIC's DMA), the sender is not busy for x / B: a class may then
carry LogP's overheads, measured per size by the comm benchmark (the time
MPI_Send and MPI_Recv hold the CPU, hpcbench.comm.overheads), and
`message_costs` prices a message as

    send  = o_s(x)                   the sender's CPU
    recv  = o_r(x)                   the receiver's CPU, once the message is there
    total = max(n_l + x / B, send + recv)   send start to receive end (the echo's one-way time)
    wire  = g(x)                     how long the message holds its link in a stream

g is LogP's gap, the time per message of a stream of blocking sends: what
a pipeline's faces see. The echo's x / B can be shorter (a shaper's token
credit, a switch's buffer, refilled while the link idles between the
echo's messages); a stream leaves no idle time.

A class without overheads is Hammond's (the CPU pushes the data): send =
t_send, recv = t_recv, total = t_send + t_recv, wire = 0, which makes the
model Table 2 exactly.

A profile may also carry how a node's network access degrades when
several of its ranks use it at once (`access`: Servet 3.0's ratNC, from a
network-access record or a table's "access"; _contention.py): the model
and the simulator then divide the bandwidth of every message between
nodes by ratNC[k] of its k sharing ranks (`slowdown` below).

Built from a comm results file (every comm layer's regional fit, each
layer's name folded into its class by _classes.class_of_layer; where
several layers fold into one class the layer of most pairs speaks for it),
from a user's table (JSON, the shape of hpcbench/examples/francesca-profile.json,
Table 3 of the paper), or edited from another (`scaled`: latency x1.25,
bandwidth x0.9, as the what-if projections do).
"""
from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, NoReturn

import numpy as np
from numpy.typing import ArrayLike

from ._classes import CLASSES, class_of_layer
from ._contention import AccessContention
from ._errors import PredictError, ProfileError

PROFILE_FORMAT = "hpcbench-network-profile"
#: Where a profile's source names the ratNC it carries.
ACCESS_NOTE = "; network access shared as "

#: The largest profile table read (bytes): Table 3 is 1 KiB, a measured
#: profile with overheads at a hundred sizes a few KiB.
PROFILE_LIMIT = 4 << 20


@dataclass(frozen=True)
class Region:
    """From `first` bytes up (to the next region's first): latency n_l in
    seconds and bandwidth B in bytes per second."""

    first: int
    latency: float
    bandwidth: float

    def __post_init__(self) -> None:
        if int(self.first) < 0:
            raise ProfileError(f"a region starts at a size >= 0 bytes, got {self.first}")
        if not math.isfinite(self.latency):
            raise ProfileError(f"a region's latency must be a finite number of seconds, got {self.latency}")
        if not self.bandwidth > 0:
            raise ProfileError(f"a region's bandwidth must be > 0 bytes/s, got {self.bandwidth}")


@dataclass(frozen=True, eq=False)
class OverheadTable:
    """A class's LogP overheads and gap measured at `sizes` bytes
    (seconds). Between two measured sizes a message is taken to be in the
    regime of the smaller: its value there plus the growth per byte of the
    segment below it (never less than nothing); beyond the largest, the same.
    Why not a straight line to the next point: MPI switches protocol between
    some sizes (eager to rendezvous, where a receive suddenly holds the
    whole transfer), and a line across that step would charge a message
    just above the smaller size much of the step."""

    sizes: np.ndarray
    send: np.ndarray
    recv: np.ndarray
    gap: np.ndarray

    def __post_init__(self) -> None:
        sizes, send, recv, gap = (np.asarray(v, dtype=float) for v in (self.sizes, self.send, self.recv, self.gap))
        if sizes.ndim != 1 or sizes.size == 0 or any(v.shape != sizes.shape for v in (send, recv, gap)):
            raise ProfileError("overheads need one send, receive and gap time per size, and at least one size")
        if not (np.all(np.isfinite(sizes)) and np.all(np.diff(sizes) > 0) and sizes[0] >= 0):
            raise ProfileError("overhead sizes must be increasing byte counts >= 0")
        if not all(np.all(np.isfinite(v)) and v.min() >= 0 for v in (send, recv, gap)):
            raise ProfileError("overheads and gaps must be finite times >= 0 seconds")
        for name, value in (("sizes", sizes), ("send", send), ("recv", recv), ("gap", gap)):
            value.flags.writeable = False
            object.__setattr__(self, name, value)

    def at(self, x: ArrayLike) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(o_s, o_r, g) at x bytes (a number or an array)."""
        x = np.asarray(x, dtype=float)
        return self._one(x, self.send), self._one(x, self.recv), self._one(x, self.gap)

    def _one(self, x: np.ndarray, values: np.ndarray) -> np.ndarray:
        sizes = self.sizes
        k = np.maximum(np.searchsorted(sizes, x, side="right") - 1, 0)
        # Growth per byte of the segment ending at each point (the first: the one after it).
        slope = np.zeros(sizes.size)
        if sizes.size > 1:
            slope[1:] = np.maximum(np.diff(values) / np.diff(sizes), 0.0)
            slope[0] = slope[1]
        return np.asarray(np.maximum(values[k] + np.maximum(x - sizes[k], 0.0) * slope[k], 0.0))


@dataclass(frozen=True)
class MessageCosts:
    """What messages cost, arrays of one shape (seconds): see the module
    docstring."""

    send: np.ndarray
    recv: np.ndarray
    total: np.ndarray
    wire: np.ndarray


class NetworkProfile:
    """Regions per placement class; `t_send` / `t_recv` as section 5.1;
    optional overheads per class (`message_costs`)."""

    def __init__(self, classes: Mapping[str, Iterable[Region]], source: str = "",
                 overheads: Mapping[str, OverheadTable] | None = None, access: AccessContention | None = None):
        table: dict[str, tuple[Region, ...]] = {}
        for name, regions in classes.items():
            cls = class_of_layer(name)
            ordered = tuple(sorted(regions, key=lambda r: r.first))
            if not ordered:
                raise ProfileError(f"class {cls!r} has no region")
            if ordered[0].first != 0:
                ordered = (Region(0, ordered[0].latency, ordered[0].bandwidth),) + ordered[1:]
            if len({r.first for r in ordered}) != len(ordered):
                raise ProfileError(f"class {cls!r} has two regions starting at the same size")
            if cls in table:
                raise ProfileError(f"two entries name the class {cls!r} (one is {name!r}): give each class once")
            table[cls] = ordered
        if not table:
            raise ProfileError("a network profile needs at least one placement class")
        self.classes = {c: table[c] for c in CLASSES if c in table}
        # The source says whether sharing the network access is priced
        # (what `predict` prints as the network).
        base = source.split(ACCESS_NOTE)[0]
        self.source = base + (f"{ACCESS_NOTE}{access.describe()}" if access is not None else "")
        #: ratNC of the nodes' network access (None: sharing it costs nothing)
        self.access = access
        self.overheads: dict[str, OverheadTable] = {}
        for name, table_o in (overheads or {}).items():
            key = class_of_layer(name)
            if key not in self.classes:
                raise ProfileError(f"overheads for class {key!r}, which has no regions")
            self.overheads[key] = table_o

    # -- costs ---------------------------------------------------------
    def region(self, x: float, cls: str) -> Region:
        regions = self._regions(cls)
        k = int(np.searchsorted([r.first for r in regions], x, side="right")) - 1
        return regions[max(k, 0)]

    def t_send(self, x: ArrayLike, cls: str, slowdown: ArrayLike = 1.0) -> Any:
        """Seconds the sender spends on x bytes to a rank of class `cls`
        (x a number or an array); never below zero (a fitted latency may be
        slightly negative). `slowdown` divides the bandwidth (ratNC of the
        message's sharing ranks; 1: alone)."""
        lat, inv_bw = self._coefficients(x, cls)
        return np.maximum(np.asarray(x, dtype=float) * inv_bw * slowdown + lat, 0.0)[()]

    def t_recv(self, x: ArrayLike, cls: str, slowdown: ArrayLike = 1.0) -> Any:
        """Seconds the receiver spends on x bytes from a rank of class `cls`."""
        _, inv_bw = self._coefficients(x, cls)
        return (np.asarray(x, dtype=float) * inv_bw * slowdown)[()]

    def costs(self, x: np.ndarray, class_index: np.ndarray,
              slowdown: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """(t_send, t_recv) for arrays of sizes and class indexes (positions
        in _classes.CLASSES), one pass per class: what the simulator uses
        for millions of messages. `slowdown` (an array of x's shape, or
        None: 1) divides each message's bandwidth."""
        x = np.asarray(x, dtype=float)
        class_index = np.asarray(class_index)
        slow = np.ones_like(x) if slowdown is None else np.broadcast_to(np.asarray(slowdown, dtype=float), x.shape)
        send, recv = np.zeros_like(x), np.zeros_like(x)
        for k in np.unique(class_index):
            at = class_index == k
            cls = CLASSES[int(k)]
            send[at] = self.t_send(x[at], cls, slow[at])
            recv[at] = self.t_recv(x[at], cls, slow[at])
        return send, recv

    def message_costs(self, x: np.ndarray, class_index: np.ndarray,
                      slowdown: np.ndarray | None = None) -> MessageCosts:
        """send, recv, total and wire for arrays of sizes and class indexes
        (the module docstring): Hammond's t_send / t_recv where a class has
        no overheads, LogP's split where it has. `slowdown` divides each
        message's bandwidth (x / B and the link time g grow by it; the
        latency and the CPU overheads stay): _contention.py."""
        x = np.asarray(x, dtype=float)
        class_index = np.asarray(class_index)
        send, recv = self.costs(x, class_index, slowdown)
        total, wire = send + recv, np.zeros_like(x)
        slow = None if slowdown is None else np.broadcast_to(np.asarray(slowdown, dtype=float), x.shape)
        for k in np.unique(class_index):
            cls = CLASSES[int(k)]
            if cls not in self.overheads:
                continue
            at = class_index == k
            one_way = send[at]
            send[at], recv[at], wire[at] = self.overheads[cls].at(x[at])
            if slow is not None:
                wire[at] *= slow[at]
            total[at] = np.maximum(one_way, send[at] + recv[at])
        return MessageCosts(send, recv, total, wire)

    def require(self, needed: Iterable[str]) -> None:
        """ProfileError naming the first class in `needed` this profile lacks."""
        for cls in needed:
            self._regions(cls)

    # -- editing -------------------------------------------------------
    def scaled(
        self, latency: float = 1.0, bandwidth: float = 1.0, classes: Iterable[str] | None = None
    ) -> NetworkProfile:
        """A copy with every latency multiplied by `latency` and every
        bandwidth by `bandwidth` (only in `classes`, if given)."""
        if not (latency >= 0 and math.isfinite(latency)):
            raise ProfileError(f"a latency factor must be finite and >= 0, got {latency}")
        if not (bandwidth > 0 and math.isfinite(bandwidth)):
            raise ProfileError(f"a bandwidth factor must be finite and > 0, got {bandwidth}")
        only = None if classes is None else {class_of_layer(c) for c in classes}
        out = {}
        for cls, regions in self.classes.items():
            if only is None or cls in only:
                regions = tuple(Region(r.first, r.latency * latency, r.bandwidth * bandwidth) for r in regions)
            out[cls] = regions
        # The overheads are the CPUs' time, which a network what-if leaves
        # alone; the gap is the link's, which a bandwidth what-if scales.
        overheads = {cls: o if (only is not None and cls not in only) else
                     OverheadTable(o.sizes, o.send, o.recv, o.gap / bandwidth) for cls, o in self.overheads.items()}
        return NetworkProfile(out, self.source, overheads, self.access)

    def with_access(self, access: AccessContention | None) -> NetworkProfile:
        """A copy whose nodes' network access degrades by `access` (ratNC;
        None: sharing it costs nothing)."""
        return NetworkProfile(self.classes, self.source, self.overheads, access)

    # -- building ------------------------------------------------------
    @classmethod
    def from_table(cls, table: Mapping[str, Any] | str) -> NetworkProfile:
        """From a table: a path to JSON or the parsed mapping
        {"format": "hpcbench-network-profile", "classes": {"same cache":
        [{"from_bytes": 0, "latency_us": 0.655, "bandwidth_GBps": 2.70}],
        ...}} (GB = 1e9 bytes; the paper's names on-chip, off-processor,
        off-node are accepted for classes). `example:NAME` names a shipped
        example (hpcbench.examples), as it does for results files.

        A path is read as hpcbench reads every file it is given (regular
        files only, at most PROFILE_LIMIT bytes: a FIFO or /dev/zero is
        refused at once), JSON's NaN and Infinity are refused, and every
        value is checked: ProfileError (one line) names the first bad field,
        e.g. classes["off-node"][0].latency_us."""
        source = "table"
        if isinstance(table, str):
            source = table
            table = _read_table(table)
        return cls._from_plain(table, _printable(source))

    @classmethod
    def _from_plain(cls, table: Any, source: str) -> NetworkProfile:
        where = f"profile {source}"
        if not isinstance(table, Mapping) or not isinstance(table.get("classes"), Mapping):
            raise ProfileError(f"{where}: a profile table is an object with \"classes\": {{class: [regions]}}")
        classes: dict[str, list[Region]] = {}
        for name, rows in table["classes"].items():
            at = f"classes[{_key(name)}]"
            if not isinstance(rows, list):
                raise ProfileError(f"{where}: {at} must list its regions, got {_shown(rows)}")
            regions = []
            for k, row in enumerate(rows):
                field = f"{at}[{k}]"
                if not isinstance(row, Mapping):
                    raise ProfileError(f"{where}: {field} must be an object with latency_us and bandwidth_GBps, "
                                       f"got {_shown(row)}")
                for key in ("latency_us", "bandwidth_GBps"):
                    if key not in row:
                        raise ProfileError(f"{where}: {field} has no {key}")
                first = _count(row.get("from_bytes", 0), f"{where}: {field}.from_bytes")
                latency = _number(row["latency_us"], f"{where}: {field}.latency_us", ">= 0")
                bandwidth = _number(row["bandwidth_GBps"], f"{where}: {field}.bandwidth_GBps", "> 0")
                regions.append(Region(first, latency * 1e-6, bandwidth * 1e9))
            classes[name] = regions
        overheads = table.get("overheads") or {}
        if not isinstance(overheads, Mapping):
            raise ProfileError(f"{where}: \"overheads\" must be {{class: {{sizes, send_us, recv_us, gap_us}}}}, "
                               f"got {_shown(overheads)}")
        parsed = {name: _overhead_table(o, f"{where}: overheads[{_key(name)}]") for name, o in overheads.items()}
        access = _access(table.get("access"), where)
        try:
            return cls(classes, source, parsed, access)
        except PredictError as e:
            raise ProfileError(f"{where}: {e}") from None

    @classmethod
    def from_results(cls, results: Any) -> NetworkProfile:
        """From a comm results file (path or hpcbench.Results): the regional
        fit of every comm layer, by class (see the module docstring)."""
        from .._results import Results, load
        data = results if isinstance(results, Results) else load(str(results))
        where = data.path or "these results"
        rec = data.finished("comm")
        layers = list(getattr(rec.derived, "layers", None) or []) if rec is not None else []
        if not layers:
            raise ProfileError(f"{where} has no comm layers to build a network profile from: "
                               "run `mpiexec -n N python -m hpcbench run comm` (N >= 2) first")
        best: dict[str, tuple[int, list[Region], OverheadTable | None]] = {}
        for layer in layers:
            try:
                klass = class_of_layer(layer.name)
            except PredictError:
                continue
            regions = [Region(int(r.first), float(r.latency), 1.0 / float(r.seconds_per_byte))
                       for r in layer.regions if r.seconds_per_byte and r.seconds_per_byte > 0]
            if regions and len(layer.pairs) > best.get(klass, (-1, [], None))[0]:
                o = layer.get("overheads")
                table = None if o is None else OverheadTable(*(np.array(o[key], dtype=float)
                                                                 for key in ("sizes", "send", "recv", "gap")))
                best[klass] = (len(layer.pairs), regions, table)
        if not best:
            raise ProfileError(f"the comm layers of {where} have no regional fit with a bandwidth")
        return cls({k: v for k, (_, v, _) in best.items()}, where,
                   {k: o for k, (_, _, o) in best.items() if o is not None})

    def to_dict(self) -> dict[str, Any]:
        """The table form (from_table reads it back)."""
        return {"format": PROFILE_FORMAT, "source": self.source,
                "classes": {c: [{"from_bytes": r.first, "latency_us": r.latency * 1e6,
                                 "bandwidth_GBps": r.bandwidth / 1e9} for r in regions]
                            for c, regions in self.classes.items()},
                "overheads": {c: {"sizes": o.sizes.tolist(), "send_us": (o.send * 1e6).tolist(),
                                  "recv_us": (o.recv * 1e6).tolist(), "gap_us": (o.gap * 1e6).tolist()}
                              for c, o in self.overheads.items()},
                **({"access": self.access.to_dict()} if self.access is not None else {})}

    def __repr__(self) -> str:
        split = f"; overheads for {', '.join(self.overheads)}" if self.overheads else ""
        shared = f"; ratNC up to {self.access.measured_upto} per node" if self.access is not None else ""
        return f"NetworkProfile({', '.join(self.classes)}{split}{shared}; from {self.source or 'code'})"

    # -- internals -----------------------------------------------------
    def _regions(self, cls: str) -> tuple[Region, ...]:
        try:
            key = class_of_layer(cls)
        except PredictError as e:
            raise ProfileError(str(e)) from None
        if key not in self.classes:
            raise ProfileError(f"the network profile ({self.source or 'code'}) has no {key!r} class, which the "
                               f"placement needs (it has: {', '.join(self.classes)})")
        return self.classes[key]

    def _coefficients(self, x: ArrayLike, cls: str) -> tuple[np.ndarray, np.ndarray]:
        regions = self._regions(cls)
        firsts = np.array([r.first for r in regions], dtype=float)
        k = np.maximum(np.searchsorted(firsts, np.asarray(x, dtype=float), side="right") - 1, 0)
        lat = np.array([r.latency for r in regions])[k]
        inv_bw = np.array([1.0 / r.bandwidth for r in regions])[k]
        return lat, inv_bw


# ------------------------------------------------------------ reading a table

def _read_table(name: str) -> Any:
    """The parsed JSON of the profile table `name` (a path or example:NAME)."""
    from .. import examples
    from .._files import read_file
    try:
        path = examples.resolve(name)
    except OSError as e:    # FileNotFoundError from resolve() names the shipped examples
        raise ProfileError(f"cannot read the profile {_printable(name)}: {e.strerror or e}") from None
    data = read_file(str(path), "profile", PROFILE_LIMIT, ProfileError)
    try:
        return json.loads(data.decode("utf-8"), parse_constant=_no_constant)
    except UnicodeDecodeError:
        raise ProfileError(f"the profile {_printable(name)} is not UTF-8 text (JSON)") from None
    except RecursionError:
        raise ProfileError(f"the profile {_printable(name)} nests too deep to be a profile table") from None
    except ValueError as e:
        raise ProfileError(f"the profile {_printable(name)} is not JSON: {e}") from None


def _no_constant(word: str) -> NoReturn:
    raise ValueError(f"{word} is not a number JSON allows (a profile's values are finite)")


def _printable(text: str) -> str:
    """`text` with control characters escaped, for a one-line message."""
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in str(text))


def _key(name: Any) -> str:
    """A class name as the field path writes it: "off-node", escaped."""
    return json.dumps(str(name))


def _shown(value: Any) -> str:
    """A JSON value as the file wrote it (true, "abc", -1), cut short."""
    try:
        text = json.dumps(value)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _number(value: Any, field: str, rule: str) -> float:
    """`value` as a finite float obeying `rule` (">= 0" or "> 0"); a bool is not a number."""
    ok = isinstance(value, (int, float)) and not isinstance(value, bool)
    if ok:
        number = float(value)
        ok = math.isfinite(number) and (number >= 0 if rule == ">= 0" else number > 0)
    if not ok:
        raise ProfileError(f"{field} must be a finite number {rule}, got {_shown(value)}")
    return number


def _count(value: Any, field: str) -> int:
    """`value` as a whole number of bytes in 0..2**53 (2048.0 is 2048)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not (
            math.isfinite(value) and value == int(value) and 0 <= value <= 2 ** 53):
        raise ProfileError(f"{field} must be a whole number of bytes >= 0, got {_shown(value)}")
    return int(value)


def _access(access: Any, where: str) -> AccessContention | None:
    """A table's optional "access": {"rat_nc": {"1": 1.0, "2": 1.9, ...},
    "source": "..."} (to_dict's form)."""
    if access is None:
        return None
    if not isinstance(access, Mapping) or not isinstance(access.get("rat_nc"), Mapping):
        raise ProfileError(f"{where}: \"access\" must be {{\"rat_nc\": {{\"1\": 1.0, \"2\": ratio, ...}}}}, "
                           f"got {_shown(access)}")
    source = access.get("source")
    try:
        return AccessContention.from_mapping(access["rat_nc"], source if isinstance(source, str) and source else where)
    except PredictError as e:
        raise ProfileError(f"{where}: access: {e}") from None


def _overhead_table(o: Any, field: str) -> OverheadTable:
    keys = ("sizes", "send_us", "recv_us", "gap_us")
    if not isinstance(o, Mapping):
        raise ProfileError(f"{field} must be an object with {', '.join(keys)}, got {_shown(o)}")
    columns = []
    for key in keys:
        values = o.get(key)
        if not isinstance(values, list) or not values:
            raise ProfileError(f"{field}.{key} must be a list of numbers, got {_shown(values)}")
        if key == "sizes":
            columns.append([float(_count(v, f"{field}.sizes[{k}]")) for k, v in enumerate(values)])
        else:
            columns.append([_number(v, f"{field}.{key}[{k}]", ">= 0") * 1e-6 for k, v in enumerate(values)])
    lengths = [len(c) for c in columns]
    if len(set(lengths)) != 1:
        raise ProfileError(f"{field}: {', '.join(keys)} need one value per size, got {', '.join(map(str, lengths))}")
    sizes = columns[0]
    bad = next((k for k in range(1, len(sizes)) if not sizes[k] > sizes[k - 1]), None)
    if bad is not None:
        raise ProfileError(f"{field}.sizes must increase, got {sizes[bad - 1]:.0f} then {sizes[bad]:.0f} "
                           f"at [{bad}]")
    return OverheadTable(*(np.array(c, dtype=float) for c in columns))
