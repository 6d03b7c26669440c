# Tests of MPI-IO (chapter 14; docs/mpi-io.md; included by tests/CMakeLists.txt; mpi_test,
# mpi_program are defined there).

# A file opened collectively, a view of holes per rank (a resized vector filetype after a
# header), written over 48 steps with write_at_all, write_all, write, write_at and a strided
# memory type (_c), some steps of 320 KiB (shared buffers), read back with read_at_all and
# read, iwrite_at(_all) and iread; pointer, byte offsets, size, amode, atomicity, view, group
# checked; rank 0 prints the size and a checksum of the whole file. Beside it a log written
# with write_ordered each step and read back with read_shared (mpcr's shared file pointer;
# `explicit`: by explicit offsets to the same bytes, for native MPICH, whose shared pointer
# fails here: mpi.io_shared3 below, and in the comparisons without checkpoints). Against native MPICH, under Open MPI's proxy (OMPIO),
# and checkpointed at random instants: --exit and restart (the file reopened, its view,
# atomicity and pointer set again: src/proxy/resources/files.c), restarted under Open MPI,
# and checkpoint-and-continue, whose final restart from the last generation finds the file
# longer than at the checkpoint and cuts it back (the bytes compared by the checksum).
add_executable(t_ckpt_io ckpt/ckpt_io.c)
target_link_libraries(t_ckpt_io PRIVATE PkgConfig::MPICH)
target_compile_options(t_ckpt_io PRIVATE -O2)
set_target_properties(t_ckpt_io PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tests)
mpi_test(mpi.io 2 t_ckpt_io 48 1 explicit)
mpi_test(mpi.io3 3 t_ckpt_io 30 1 explicit)
# ckpt.io's log is opened with MPI_MODE_DELETE_ON_CLOSE (`doc`): it must outlive each
# checkpoint --exit, under either MPI (Open MPI's MPI_Finalize closed it, and so deleted it).
add_test(NAME ckpt.io COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/ckpt/ckpt.sh exit-restart 2 2
    $<TARGET_FILE:t_ckpt_io> 48 30 shared doc)
add_test(NAME ckpt.io_continue COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/ckpt/ckpt.sh continue 2 2
    $<TARGET_FILE:t_ckpt_io> 48 30)
set_tests_properties(ckpt.io PROPERTIES
    ENVIRONMENT "MPCR=${MPCR_EXE};CKPT_NATIVE_ARGS=48 30 explicit doc" RESOURCE_LOCK cores TIMEOUT 300)
set_tests_properties(ckpt.io_continue PROPERTIES
    ENVIRONMENT "MPCR=${MPCR_EXE};CKPT_NATIVE_ARGS=48 30 explicit" RESOURCE_LOCK cores TIMEOUT 300)
# A file cut shorter, then deleted, between a checkpoint and the restart: the restart refused,
# naming the file, within 60 s; the file put back, the restart ends the job (tests/ckpt/io_refuse.sh).
add_test(NAME ckpt.io_refuse COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/ckpt/io_refuse.sh ${MPCR_EXE}
    $<TARGET_FILE:t_ckpt_io> 24 20)
set_tests_properties(ckpt.io_refuse PROPERTIES RESOURCE_LOCK cores TIMEOUT 300)
if(TARGET mpcr-proxy-openmpi)
    openmpi_test(io 2 t_ckpt_io 48 1 explicit)
    set_property(TEST ckpt.io APPEND PROPERTY ENVIRONMENT "CKPT_RESTART_ARGS=--mpi openmpi")
endif()

# Opening and its errors, error handlers (the files' default MPI_ERRORS_RETURN, MPI_FILE_NULL's,
# a user's), c2f/f2c, hints, preallocate/set_size/get_size, a read past the end, seek from the
# end, get_type_extent, a read-only file written, DELETE_ON_CLOSE, delete: against native
# MPICH, and under Open MPI's proxy.
mpi_program(t_io_misc mpi/io_misc.c)
mpi_test(mpi.io_misc 2 t_io_misc)
if(TARGET mpcr-proxy-openmpi)
    openmpi_test(io_misc 2 t_io_misc)
endif()

# The shared file pointer (a file beside the data file, under an fcntl lock: src/lib/io/file_shared.c):
# write_shared and iwrite_shared from every rank, write_ordered, seek_shared (SET, END),
# read_ordered, read_shared to the end of the file, a new view resetting it. Under mpcr only,
# the program checks itself: MPICH 4.0.2's own shared pointer fails it here natively (rank 2
# finds it at 224 ints after 192 were written by write_shared, in most runs).
mpi_program(t_io_shared mpi/io_shared.c)
add_test(NAME mpi.io_shared3 COMMAND ${MPCR_EXE} run -n 3 $<TARGET_FILE:t_io_shared>)
set_tests_properties(mpi.io_shared3 PROPERTIES RESOURCE_LOCK cores TIMEOUT 120
    PASS_REGULAR_EXPRESSION "io_shared: PASS")
