# MPICH's own test suite under mpcr (scripts/conformance.sh; included by tests/CMakeLists.txt).
#
# conformance.guard: every test of the suite listed in
# scripts/conformance/expected-pass.txt (those that passed under mpcr when
# docs/conformance.md was last regenerated; at most 4 ranks here) must
# still pass under mpcr. The suite is fetched, configured and built the
# first time (several minutes; cached in ${MPCR_CONFORMANCE_CACHE:-/var/tmp/mpcr-conformance});
# the test fails, naming what is missing, when it cannot be.
add_test(NAME conformance.guard
    COMMAND ${PROJECT_SOURCE_DIR}/scripts/conformance.sh --check
        ${PROJECT_SOURCE_DIR}/scripts/conformance/expected-pass.txt --max-np 4)
set_tests_properties(conformance.guard PROPERTIES ENVIRONMENT "MPCR=${MPCR_EXE}" RESOURCE_LOCK cores TIMEOUT 1800)
mpcr_label_family(conformance)
