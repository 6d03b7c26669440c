/* Stacks of the tasks that run non-blocking collectives, and the switch
 * to and from them (coll_stack.c). */
#ifndef MPCR_COLL_STACK_H
#define MPCR_COLL_STACK_H

/* Bytes of one task's stack: a schedule needs a few KiB (a round is 4.5
 * KiB), a user op function the rest; only pages touched cost memory. */
#define COLL_STACK_SIZE (512u * 1024)

/* A stack (its lowest address), or NULL when out of memory; given back. */
void *coll_stack_get(void);
void coll_stack_put(void *stack);
/* Lays out a new stack so that the first switch to the pointer returned
 * starts entry (which must never return). */
void *coll_stack_prepare(void *stack, void (*entry)(void));
/* Continues at `to` (a pointer saved by an earlier switch or made by
 * coll_stack_prepare); where this call stood is saved in *save. */
void mpcr_stack_switch(void **save, void *to);

#endif
