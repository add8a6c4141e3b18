/* cycle.c - visiting orders of a chase; see cycle.h. */
#include "cycle.h"

#include <stdlib.h>

const char *const hpcb_order_names[] = {HPCB_ORDERS(HPCB_ENUM_NAME)};

/* splitmix64: small, fast and good enough to shuffle slots. */
static uint64_t next_random(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Fisher-Yates on visit[first..last): a uniformly random order. */
static void shuffle(size_t *visit, size_t first, size_t last, uint64_t *state)
{
    for (size_t s = last - 1; s > first; s--) {
        size_t k = first + (size_t)(next_random(state) % (s - first + 1));
        size_t tmp = visit[s];
        visit[s] = visit[k];
        visit[k] = tmp;
    }
}

int hpcb_cycle_order(size_t *visit, size_t slots, int order, uint64_t seed, size_t window_slots)
{
    for (size_t s = 0; s < slots; s++)
        visit[s] = s;
    if (order == HPCB_ORDER_SEQUENTIAL || slots < 2)
        return HPCB_OK;
    /* Shuffle within each window, then the order of the windows; window 0
     * stays first and keeps slot 0 at its start. For HPCB_ORDER_RANDOM the
     * one window is everything. */
    uint64_t state = seed;
    if (order == HPCB_ORDER_RANDOM || window_slots == 0 || window_slots > slots)
        window_slots = slots;
    size_t nwindows = (slots + window_slots - 1) / window_slots;
    for (size_t first = 0; first < slots; first += window_slots) {
        size_t last = first + window_slots < slots ? first + window_slots : slots;
        shuffle(visit, first == 0 ? 1 : first, last, &state);
    }
    if (nwindows <= 2)
        return HPCB_OK;
    size_t *windows = malloc(nwindows * sizeof *windows);
    size_t *ordered = malloc(slots * sizeof *ordered);
    if (windows == NULL || ordered == NULL) {
        free(windows);
        free(ordered);
        return HPCB_ENOMEM;
    }
    for (size_t w = 0; w < nwindows; w++)
        windows[w] = w;
    shuffle(windows, 1, nwindows, &state);
    size_t n = 0;
    for (size_t w = 0; w < nwindows; w++) {
        size_t first = windows[w] * window_slots;
        size_t last = first + window_slots < slots ? first + window_slots : slots;
        for (size_t s = first; s < last; s++)
            ordered[n++] = visit[s];
    }
    for (size_t s = 0; s < slots; s++)
        visit[s] = ordered[s];
    free(ordered);
    free(windows);
    return HPCB_OK;
}

int hpcb_cycle_order_check(struct hpcb_why *why, int order, size_t window_bytes, size_t stride_bytes)
{
    int rc = hpcb_why_choice(why, "order", order, hpcb_order_names, HPCB_ORDER_COUNT);
    if (rc != HPCB_OK)
        return rc;
    if (order == HPCB_ORDER_WINDOWED && (window_bytes == 0 || window_bytes % stride_bytes != 0))
        return hpcb_why_set(why, "window_bytes",
                            "must be a positive multiple of stride_bytes (%zu bytes) with ORDER_WINDOWED, got %zu",
                            stride_bytes, window_bytes);
    return HPCB_OK;
}
