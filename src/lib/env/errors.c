/* Error classes, their texts, and error handlers. The library returns MPI
 * error classes as error codes; the proxy converts whatever its MPI returns
 * into a class before it crosses the channel. */
#include "api/api.h"
#include "api_gen.h"
#include "comm/comm.h"
#include "errors.h"
#include "runtime/runtime.h"
#include "report.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const class_text[] = {
    [MPI_SUCCESS] = "No MPI error",
    [MPI_ERR_BUFFER] = "Invalid buffer pointer",
    [MPI_ERR_COUNT] = "Invalid count argument",
    [MPI_ERR_TYPE] = "Invalid datatype argument",
    [MPI_ERR_TAG] = "Invalid tag argument",
    [MPI_ERR_COMM] = "Invalid communicator",
    [MPI_ERR_RANK] = "Invalid rank",
    [MPI_ERR_ROOT] = "Invalid root",
    [MPI_ERR_GROUP] = "Invalid group",
    [MPI_ERR_OP] = "Invalid operation",
    [MPI_ERR_TOPOLOGY] = "Invalid topology",
    [MPI_ERR_DIMS] = "Invalid dimension argument",
    [MPI_ERR_ARG] = "Invalid argument",
    [MPI_ERR_UNKNOWN] = "Unknown error",
    [MPI_ERR_TRUNCATE] = "Message truncated",
    [MPI_ERR_OTHER] = "Other MPI error",
    [MPI_ERR_INTERN] = "Internal MPI error",
    [MPI_ERR_IN_STATUS] = "Error code is in status",
    [MPI_ERR_PENDING] = "Pending request",
    [MPI_ERR_REQUEST] = "Invalid request",
    [MPI_ERR_ACCESS] = "Permission denied",
    [MPI_ERR_AMODE] = "Invalid file access mode",
    [MPI_ERR_BAD_FILE] = "Invalid file name",
    [MPI_ERR_CONVERSION] = "Data conversion error",
    [MPI_ERR_DUP_DATAREP] = "Data representation already defined",
    [MPI_ERR_FILE_EXISTS] = "File exists",
    [MPI_ERR_FILE_IN_USE] = "File in use",
    [MPI_ERR_FILE] = "Invalid file handle",
    [MPI_ERR_INFO] = "Invalid info object",
    [MPI_ERR_INFO_KEY] = "Invalid info key",
    [MPI_ERR_INFO_VALUE] = "Invalid info value",
    [MPI_ERR_INFO_NOKEY] = "Info key not defined",
    [MPI_ERR_IO] = "I/O error",
    [MPI_ERR_NAME] = "Invalid service name",
    [MPI_ERR_NO_MEM] = "Out of memory",
    [MPI_ERR_NOT_SAME] = "Arguments differ among processes",
    [MPI_ERR_NO_SPACE] = "Not enough space",
    [MPI_ERR_NO_SUCH_FILE] = "File does not exist",
    [MPI_ERR_PORT] = "Invalid port",
    [MPI_ERR_QUOTA] = "Quota exceeded",
    [MPI_ERR_READ_ONLY] = "Read-only file or file system",
    [MPI_ERR_SERVICE] = "Invalid service",
    [MPI_ERR_SPAWN] = "Error in spawn",
    [MPI_ERR_UNSUPPORTED_DATAREP] = "Unsupported data representation",
    [MPI_ERR_UNSUPPORTED_OPERATION] = "Unsupported operation",
    [MPI_ERR_WIN] = "Invalid window",
    [MPI_ERR_BASE] = "Invalid base address",
    [MPI_ERR_LOCKTYPE] = "Invalid lock type",
    [MPI_ERR_KEYVAL] = "Invalid attribute key",
    [MPI_ERR_RMA_CONFLICT] = "Conflicting RMA accesses",
    [MPI_ERR_RMA_SYNC] = "Wrong RMA synchronization",
    [MPI_ERR_SIZE] = "Invalid size",
    [MPI_ERR_DISP] = "Invalid displacement",
    [MPI_ERR_ASSERT] = "Invalid assert",
    [MPI_ERR_RMA_RANGE] = "RMA access out of window range",
    [MPI_ERR_RMA_ATTACH] = "Memory cannot be attached",
    [MPI_ERR_RMA_SHARED] = "Memory cannot be shared",
    [MPI_ERR_RMA_FLAVOR] = "Wrong window flavor",
    [MPI_ERR_SESSION] = "Invalid session",
    [MPI_ERR_PROC_ABORTED] = "Communication with an aborted process",
    [MPI_ERR_VALUE_TOO_LARGE] = "Value too large to store",
};
#define NCLASSES ((int)(sizeof class_text / sizeof class_text[0]))

