# `cmake --install BUILD --prefix PREFIX`: the layout of the build tree
# (bin/, libexec/mpcr/, lib/mpcr/), which `mpcr` finds relative to its own
# executable (/proc/self/exe), as the proxy finds the restorer beside
# itself. So an installed tree works from any prefix, and may be moved as
# a whole after installation. Nothing installed carries a path of the build.
install(TARGETS mpcr RUNTIME DESTINATION bin)
install(TARGETS mpcr-proxy-mpich mpcr-restore RUNTIME DESTINATION libexec/mpcr)
if(TARGET mpcr-proxy-openmpi)
    install(TARGETS mpcr-proxy-openmpi RUNTIME DESTINATION libexec/mpcr)
endif()
# The passive MPI library as the programs load it: libmpich.so.12 (and
# libmpi.so.12 for other MPICH-ABI implementations); no libmpich.so, as
# nothing is built against it.
install(TARGETS mpcr_passive LIBRARY DESTINATION lib/mpcr NAMELINK_SKIP)
install(CODE "file(CREATE_LINK libmpich.so.12
    \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/lib/mpcr/libmpi.so.12\" SYMBOLIC)")
# The front ends of the other ABIs (docs/abi-openmpi.md, docs/abi-standard.md): Open MPI's
# libmpi.so.40 and libmpi_mpifh.so.40, the standard ABI's libmpi_abi.so.1 with its mpi.h
# and compiler wrapper (which finds both from bin/).
foreach(front mpcr_passive_ompi mpcr_passive_ompi_fortran)
    if(TARGET ${front})
        install(TARGETS ${front} LIBRARY DESTINATION lib/mpcr NAMELINK_SKIP)
    endif()
endforeach()
if(TARGET mpcr_passive_abi) # with libmpi_abi.so, which mpicc_abi links
    install(TARGETS mpcr_passive_abi LIBRARY DESTINATION lib/mpcr)
    install(FILES ${CMAKE_BINARY_DIR}/include/mpcr/abi/mpi.h DESTINATION include/mpcr/abi)
    install(PROGRAMS ${CMAKE_BINARY_DIR}/bin/mpicc_abi DESTINATION bin)
    install(CODE "file(CREATE_LINK mpicc_abi
        \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/bin/mpicxx_abi\" SYMBOLIC)")
endif()
# The checkpoint engine, for LD_PRELOAD and for programs that use its hooks
# (include/mpcr/engine.h, found with `pkg-config mpcr`).
install(TARGETS mpcr-engine LIBRARY DESTINATION lib/mpcr)
# The guard the proxy gives every program (LD_AUDIT; docs/abi-check.md).
install(TARGETS mpcr-guard LIBRARY DESTINATION lib/mpcr)
install(FILES ${PROJECT_SOURCE_DIR}/include/mpcr/engine.h DESTINATION include/mpcr)
configure_file(${PROJECT_SOURCE_DIR}/cmake/mpcr.pc.in ${CMAKE_BINARY_DIR}/mpcr.pc @ONLY)
install(FILES ${CMAKE_BINARY_DIR}/mpcr.pc DESTINATION lib/pkgconfig)
install(FILES ${PROJECT_SOURCE_DIR}/docs/mpcr.1 DESTINATION share/man/man1)
