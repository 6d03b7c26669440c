# Tests of security: owner and mode checks, images bound to their job, the coordinator's sockets (included by tests/CMakeLists.txt).
# Scripts in tests/security; each runs as root and again as user nobody
# (tests/as_nobody.sh: mpcr copied where nobody can run it), where the parts
# that need a second user are skipped.
set(SEC ${CMAKE_CURRENT_SOURCE_DIR}/security)
# sec_test(NAME SCRIPT ARGS...): NAME as the current user, NAME.unprivileged as nobody
function(sec_test name script)
    add_test(NAME security.${name} COMMAND ${SEC}/${script} ${ARGN})
    add_test(NAME security.${name}.unprivileged
        COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/as_nobody.sh ${CMAKE_BINARY_DIR} --copy ${SEC}/common.sh
            --copy ${SEC}/${script} --copy ${SEC}/conns.py
            --copy ${CMAKE_CURRENT_SOURCE_DIR}/free_port.sh -- bash ./${script} ${ARGN})
    set_tests_properties(security.${name} security.${name}.unprivileged PROPERTIES
        ENVIRONMENT "MPCR=${MPCR_EXE}" TIMEOUT 120)
endfunction()

# points 3 and 4: coord.sock 0600 under umask 000, peer uid checked; files created 0600, no symlink followed
sec_test(private_files private_files.sh sleep 60)

# points 1 and 2: owner and mode checks before a restart; images and manifest bound to their job, generation, rank
add_executable(sec_wait security/sec_wait.c)
sec_test(binding binding.sh $<TARGET_FILE:sec_wait>)

# points 7, 8, 9: mpcr-restore never blocks on a FIFO; no orphan after kill -9; stale files removed; signals passed on, 128 + signal
sec_test(lifecycle lifecycle.sh $<TARGET_FILE:sec_wait> $<TARGET_FILE:t_ckpt_ring> 100000 2)

# points 5, 6: idle connections stall no checkpoint; a forged report is refused; a TCP stranger is closed soon
sec_test(coord_conns coord_conns.sh $<TARGET_FILE:sec_wait>)

# issue 43, point 1: a restart maps the checkpoint's program or a copy with its contents; a
# rebuilt, doctored or swapped one (as root: nobody's swap in a directory nobody can write) refused
sec_test(swapped_program swapped_program.sh $<TARGET_FILE:sec_wait>)

# issue 43, point 2: the coordinator's directory deleted, made again, swapped, made writable by
# others under an --interval job; a stopped process's checkpoint gives up (as the current user only)
add_test(NAME security.place_lost COMMAND ${SEC}/place_lost.sh $<TARGET_FILE:st_heap>)
set_tests_properties(security.place_lost PROPERTIES ENVIRONMENT "MPCR=${MPCR_EXE}" TIMEOUT 150)
# the same for an MPI job of 2 ranks: taken up again in a new directory, interval checkpoints of
# both ranks there, the job's output and a restart from the new directory's newest equal to native
add_test(NAME security.place_lost_mpi COMMAND ${SEC}/place_lost_mpi.sh $<TARGET_FILE:t_ckpt_ring> 600 1)
set_tests_properties(security.place_lost_mpi PROPERTIES ENVIRONMENT "MPCR=${MPCR_EXE}" TIMEOUT 300
    RESOURCE_LOCK cores)

mpcr_label_family(security)

# point 2 for MPI jobs: swapped rank images, another job's image or state file refused (as the current user only: an MPI job is the costly part)
add_test(NAME security.binding_mpi COMMAND ${SEC}/binding_mpi.sh $<TARGET_FILE:t_ckpt_ring> 1500 1)
set_tests_properties(security.binding_mpi PROPERTIES ENVIRONMENT "MPCR=${MPCR_EXE}" RESOURCE_LOCK cores TIMEOUT 180)
mpcr_label_family(security ckpt)

