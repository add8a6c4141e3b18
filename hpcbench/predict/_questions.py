"""A study's procurement answers (_procure.py) from its inputs: the
efficiency crossing on the network as projected, and the process count on
a second network (a table or a comm results file) that matches the time
on the first, both by the model (a search prices hundreds of counts; the
simulation would take minutes each)."""
from __future__ import annotations

from collections.abc import Sequence

from ._contention import AccessContention
from ._errors import PredictError
from ._inputs import Setup, grown_params
from ._params import WavefrontParams
from ._procure import EfficiencyAnswer, MatchAnswer, efficiency_answer, match_answer, search_limit
from ._profile import NetworkProfile
from ._sweep import time_at
from ._whatif import Projection

__all__ = ["answers", "measured_upto", "second_profile"]


def second_profile(setup: Setup) -> NetworkProfile | None:
    """The second network the inputs name (--match-profile or
    --match-results, with that file's measured ratNC if it has any), or
    None; PredictError for both or an unreadable one."""
    inputs = setup.inputs
    if inputs.match_profile is not None and inputs.match_results is not None:
        raise PredictError("give the second network once: --match-profile (a table) or --match-results "
                           "(comm records)")
    if isinstance(inputs.match_profile, NetworkProfile):
        return inputs.match_profile
    if inputs.match_profile:
        return NetworkProfile.from_table(inputs.match_profile)
    if inputs.match_results:
        # Its own measured ratNC, if the file has a network-access record, as the first network's.
        second = NetworkProfile.from_results(inputs.match_results)
        return second.with_access(AccessContention.from_results(inputs.match_results))
    return None


def measured_upto(profile: NetworkProfile) -> float | None:
    """The largest message the profile was measured at (bytes), where it
    says (the overheads' sizes of a measured profile); None for a table of
    regions, which declares its last region open-ended."""
    sizes = [float(o.sizes[-1]) for o in profile.overheads.values()]
    return min(sizes) if sizes else None


def check_ranges(params: WavefrontParams, counts: Sequence[int], profiles: Sequence[NetworkProfile]) -> None:
    """PredictError (one line) if the faces of `counts` lie beyond the
    message sizes a profile was measured at: two networks compared over
    different size ranges compare a measurement with an extrapolation."""
    face = max(max(p.message_ew, p.message_ns) for p in (grown_params(params, c) for c in counts))
    for profile in profiles:
        upto = measured_upto(profile)
        if upto is not None and face > upto:
            raise PredictError(f"the network {profile.source or 'profile'} was measured up to {upto:.0f} bytes, the "
                               f"faces to compare are up to {face} bytes: measure both networks over the same "
                               "message sizes (comm's largest size) or compare tables")


def answers(setup: Setup, params: WavefrontParams, second: NetworkProfile | None,
            counts: Sequence[int]) -> tuple[EfficiencyAnswer | None, MatchAnswer | None]:
    """The efficiency crossing (if setup.inputs.efficiency) and the match
    on `second` (if given) of `counts`, for `params` (W_g as the model used
    it, the what-if's core speed applied) on the network as projected."""
    inputs, projected = setup.inputs, setup.projected
    measured_wg = params.with_(wg=params.wg * projected.core_speed, wg_pre=params.wg_pre * projected.core_speed)
    limit = search_limit(params.nx * params.ny)

    def first(count: int) -> float:
        return time_at(measured_wg, count, projected, inputs.alloc)

    efficiency = None
    if inputs.efficiency is not None:
        efficiency = efficiency_answer(first, inputs.efficiency, limit)
    match = None
    if second is not None:
        check_ranges(params, counts, [projected.profile, second])
        other = setup.what_if.apply(second, setup.measured.machine)
        other = Projection(other.profile, other.machine, projected.core_speed)
        match = match_answer(counts, first, lambda c: time_at(measured_wg, c, other, inputs.alloc),
                             second.source or "the second network", limit)
    return efficiency, match
