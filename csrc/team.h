/* team.h - run one kernel on several processing units at the same time.
 *
 * Each member is a thread pinned to one PU. All members bind first; only if
 * every binding succeeded do they pass a common start barrier and run the
 * kernel, so a measurement never mixes pinned and unpinned threads. */
#ifndef HPCB_TEAM_H
#define HPCB_TEAM_H

#include <stddef.h>

/* The work of member `member` (0-based); returns an hpcb status. */
typedef int (*hpcb_team_fn)(void *arg, size_t member);

/* Run fn on every PU in `pus` (OS indexes) concurrently. member_status, if
 * not NULL, receives each member's status. Returns the first failure;
 * HPCB_EINVAL if a PU appears twice. Members that must start timed work
 * together use a struct hpcb_phase (phase.h) inside `arg`. */
int hpcb_team_run(const unsigned *pus, size_t nmembers, hpcb_team_fn fn, void *arg,
                  int *member_status);

#endif /* HPCB_TEAM_H */
