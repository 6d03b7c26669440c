/* Errors (errors.c) and error handlers (errhandler.c): applying a
 * communicator's handler to an error class, ending the job, and what the
 * other files need of error handlers and codes. */
#ifndef MPCR_ERRORS_H
#define MPCR_ERRORS_H

#include <mpi.h>

struct mpcr_comm;

/* Applies comm's error handler to error class `err` raised by function `fn`:
 * returns err (MPI_ERRORS_RETURN) or ends the job (MPI_ERRORS_ARE_FATAL).
 * comm NULL (the call had no valid communicator): MPI_COMM_WORLD's handler. */
int mpcr_error(struct mpcr_comm *comm, int err, const char *fn);
/* The same with the error handler itself and the handle of the communicator
 * it came from, which a user handler is given (the object may be gone: a
 * completion's request held it). */
int mpcr_error_on(MPI_Errhandler eh, MPI_Comm comm, int err, const char *fn);
MPI_Errhandler mpcr_world_errhandler(void);
/* Errors where no communicator is involved use MPI_COMM_WORLD's handler. */
int mpcr_error_world(int err, const char *fn);
_Noreturn void mpcr_fatal(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Ends the job for error code err of function fn, whose object (a "file",
 * a "window") has MPI_ERRORS_ARE_FATAL as its handler. */
_Noreturn void mpcr_fatal_error_of(int err, const char *fn, const char *object);
/* Ends the job with "mpcr: WHAT is not supported" (a use of a function that
 * mpcr implements only in part). */
_Noreturn void mpcr_unsupported_feature(const char *what);

/* Ends the job for error class err raised by fn on an object whose error
 * handler (the handler of `whose`: "communicator", "session") is fatal. */
_Noreturn void mpcr_error_fatal(int err, const char *fn, const char *whose);

/* Calls e's function with comm and err when e is a user handler (1), else 0. */
int mpcr_errhandler_call(MPI_Errhandler e, MPI_Comm comm, int err);
/* The same for a window's handler (MPI_Win_create_errhandler's function). */
int mpcr_errhandler_call_win(MPI_Errhandler e, MPI_Win win, int err);
/* The same for a file's handler (MPI_File_create_errhandler's function). */
int mpcr_errhandler_call_file(MPI_Errhandler e, MPI_File fh, int err);
/* The same for a session's handler (MPI_Session_create_errhandler's function). */
int mpcr_errhandler_call_session(MPI_Errhandler e, MPI_Session session, int err);
/* The largest error code in use (MPI_LASTUSEDCODE). */
int mpcr_last_used_code(void);
/* MPI_ERRHANDLER_NULL excluded: an argument check of the generated entry points. */
int mpcr_errhandler_valid(MPI_Errhandler e);

#endif