# point 10: the fuzz targets (tests/security/fuzz.sh runs them under libFuzzer) replay their
# seed corpus and every crash found so far, under AddressSanitizer and UBSan
file(GLOB fuzz_manifest_inputs CONFIGURE_DEPENDS ${SEC}/fuzz/corpus/fuzz_manifest/* ${SEC}/fuzz/crashes/fuzz_manifest/*)
file(GLOB fuzz_lines_inputs CONFIGURE_DEPENDS ${SEC}/fuzz/corpus/fuzz_lines/* ${SEC}/fuzz/crashes/fuzz_lines/*)
set(coord_src ${PROJECT_SOURCE_DIR}/src/coord)
add_executable(replay_fuzz_manifest ${SEC}/fuzz/fuzz_manifest.c ${SEC}/fuzz/replay.c ${coord_src}/binding.c ${coord_src}/private.c)
add_executable(replay_fuzz_lines ${SEC}/fuzz/fuzz_lines.c ${SEC}/fuzz/replay.c ${coord_src}/binding.c ${coord_src}/private.c
    ${SEC}/fuzz/coord_single.c ${coord_src}/gens.c ${coord_src}/place.c ${coord_src}/fault.c ${coord_src}/triggers.c ${coord_src}/abandoned.c)
file(GLOB common_src CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/src/common/*.c) # sanitized too
foreach(t fuzz_manifest fuzz_lines)
    target_sources(replay_${t} PRIVATE ${common_src})
    target_include_directories(replay_${t} PRIVATE ${coord_src} ${PROJECT_SOURCE_DIR}/src/engine ${PROJECT_SOURCE_DIR}/src/common)
    target_compile_options(replay_${t} PRIVATE -fsanitize=address,undefined -fno-sanitize-recover=undefined)
    target_link_options(replay_${t} PRIVATE -fsanitize=address,undefined)
    add_test(NAME security.replay_${t} COMMAND replay_${t} ${${t}_inputs})
endforeach()

# Mutation fuzzing (tests/security/mutate/, docs/reliability.md): damaged copies of a valid
# image given to the restorer's checked build (`mpcr-restore-checked --check`), of a valid
# proxy state file to state_load (linked with the proxy's files, all but main.c, under
# AddressSanitizer and UBSan); each refused with status 1 and a message, none crashing or
# hanging. MUTATE_ITERATIONS asks for more inputs, MUTATE_SEED another seed.
set(MUT ${SEC}/mutate)
add_executable(fuzz_image ${MUT}/fuzz_image.c ${MUT}/mutate.c)
target_include_directories(fuzz_image PRIVATE ${PROJECT_SOURCE_DIR}/src/engine)
add_executable(fuzz_state ${MUT}/fuzz_state.c ${MUT}/mutate.c ${MPCR_PROXY_SOURCES})
target_include_directories(fuzz_state PRIVATE ${MPCR_PROXY_INCLUDE_DIRS})
target_link_libraries(fuzz_state PRIVATE PkgConfig::MPICH mpcr_channel pthread)
foreach(t fuzz_image fuzz_state)
    target_compile_options(${t} PRIVATE -fsanitize=address,undefined -fno-sanitize-recover=undefined)
    target_link_options(${t} PRIVATE -fsanitize=address,undefined)
endforeach()
add_executable(state_seed ${MUT}/state_seed.c)
target_link_libraries(state_seed PRIVATE PkgConfig::MPICH)
add_test(NAME security.fuzz_image COMMAND ${MUT}/run.sh image $<TARGET_FILE:mpcr-restore-checked>
    $<TARGET_FILE:st_refuse> $<TARGET_FILE:fuzz_image>)
add_test(NAME security.fuzz_state COMMAND ${MUT}/run.sh state ${MPCR_EXE} $<TARGET_FILE:state_seed>
    $<TARGET_FILE:fuzz_state>)
set_tests_properties(security.fuzz_image security.fuzz_state PROPERTIES TIMEOUT 300)

mpcr_label_family(security)

# Issue 13, point 4: links planted at a generation's temporaries just before mpcr opens them
# (${SEC}/plant.c, preloaded), planted generation directories; point 9: a launcher that
# exits 0 after the signal passed on (as the current user only: MPI jobs, a preloaded library)
add_library(sec_plant MODULE ${SEC}/plant.c)
target_link_libraries(sec_plant PRIVATE ${CMAKE_DL_LIBS})
add_test(NAME security.planted COMMAND ${SEC}/planted.sh
    $<TARGET_FILE:sec_wait> $<TARGET_FILE:sec_plant> $<TARGET_FILE:t_ckpt_ring> 1500 2)
mpcr_label_family(security ckpt) # security.planted: checkpoints of MPI jobs
add_test(NAME security.launcher_status COMMAND ${SEC}/launcher_status.sh
    $<TARGET_FILE:t_ckpt_ring> 100000 2)
set_tests_properties(security.planted security.launcher_status PROPERTIES ENVIRONMENT "MPCR=${MPCR_EXE}"
    RESOURCE_LOCK cores TIMEOUT 180)
mpcr_label_family(security)
