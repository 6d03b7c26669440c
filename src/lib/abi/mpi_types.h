/* The types of the MPI 5.0 standard ABI, the part of mpcr's ABI mpi.h that
 * is not a constant or a prototype (gen_abi.py puts it after the handle
 * types it writes from constants.txt). Layouts as the standard fixes them. */

typedef intptr_t MPI_Aint;
typedef int64_t MPI_Offset;
typedef int64_t MPI_Count;

/* 32 bytes: three public fields, then five the implementation owns (mpcr
 * keeps the received byte count and the cancelled flag there). */
typedef struct {
    int MPI_SOURCE;
    int MPI_TAG;
    int MPI_ERROR;
    int MPI_internal[5];
} MPI_Status;

/* The program's callbacks */
typedef void MPI_User_function(void *invec, void *inoutvec, int *len, MPI_Datatype *datatype);
typedef void MPI_User_function_c(void *invec, void *inoutvec, MPI_Count *len,
                                 MPI_Datatype *datatype);
typedef int MPI_Grequest_query_function(void *extra_state, MPI_Status *status);
typedef int MPI_Grequest_free_function(void *extra_state);
typedef int MPI_Grequest_cancel_function(void *extra_state, int complete);
typedef int MPI_Comm_copy_attr_function(MPI_Comm oldcomm, int comm_keyval, void *extra_state,
                                        void *attribute_val_in, void *attribute_val_out, int *flag);
typedef int MPI_Comm_delete_attr_function(MPI_Comm comm, int comm_keyval, void *attribute_val,
                                          void *extra_state);
typedef int MPI_Type_copy_attr_function(MPI_Datatype oldtype, int type_keyval, void *extra_state,
                                        void *attribute_val_in, void *attribute_val_out, int *flag);
typedef int MPI_Type_delete_attr_function(MPI_Datatype datatype, int type_keyval,
                                          void *attribute_val, void *extra_state);
typedef int MPI_Win_copy_attr_function(MPI_Win oldwin, int win_keyval, void *extra_state,
                                       void *attribute_val_in, void *attribute_val_out, int *flag);
typedef int MPI_Win_delete_attr_function(MPI_Win win, int win_keyval, void *attribute_val,
                                         void *extra_state);
/* MPI-1's attribute callbacks (deprecated), those of communicators */
typedef MPI_Comm_copy_attr_function MPI_Copy_function;
typedef MPI_Comm_delete_attr_function MPI_Delete_function;
typedef int MPI_Datarep_extent_function(MPI_Datatype datatype, MPI_Aint *extent,
                                        void *extra_state);
typedef int MPI_Datarep_conversion_function(void *userbuf, MPI_Datatype datatype, int count,
                                            void *filebuf, MPI_Offset position, void *extra_state);
typedef int MPI_Datarep_conversion_function_c(void *userbuf, MPI_Datatype datatype,
                                              MPI_Count count, void *filebuf, MPI_Offset position,
                                              void *extra_state);
typedef void MPI_Comm_errhandler_function(MPI_Comm *comm, int *error_code, ...);
typedef void MPI_File_errhandler_function(MPI_File *file, int *error_code, ...);
typedef void MPI_Win_errhandler_function(MPI_Win *win, int *error_code, ...);
typedef void MPI_Session_errhandler_function(MPI_Session *session, int *error_code, ...);
typedef MPI_Comm_errhandler_function MPI_Comm_errhandler_fn;
typedef MPI_File_errhandler_function MPI_File_errhandler_fn;
typedef MPI_Win_errhandler_function MPI_Win_errhandler_fn;
typedef MPI_Session_errhandler_function MPI_Session_errhandler_fn;

/* The tools interface's handles (mpcr answers none of its functions yet); the
 * structures' names are the standard's, as the other handles' */
typedef struct MPI_ABI_T_enum *MPI_T_enum;
typedef struct MPI_ABI_T_cvar_handle *MPI_T_cvar_handle;
typedef struct MPI_ABI_T_pvar_handle *MPI_T_pvar_handle;
typedef struct MPI_ABI_T_pvar_session *MPI_T_pvar_session;
typedef struct MPI_ABI_T_event_registration *MPI_T_event_registration;
typedef struct MPI_ABI_T_event_instance *MPI_T_event_instance;
typedef int MPI_T_cb_safety;
typedef int MPI_T_source_order;

/* Functions of the ABI that the description of the API (src/lib/api) lacks,
 * written by hand in abi_custom.c. */
int MPI_Abi_get_version(int *abi_major, int *abi_minor);
int MPI_Abi_get_info(MPI_Info *info);
int MPI_Status_get_source(MPI_Status *status, int *source);
int MPI_Status_get_tag(MPI_Status *status, int *tag);
int MPI_Status_get_error(MPI_Status *status, int *error);
int MPI_Status_set_source(MPI_Status *status, int source);
int MPI_Status_set_tag(MPI_Status *status, int tag);
int MPI_Status_set_error(MPI_Status *status, int error);
/* A handle as an int and back (for Fortran's handles) */
int MPI_Comm_toint(MPI_Comm h);
MPI_Comm MPI_Comm_fromint(int i);
int MPI_Errhandler_toint(MPI_Errhandler h);
MPI_Errhandler MPI_Errhandler_fromint(int i);
int MPI_File_toint(MPI_File h);
MPI_File MPI_File_fromint(int i);
int MPI_Group_toint(MPI_Group h);
MPI_Group MPI_Group_fromint(int i);
int MPI_Info_toint(MPI_Info h);
MPI_Info MPI_Info_fromint(int i);
int MPI_Message_toint(MPI_Message h);
MPI_Message MPI_Message_fromint(int i);
int MPI_Op_toint(MPI_Op h);
MPI_Op MPI_Op_fromint(int i);
int MPI_Request_toint(MPI_Request h);
MPI_Request MPI_Request_fromint(int i);
int MPI_Session_toint(MPI_Session h);
MPI_Session MPI_Session_fromint(int i);
int MPI_Type_toint(MPI_Datatype h);
MPI_Datatype MPI_Type_fromint(int i);
int MPI_Win_toint(MPI_Win h);
MPI_Win MPI_Win_fromint(int i);
