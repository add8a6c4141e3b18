/* team.c - pinned thread teams with a common start; see team.h. */
#include "team.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

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

static int compare_unsigned(const void *a, const void *b)
{
    unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;
    return (x > y) - (x < y);
}

/* Two members on one PU would time each other's slices, not a co-run. */
static int has_duplicates(const unsigned *pus, size_t n, int *result)
{
    unsigned *sorted = malloc(n * sizeof *sorted);
    if (sorted == NULL)
        return HPCB_ENOMEM;
    memcpy(sorted, pus, n * sizeof *sorted);
    qsort(sorted, n, sizeof *sorted, compare_unsigned);
    *result = 0;
    for (size_t i = 1; i < n; i++)
        if (sorted[i] == sorted[i - 1])
            *result = 1;
    free(sorted);
    return HPCB_OK;
}

int hpcb_team_run(const unsigned *pus, size_t nmembers, hpcb_team_fn fn, void *arg,
                  int *member_status)
{
    if (pus == NULL || fn == NULL || nmembers == 0 || nmembers > 65536)
        return HPCB_EINVAL;
    int duplicated;
    int check = has_duplicates(pus, nmembers, &duplicated);
    if (check != HPCB_OK)
        return check;
    if (duplicated)
        return HPCB_EINVAL;
    struct team t = {.pus = pus, .fn = fn, .arg = arg, .expected = nmembers};
    pthread_t *threads = calloc(nmembers, sizeof *threads);
    struct member *members = calloc(nmembers, sizeof *members);
    t.status = calloc(nmembers, sizeof *t.status);
    int rc = HPCB_OK;
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

    for (size_t i = 0; i < started; i++) {
        if (member_status != NULL)
            member_status[i] = t.status[i];
        if (rc == HPCB_OK && t.status[i] != HPCB_OK)
            rc = t.status[i];
    }
out:
    free(threads);
    free(members);
    free(t.status);
    return rc;
}
