/* A section of the state file while a kind writes it (resource.h): a list of
 * pieces, each either bytes copied into a buffer of the section's own or a
 * reference to bytes that stay put until the file is written. state.c makes
 * the section, hands it to the kind's save, then writes its pieces. And the
 * cursor a kind's load reads its section back with. */
#include "section.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define PIECE_MIN (64 * 1024) /* copies gather into buffers of this size at least */

static int add_piece(struct section *s, struct piece p)
{
    if (s->npieces == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 16;
        struct piece *t = realloc(s->pieces, cap * sizeof *t);
        if (!t) return -1;
        s->pieces = t, s->cap = cap;
    }
    s->pieces[s->npieces++] = p;
    return 0;
}

int section_put(struct section *s, const void *p, size_t n)
{
    if (!n) return 0;
    struct piece *last = s->npieces ? &s->pieces[s->npieces - 1] : NULL;
    if (!last || !last->room || last->room - last->len < n) {
        size_t room = n > PIECE_MIN ? n : PIECE_MIN;
        void *buf = malloc(room);
        if (!buf || add_piece(s, (struct piece){buf, 0, room})) return free(buf), -1;
        last = &s->pieces[s->npieces - 1];
    }
    memcpy((char *)last->data + last->len, p, n);
    last->len += n;
    s->bytes += n;
    return 0;
}

int section_put_ref(struct section *s, const void *p, size_t n)
{
    if (!n) return 0;
    if (add_piece(s, (struct piece){(void *)p, n, 0})) return -1;
    s->bytes += n;
    return 0;
}

int section_align(struct section *s)
{
    static const char zeros[8];
    return section_put(s, zeros, -s->bytes & 7);
}

int section_put_count(struct section *s, uint32_t count)
{
    uint32_t head[2] = {count, 0};
    return section_put(s, head, sizeof head);
}

const void *section_take(struct section_in *in, size_t n)
{
    if ((size_t)(in->end - in->p) < n) return NULL;
    const void *at = in->p;
    in->p += n;
    return at;
}

int section_get(struct section_in *in, void *dst, size_t n)
{
    const void *at = section_take(in, n);
    if (!at) return -1;
    if (n) memcpy(dst, at, n);
    return 0;
}

int section_skip_align(struct section_in *in)
{
    return section_take(in, (size_t)(-(in->p - in->start) & 7)) ? 0 : -1;
}

int section_get_count(struct section_in *in, uint32_t *count)
{
    uint32_t head[2];
    if (section_get(in, head, sizeof head)) return -1;
    *count = head[0];
    return 0;
}

void section_free(struct section *s)
{
    for (size_t i = 0; i < s->npieces; i++)
        if (s->pieces[i].room) free(s->pieces[i].data);
    free(s->pieces);
    *s = (struct section){0};
}
