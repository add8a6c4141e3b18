/* cycle.h - the visiting orders of a chase: one closed cycle through every
 * slot of an array, in address order or in a random order.
 *
 * The traversal kernels (traverse.c: int offsets, Servet's mcalibrator;
 * chase.c: pointers, a pure dependent load) write the same orders into
 * their arrays: the order is made here once.
 */
#ifndef HPCB_CYCLE_H
#define HPCB_CYCLE_H

#include <stddef.h>
#include <stdint.h>

#include "../runtime/hpcb.h"
#include "../runtime/why.h"

/* Visiting orders: ORDER_SEQUENTIAL (0) slot 0, 1, 2, ..., Servet's
 * constant stride; ORDER_RANDOM (1) one uniformly random cycle through the
 * same slots; ORDER_WINDOWED (2) random within windows of window_slots
 * slots, the windows in random order. */
#define HPCB_ORDERS(X) X(ORDER_SEQUENTIAL) X(ORDER_RANDOM) X(ORDER_WINDOWED)
enum hpcb_order { HPCB_ORDERS(HPCB_ENUMERATOR) HPCB_ORDER_COUNT };

/* The names of the orders, for the rules that quote them. */
extern const char *const hpcb_order_names[];

/* Fill visit[0..slots) with the order in which the slots are visited:
 * visit[0] is always slot 0 (so every traversal begins and ends there),
 * and every slot appears once. window_slots matters for ORDER_WINDOWED
 * only (a positive count; more than `slots` means one window). slots > 0.
 * HPCB_ENOMEM if scratch memory cannot be had. */
int hpcb_cycle_order(size_t *visit, size_t slots, int order, uint64_t seed, size_t window_slots);

/* The rules both traversal kernels give an order: one of HPCB_ORDERS, and
 * with ORDER_WINDOWED a window of a positive multiple of stride_bytes.
 * HPCB_OK, or the rule broken, in `why` (parameters "order", "window_bytes"). */
int hpcb_cycle_order_check(struct hpcb_why *why, int order, size_t window_bytes, size_t stride_bytes);

#endif /* HPCB_CYCLE_H */
