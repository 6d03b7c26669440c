/* Windows (win.c): what the generated prologue (the WIN kind) and the
 * attributes (env/attr.c) need of them. */
#ifndef MPCR_WIN_H
#define MPCR_WIN_H

#include <mpi.h>

struct mpcr_win;
struct mpcr_win *mpcr_win_get(MPI_Win win); /* NULL when invalid */
/* A window's predefined attributes (MPI_WIN_BASE...; MPI_ERR_KEYVAL for
 * another keyval). */
int mpcr_win_predefined(struct mpcr_win *w, int keyval, void *value, int *flag);

#endif
