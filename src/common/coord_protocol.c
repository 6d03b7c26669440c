/* See coord_protocol.h: the table, and the one parser of its lines. */
#include <errno.h>
#include <string.h>

#include "coord_protocol.h"

const struct mpcr_line_row mpcr_coord_lines[MPCR_LINE_KINDS] = {
#define MPCR_LINE_ROW(name, word, args, from, meaning) {word, args, from, meaning},
    MPCR_COORD_LINES(MPCR_LINE_ROW)
#undef MPCR_LINE_ROW
};

/* The length of the space-free token at s. */
static size_t token_len(const char *s)
{
    return strcspn(s, " ");
}

/* Matches the arguments of a line (at: what follows its word) against
 * pattern p, each argument after one space; 0 when the whole line follows
 * it. */
static int match(const char *p, const char *at, struct mpcr_line *m)
{
    for (;;) {
        while (*p == ' ' || *p == ']')
            p++;
        if (!*p) return *at ? -1 : 0;
        if (*p == '[') { /* an optional tail: given, or the line ends here */
            if (!*at) return 0;
            m->opt = 1;
            p++;
        }
        if (at[0] != ' ' || !at[1] || at[1] == ' ') return -1;
        at++;
        size_t pn = strcspn(p, " ]"), an = token_len(at);
        if (p[0] == '%' && p[1] == 'u' && pn == 2) {
            unsigned long long v = 0;
            for (size_t i = 0; i < an; i++) {
                unsigned d = (unsigned)(at[i] - '0');
                if (at[i] < '0' || at[i] > '9' || v > (~0ull - d) / 10) return -1;
                v = v * 10 + d;
            }
            if (m->nnum == MPCR_LINE_NUMS) return -1;
            m->num[m->nnum++] = v;
        } else if (p[0] == '%' && p[1] == 'w' && pn == 2) {
            if (an >= sizeof m->word) return -1;
            memcpy(m->word, at, an);
            m->word[an] = 0;
        } else if (p[0] == '%' && p[1] == 't' && pn == 2) {
            m->text = at;
            return 0; /* the rest of the line, spaces and all */
        } else if (pn != an || memcmp(p, at, an)) {
            return -1;
        }
        p += pn, at += an;
    }
}

int mpcr_coord_line_parse(const char *line, unsigned from, struct mpcr_line *m)
{
    size_t wn = token_len(line);
    for (int k = 0; k < MPCR_LINE_KINDS; k++) {
        const struct mpcr_line_row *row = &mpcr_coord_lines[k];
        if (!(row->from & from) || strlen(row->word) != wn || memcmp(row->word, line, wn)) continue;
        struct mpcr_line got = {.kind = (enum mpcr_line_kind)k, .text = ""};
        if (match(row->args, line + wn, &got)) continue;
        *m = got;
        return 0;
    }
    return -EINVAL;
}