/* Prints the message and ends the job with exit status `code`. */
static _Noreturn void fatal_code(int code, const char *fmt, va_list ap)
{
    char msg[1024];
    vsnprintf(msg, sizeof msg, fmt, ap);
    mpcr_report("rank %d: %s", mpcr.rank, msg);
    fflush(stdout);
    if (mpcr.initialized && !mpcr.finalized) mpcr_end_job(code);
    _exit(code);
}

_Noreturn void mpcr_fatal(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fatal_code(1, fmt, ap);
}

/* Like MPICH, a fatal MPI error ends the job with the error class as status. */
static _Noreturn void fatal_error(int err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fatal_code(err, fmt, ap);
}

_Noreturn void mpcr_error_fatal(int err, const char *fn, const char *whose)
{
    const char *text = err > 0 && err < NCLASSES && class_text[err] ? class_text[err] : "error";
    fatal_error(err, "%s failed: %s (error class %d); the %s's error handler is MPI_ERRORS_ARE_FATAL",
                fn, text, err, whose);
}

/* Applies handler eh, of communicator comm, to err. */
static int apply(MPI_Errhandler eh, MPI_Comm comm, int err, const char *fn)
{
    if (err == MPI_SUCCESS || eh == MPI_ERRORS_RETURN) return err;
    if (mpcr_errhandler_call(eh, comm, err)) return err;
    mpcr_error_fatal(err, fn, "communicator");
}

_Noreturn void mpcr_fatal_error_of(int err, const char *fn, const char *object)
{
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    /* not PMPI_Error_string: the Open MPI front end's would answer (api/api.h) */
    extern __typeof__(PMPI_Error_string) mpcr_mpich_PMPI_Error_string;
    if (mpcr_mpich_PMPI_Error_string(err, text, &len) != MPI_SUCCESS) snprintf(text, sizeof text, "error");
    mpcr_fatal("%s failed: %s (error class %d); the %s's error handler is MPI_ERRORS_ARE_FATAL", fn,
               text, err, object);
}

int mpcr_error_on(MPI_Errhandler eh, MPI_Comm comm, int err, const char *fn)
{
    return apply(eh, comm, err, fn);
}

int mpcr_error(struct mpcr_comm *comm, int err, const char *fn)
{
    if (err == MPI_SUCCESS) return err;
    if (!comm) comm = mpcr_comm_get(MPI_COMM_WORLD); /* no valid communicator: WORLD's handler */
    return apply(comm->errhandler, mpcr_comm_handle_of(comm), err, fn);
}

MPI_Errhandler mpcr_world_errhandler(void)
{
    return mpcr_comm_get(MPI_COMM_WORLD)->errhandler;
}

int mpcr_error_world(int err, const char *fn)
{
    return mpcr_error(NULL, err, fn);
}

/* ---- error classes and codes the program adds (MPI 4.0 section 9.5) ----
 * Numbered as MPICH numbers them, above MPI_ERR_LASTCODE: class c is
 * DYNAMIC | c, the k-th code added is DYNAMIC | k << 8 | its class's c. */
#define DYNAMIC     0x40000000
#define MAX_CLASSES 255
#define MAX_CODES   4096
static int nclasses, ncodes;
static int code_class[MAX_CODES + 1]; /* code k's class (predefined ones too); 0: deleted */
static unsigned char class_deleted[MAX_CLASSES + 1];
/* Deleted numbers, reused most recently deleted first (MPICH's errhan/adderr
 * adds and deletes 32 classes and 160 codes 10000 times). */
static int free_classes[MAX_CLASSES], nfree_classes, free_codes[MAX_CODES], nfree_codes;
static char *class_string[MAX_CLASSES + 1], *code_string[MAX_CODES + 1];

int mpcr_last_used_code(void)
{
    return nclasses ? DYNAMIC | nclasses : MPI_ERR_LASTCODE;
}

/* The class of a code, or -1 when the code is not one. */
static int class_of(int code)
{
    if (code >= 0 && code < NCLASSES && class_text[code]) return code;
    if ((code & ~0x3fffffff) != DYNAMIC) return -1;
    int c = code & 0xff, k = (code >> 8) & 0x3fffff;
    if (k) return k <= ncodes && code_class[k] && (code_class[k] & 0xff) == c ? code_class[k] : -1;
    return c >= 1 && c <= nclasses && !class_deleted[c] ? DYNAMIC | c : -1;
}

/* Where the string of a dynamic class or code is kept. */
static char **string_slot(int code)
{
    if (class_of(code) < 0 || code < DYNAMIC) return NULL;
    int k = (code >> 8) & 0x3fffff;
    return k ? &code_string[k] : &class_string[code & 0xff];
}

