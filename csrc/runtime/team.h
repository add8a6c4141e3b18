/* team.h - run one kernel on several processing units at the same time.
 *
 * Each member is a thread pinned to one PU. All members bind first; only if
 * every binding succeeded do they pass a common start barrier and run the
 * kernel, so a measurement never mixes pinned and unpinned threads. */
#ifndef HPCB_TEAM_H
#define HPCB_TEAM_H

#include <stddef.h>

#include "phase.h"
#include "why.h"

#define HPCB_TEAM_MAX_MEMBERS ((size_t)65536)

/* Where a team kernel runs: one member per PU (OS indexes). Every team
 * kernel's params hold one of these as `team`. */
struct hpcb_team_params {
    const unsigned *pus;
    size_t npus;
};

/* The team rules (all reported as "pus"): 1..HPCB_TEAM_MAX_MEMBERS PUs,
 * each a PU of this machine allowed to this process, no PU twice (two
 * members on one PU would time each other's slices, not a co-run).
 * HPCB_EHWLOC/HPCB_ENOMEM if the check itself cannot run. */
int hpcb_team_check(const struct hpcb_team_params *p, struct hpcb_why *why);

/* What the members of most team kernels share: the kernel's params and
 * out (each member casts them back to its family's types), and the phase
 * that keeps them in step. */
struct hpcb_team_job {
    const void *params;
    void *out;
    struct hpcb_phase phase;
};

/* The work of member `member` (0-based); returns an hpcb status. */
typedef int (*hpcb_team_fn)(void *arg, size_t member);

/* Check the team, then run fn on every PU concurrently. `phase`, if not
 * NULL, is initialised for the team's members before any starts: members
 * that must start timed work together wait on it (phase.h). Returns the
 * first member's failure (HPCB_EBIND if a member could not bind). */
int hpcb_team_run(const struct hpcb_team_params *p, hpcb_team_fn fn, void *arg, struct hpcb_phase *phase);

/* hpcb_team_run without the check, for a kernel that has checked its team
 * and starts it again and again inside a timed region (the inner product
 * times each start-up; the check's hwloc look-ups are not part of it). */
int hpcb_team_start(const struct hpcb_team_params *p, hpcb_team_fn fn, void *arg, struct hpcb_phase *phase);

#endif /* HPCB_TEAM_H */