if(TARGET mpcr-proxy-openmpi)
    add_test(NAME openmpi.io_shared COMMAND ${MPCR_EXE} run --mpi openmpi -n 2 $<TARGET_FILE:t_io_shared>)
    set_tests_properties(openmpi.io_shared PROPERTIES RESOURCE_LOCK cores TIMEOUT 120
        PASS_REGULAR_EXPRESSION "io_shared: PASS")
endif()
# A view in external32 (docs/mpi-io.md, "Data representations"): ints written from contiguous
# and strided memory types through an interleaved filetype, read back; extents in the file;
# rank 0 checks the file's first int big-endian and prints the file's checksum. Against native
# MPICH (the same bytes), under Open MPI's proxy (OMPIO converts: the same bytes again), and
# checkpointed with --exit and restarted under Open MPI (the view set again in external32).
add_executable(t_ckpt_io_external32 ckpt/ckpt_io_external32.c)
target_link_libraries(t_ckpt_io_external32 PRIVATE PkgConfig::MPICH)
target_compile_options(t_ckpt_io_external32 PRIVATE -O2)
set_target_properties(t_ckpt_io_external32 PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tests)
mpi_test(mpi.io_external32 2 t_ckpt_io_external32 30 1)
add_test(NAME ckpt.io_external32 COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/ckpt/ckpt.sh exit-restart 2 2
    $<TARGET_FILE:t_ckpt_io_external32> 120 16)
set_tests_properties(ckpt.io_external32 PROPERTIES
    ENVIRONMENT "MPCR=${MPCR_EXE}" RESOURCE_LOCK cores TIMEOUT 300)
if(TARGET mpcr-proxy-openmpi)
    openmpi_test(io_external32 2 t_ckpt_io_external32 30 1)
    set_property(TEST ckpt.io_external32 APPEND PROPERTY ENVIRONMENT "CKPT_RESTART_ARGS=--mpi openmpi")
endif()

# Parallel HDF5, unmodified (issue 39 point 4; docs/mpi-io.md "Parallel HDF5"): a program built
# with Debian's h5pcc.mpich, as a user builds it (libhdf5-mpich's static libhdf5.a over MPICH's
# libmpich.so.12, which mpcr replaces), writes a 2-D dataset by hyperslabs of columns (derived
# filetypes), extends a chunked one each step, rewrites an attribute, flushes, reads back; rank 0
# then hashes every dataset through HDF5's POSIX driver and the file's bytes (tests/ckpt/ckpt_hdf5.c).
# Checkpointed at random instants, --exit and restart twice, against native MPICH: the same
# checksums and the same bytes (`bytes`); and restarted under Open MPI's proxy (OMPIO): the same
# contents (1888 bytes in no object differ, 0xff after ROMIO's writes, 0 after OMPIO's: a plain
# run under Open MPI's proxy shows the same; h5dump -p of both files is the same). Checkpoint-and-continue is not tested: a
# restart from an older generation finds "field" rewritten by the lost run (docs/mpi-io.md, "At a
# restart", point 4). Left out where h5pcc.mpich is missing (apt install libhdf5-mpich-dev).
find_program(MPCR_H5PCC h5pcc.mpich)
if(MPCR_H5PCC)
    set(hdf5_exe ${CMAKE_BINARY_DIR}/tests/t_ckpt_hdf5)
    add_custom_command(OUTPUT ${hdf5_exe}
        COMMAND ${MPCR_H5PCC} -O2 -g -I${CMAKE_CURRENT_SOURCE_DIR}/ckpt -o ${hdf5_exe}
            ${CMAKE_CURRENT_SOURCE_DIR}/ckpt/ckpt_hdf5.c
        DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/ckpt/ckpt_hdf5.c ${CMAKE_CURRENT_SOURCE_DIR}/ckpt/ckpt.h
        COMMENT "Building t_ckpt_hdf5 with h5pcc.mpich")
    add_custom_target(t_ckpt_hdf5 ALL DEPENDS ${hdf5_exe})
    add_test(NAME ckpt.hdf5 COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/ckpt/ckpt.sh exit-restart 2 2
        ${hdf5_exe} 200 8 bytes)
    set_tests_properties(ckpt.hdf5 PROPERTIES
        ENVIRONMENT "MPCR=${MPCR_EXE}" RESOURCE_LOCK cores TIMEOUT 300)
    if(TARGET mpcr-proxy-openmpi)
        add_test(NAME ckpt.hdf5_openmpi COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/ckpt/ckpt.sh
            exit-restart 2 2 ${hdf5_exe} 200 8)
        set_tests_properties(ckpt.hdf5_openmpi PROPERTIES RESOURCE_LOCK cores TIMEOUT 300
            ENVIRONMENT "MPCR=${MPCR_EXE};CKPT_RESTART_ARGS=--mpi openmpi")
    endif()
else()
    message(STATUS "h5pcc.mpich not found: the parallel HDF5 tests are left out (apt install libhdf5-mpich-dev)")
endif()
mpcr_label_family(io)
