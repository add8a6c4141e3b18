/* team.c - pinned thread teams with a common start; see team.h. */
#include "team.h"

#include <pthread.h>
#include <stdlib.h>

#include "hpcb.h"
#include "topo.h"

/* A start gate: members wait until `expected` of them have arrived. Unlike a
 * pthread barrier, the creator can lower `expected` if it fails to start every
 * thread, so a failed pthread_create is reported instead of hanging. */
struct team {
    const unsigned *pus;
    hpcb_team_fn fn;
    void *arg;
    int *status;          /* one per member */
    pthread_mutex_t lock;
    pthread_cond_t all_bound;
    size_t arrived;
    size_t expected;
    int abort_run;        /* a binding or a thread start failed: run nothing */
};

struct member {
    struct team *team;
    size_t index;
};

static void *member_main(void *p)
{
    struct member *m = p;
    struct team *t = m->team;
    int rc = hpcb_bind_thread(&t->pus[m->index], 1);

    pthread_mutex_lock(&t->lock);
    if (rc != HPCB_OK)
        t->abort_run = 1;
    t->arrived++;
    if (t->arrived >= t->expected)
        pthread_cond_broadcast(&t->all_bound);
    while (t->arrived < t->expected)
        pthread_cond_wait(&t->all_bound, &t->lock);
    int skip = t->abort_run;
    pthread_mutex_unlock(&t->lock);

    t->status[m->index] = rc != HPCB_OK ? rc : (skip ? HPCB_EBIND : t->fn(t->arg, m->index));
    return NULL;
}

int hpcb_team_check(const struct hpcb_team_params *p, struct hpcb_why *why)
{
    if (p == NULL)
        return hpcb_why_set(why, "p", "must point to the parameters, got NULL");
    int rc = hpcb_why_range(why, "pus", p->npus, 1, HPCB_TEAM_MAX_MEMBERS, " PUs");
    if (rc == HPCB_OK)
        rc = hpcb_topo_check_pus(p->pus, p->npus, why);
    if (rc != HPCB_OK)
        return rc;
    /* Every PU is known now, so the bitmap stays as small as the machine. */
    hwloc_bitmap_t seen = hwloc_bitmap_alloc();
    if (seen == NULL)
        return HPCB_ENOMEM;
    for (size_t i = 0; rc == HPCB_OK && i < p->npus; i++) {
        if (hwloc_bitmap_isset(seen, p->pus[i]))
            rc = hpcb_why_set(why, "pus", "must be distinct: PU %u appears twice", p->pus[i]);
        else if (hwloc_bitmap_set(seen, p->pus[i]) != 0)
            rc = HPCB_ENOMEM;
    }
    hwloc_bitmap_free(seen);
    return rc;
}

int hpcb_team_run(const struct hpcb_team_params *p, hpcb_team_fn fn, void *arg, struct hpcb_phase *phase)
{
    int rc = hpcb_team_check(p, NULL);
    return rc != HPCB_OK ? rc : hpcb_team_start(p, fn, arg, phase);
}

int hpcb_team_start(const struct hpcb_team_params *p, hpcb_team_fn fn, void *arg, struct hpcb_phase *phase)
{
    if (p == NULL || p->pus == NULL || p->npus == 0 || fn == NULL)
        return HPCB_EINVAL;
    if (phase != NULL)
        hpcb_phase_init(phase, p->npus);
    int rc = HPCB_OK;
    size_t nmembers = p->npus;
    struct team t = {.pus = p->pus, .fn = fn, .arg = arg, .expected = nmembers};
    pthread_t *threads = calloc(nmembers, sizeof *threads);
    struct member *members = calloc(nmembers, sizeof *members);
    t.status = calloc(nmembers, sizeof *t.status);
    if (threads == NULL || members == NULL || t.status == NULL) {
        rc = HPCB_ENOMEM;
        goto out;
    }
    if (pthread_mutex_init(&t.lock, NULL) != 0) {
        rc = HPCB_ESYS;
        goto out;
    }
    if (pthread_cond_init(&t.all_bound, NULL) != 0) {
        pthread_mutex_destroy(&t.lock);
        rc = HPCB_ESYS;
        goto out;
    }

    size_t started = 0;
    for (; started < nmembers; started++) {
        members[started] = (struct member){.team = &t, .index = started};
        if (pthread_create(&threads[started], NULL, member_main, &members[started]) != 0)
            break;
    }
    if (started < nmembers) {
        pthread_mutex_lock(&t.lock);
        t.abort_run = 1;
        t.expected = started;
        pthread_cond_broadcast(&t.all_bound);
        pthread_mutex_unlock(&t.lock);
        rc = HPCB_ESYS;
    }
    for (size_t i = 0; i < started; i++)
        pthread_join(threads[i], NULL);
    pthread_cond_destroy(&t.all_bound);
    pthread_mutex_destroy(&t.lock);

    for (size_t i = 0; i < started && rc == HPCB_OK; i++)
        rc = t.status[i];
out:
    free(threads);
    free(members);
    free(t.status);
    return rc;
}