int mpcr_impl_Add_error_class(int *errorclass)
{
    if (!errorclass) return MPI_ERR_ARG;
    int c;
    if (nfree_classes)
        c = free_classes[--nfree_classes];
    else if (nclasses < MAX_CLASSES)
        c = ++nclasses;
    else
        return MPI_ERR_OTHER;
    class_deleted[c] = 0;
    *errorclass = DYNAMIC | c;
    return MPI_SUCCESS;
}

/* A code may be added to a predefined class too (MPICH's test
 * errhan/dynamic_errcode_predefined_errclass). */
int mpcr_impl_Add_error_code(int errorclass, int *errorcode)
{
    if (!errorcode || errorclass == MPI_SUCCESS || class_of(errorclass) != errorclass ||
        (errorclass >= DYNAMIC && (errorclass >> 8) & 0x3fffff))
        return MPI_ERR_ARG;
    int k;
    if (nfree_codes)
        k = free_codes[--nfree_codes];
    else if (ncodes < MAX_CODES)
        k = ++ncodes;
    else
        return MPI_ERR_OTHER;
    code_class[k] = errorclass;
    *errorcode = DYNAMIC | k << 8 | (errorclass & 0xff);
    return MPI_SUCCESS;
}

int mpcr_impl_Add_error_string(int errorcode, const char *string)
{
    char **slot = string_slot(errorcode);
    if (!slot || !string) return MPI_ERR_ARG;
    char *copy = strndup(string, MPI_MAX_ERROR_STRING - 1);
    if (!copy) return MPI_ERR_NO_MEM;
    free(*slot);
    *slot = copy;
    return MPI_SUCCESS;
}

/* MPICH's extensions: a deleted class or code is no longer valid; its
 * number is given to the next one added. */
int mpcr_impl_MPIX_Delete_error_class(int errorclass)
{
    if (errorclass < DYNAMIC || class_of(errorclass) != errorclass) return MPI_ERR_ARG;
    for (int k = 1; k <= ncodes; k++)
        if (code_class[k] == errorclass) return MPI_ERR_OTHER; /* codes of it remain */
    mpcr_impl_MPIX_Delete_error_string(errorclass);
    class_deleted[errorclass & 0xff] = 1;
    free_classes[nfree_classes++] = errorclass & 0xff;
    return MPI_SUCCESS;
}

int mpcr_impl_MPIX_Delete_error_code(int errorcode)
{
    int k = (errorcode >> 8) & 0x3fffff;
    if (errorcode < DYNAMIC || !k || class_of(errorcode) < 0) return MPI_ERR_ARG;
    mpcr_impl_MPIX_Delete_error_string(errorcode);
    code_class[k] = 0;
    free_codes[nfree_codes++] = k;
    return MPI_SUCCESS;
}

int mpcr_impl_MPIX_Delete_error_string(int errorcode)
{
    char **slot = string_slot(errorcode);
    if (!slot) return MPI_ERR_ARG;
    free(*slot);
    *slot = NULL;
    return MPI_SUCCESS;
}

int PMPI_Error_class(int errorcode, int *errorclass)
{
    int c = class_of(errorcode);
    if (c < 0) return mpcr_error_world(MPI_ERR_ARG, "MPI_Error_class");
    *errorclass = c;
    return MPI_SUCCESS;
}
MPCR_ALIAS(Error_class);

int PMPI_Error_string(int errorcode, char *string, int *resultlen)
{
    if (class_of(errorcode) < 0) return mpcr_error_world(MPI_ERR_ARG, "MPI_Error_string");
    char **slot = string_slot(errorcode);
    const char *text = slot ? (*slot ? *slot : "") : class_text[errorcode];
    *resultlen = snprintf(string, MPI_MAX_ERROR_STRING, "%s", text);
    return MPI_SUCCESS;
}
MPCR_ALIAS(Error_string);

_Noreturn void mpcr_unsupported(const char *name);
_Noreturn void mpcr_unsupported_feature(const char *what)
{
    mpcr_unsupported(what);
}

/* "mpcr: NAME is not supported" first, as scripts/conformance reads it;
 * WHERE names the ABI when it is not MPICH's. Exported as
 * mpcr_mpich_unsupported_in for the Open MPI front end (src/lib/ompi). */
_Noreturn void mpcr_mpich_unsupported_in(const char *name, const char *where);
_Noreturn void mpcr_mpich_unsupported_in(const char *name, const char *where)
{
    if (mpcr.initialized && !mpcr.finalized) {
        mpcr_report("%s is not supported yet%s; mpcr ended the job (rank %d)", name, where,
                    mpcr.rank);
        mpcr_end_job(1);
    }
    mpcr_report("%s is not supported yet%s; mpcr ended the program", name, where);
    fflush(stdout);
    _exit(1);
}

_Noreturn void mpcr_unsupported(const char *name)
{
    mpcr_mpich_unsupported_in(name, "");
}
