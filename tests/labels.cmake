# Test labels (docs/testing.md): every test carries one area label, what it is about, and
# where they apply mode labels, how it runs: `ctest -L coll`, `ctest -L ckpt`, `ctest -N -L openmpi`.
# No label is part of another, so `-L` (a regular expression) selects exactly one. (Global
# properties: tests/unit and tests/engine, outside this directory, label theirs too.)
set_property(GLOBAL PROPERTY MPCR_TEST_AREAS
    pt2pt       # point-to-point: every mode, requests, probes, progress, shared buffers
    coll        # collectives: blocking, non-blocking, persistent, ops, neighbourhood
    comm        # communicators, groups, topologies, inter-communicators, windows as objects
    datatype    # datatype constructors, pack/unpack, external32
    attr        # info, attributes with callbacks, error handlers, classes and codes
    io          # MPI-IO: files, views, pointers, across checkpoints
    onesided    # one-sided: windows, epochs, locks, across checkpoints
    api         # the generated surface: exports, functions table, entry points, handles, channel
    ompiabi     # programs built with Open MPI on mpcr's libmpi.so.40, mpi4py
    stdabi      # programs built for the MPI 5.0 standard ABI (mpicc_abi) on mpcr's libmpi_abi.so.1
    job         # running a job: stdin, exit statuses, failures, idle CPU, unprivileged, stock mpicc
    threads     # MPI_THREAD_MULTIPLE, hybrid MPI + OpenMP
    fortran     # Fortran through libmpichfort
    ckpt        # checkpoint/restart of MPI jobs: cycles, coordinator, refusals, hosts
    engine      # the single-process checkpoint engine and mpcr-restore
    security    # trust nothing on disk or on a socket: owners, bindings, fuzzing
    cli         # the mpcr command: help, exit codes, signals, status --json, install
    batch       # launchers that start mpcr on every rank: mpcr exec, Slurm
    conformance # MPICH's own test suite
    unit        # unit tests: plain C, no MPI runtime
    bench)      # the benchmarks' smoke runs
set_property(GLOBAL PROPERTY MPCR_TEST_MODES
    ckpt        # checkpoints an MPI job (and restarts it, or is refused)
    openmpi     # runs or restarts on Open MPI's proxy
    slurm)      # through Slurm's daemons (scripts/slurm)
# No label may be part of another: `ctest -L` takes a regular expression (an area named
# rma would select conformance too).
function(mpcr_check_label_names)
    get_property(areas GLOBAL PROPERTY MPCR_TEST_AREAS)
    get_property(modes GLOBAL PROPERTY MPCR_TEST_MODES)
    set(all ${areas} ${modes})
    list(REMOVE_DUPLICATES all)
    foreach(a IN LISTS all)
        foreach(b IN LISTS all)
            string(FIND "${b}" "${a}" at)
            if(NOT a STREQUAL b AND at GREATER -1)
                message(FATAL_ERROR "tests/labels.cmake: label ${a} is part of label ${b}")
            endif()
        endforeach()
    endforeach()
endfunction()
mpcr_check_label_names()

# mpcr_label_family(AREA [MODE...]): labels the tests this directory registered since the
# previous call (whatever helper or add_test made them) with AREA and each MODE, and with the
# modes their names and environments show: ckpt for ckpt.* tests, openmpi for openmpi.* and
# *_openmpi tests
# and where the environment names Open MPI (MPCR_RUN_ARGS=--mpi openmpi, CKPT_RESTART_ARGS,
# LAUNCH=mpirun.openmpi ...), slurm for names with "slurm". Called once at the end of each
# family's file (or section), so that a test added to a family gets its labels with no line
# of its own; a directory's test left without an area fails the configuration.
function(mpcr_label_family area)
    get_property(MPCR_TEST_AREAS GLOBAL PROPERTY MPCR_TEST_AREAS)
    get_property(MPCR_TEST_MODES GLOBAL PROPERTY MPCR_TEST_MODES)
    if(NOT area IN_LIST MPCR_TEST_AREAS)
        message(FATAL_ERROR "mpcr_label_family: ${area} is not an area of tests/labels.cmake")
    endif()
    foreach(mode IN LISTS ARGN)
        if(NOT mode IN_LIST MPCR_TEST_MODES)
            message(FATAL_ERROR "mpcr_label_family: ${mode} is not a mode of tests/labels.cmake")
        endif()
    endforeach()
    get_property(all DIRECTORY PROPERTY TESTS)
    get_property(done DIRECTORY PROPERTY MPCR_LABELLED_TESTS)
    foreach(test IN LISTS all)
        if(test IN_LIST done)
            continue()
        endif()
        set(labels ${area} ${ARGN})
        if(test MATCHES "^ckpt\\.")
            list(APPEND labels ckpt)
        endif()
        get_test_property(${test} ENVIRONMENT env)
        if(test MATCHES "^openmpi\\.|[._]openmpi$" OR env MATCHES "--mpi openmpi|mpirun\\.openmpi")
            list(APPEND labels openmpi)
        endif()
        if(test MATCHES "slurm")
            list(APPEND labels slurm)
        endif()
        get_test_property(${test} LABELS given) # a mode set by hand (a script's own restart)
        if(given)
            list(PREPEND labels ${given})
        endif()
        list(REMOVE_DUPLICATES labels)
        set_tests_properties(${test} PROPERTIES LABELS "${labels}")
    endforeach()
    set_property(DIRECTORY PROPERTY MPCR_LABELLED_TESTS ${all})
    get_property(checked DIRECTORY PROPERTY MPCR_LABELS_CHECKED)
    if(NOT checked)
        set_property(DIRECTORY PROPERTY MPCR_LABELS_CHECKED TRUE)
        cmake_language(DEFER CALL mpcr_check_labels)
    endif()
endfunction()

# mpcr_check_labels([FILE]): every test registered in this directory so far has been labelled
# by a mpcr_label_family call; run at the end of each directory that labels its tests, and by
# tests/CMakeLists.txt after each family's file (FILE), so that a test registered after its
# family's call is not taken by the next family's.
function(mpcr_check_labels)
    get_property(all DIRECTORY PROPERTY TESTS)
    get_property(done DIRECTORY PROPERTY MPCR_LABELLED_TESTS)
    foreach(test IN LISTS all)
        if(NOT test IN_LIST done)
            message(SEND_ERROR "test ${test} has no area label: register it before its family's "
                "mpcr_label_family call${ARGV0} (tests/labels.cmake, docs/testing.md)")
        endif()
    endforeach()
endfunction()
