/* The compiled form of a type map, shared by typemap.c (which builds it)
 * and typemap_copy.c (which runs it); nothing else looks inside.
 *
 * One element of a type is a sequence of items, packed in order. An item
 * is `count` repetitions, `stride` bytes apart, the first `disp` bytes from
 * the element's origin, of either `unit` contiguous bytes (body NULL) or a
 * sub-sequence (body, whose size is unit). Sequences never change once
 * built and are shared, by reference, between the programs using them. */
#ifndef MPCR_TYPEMAP_SEQ_H
#define MPCR_TYPEMAP_SEQ_H

#include <stdint.h>

struct tm_item {
    int64_t disp, count, stride, unit;
    int64_t pos; /* packed offset of the item in its sequence */
    struct mpcr_tm_seq *body;
};

struct mpcr_tm_seq {
    int refs;
    int64_t n;      /* items */
    int64_t size;   /* packed bytes: the sum of count * unit */
    int64_t blocks; /* contiguous blocks, as compiled (saturates) */
    struct tm_item item[];
};

void mpcr_tm_seq_unref(struct mpcr_tm_seq *s);

#endif
