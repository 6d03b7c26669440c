# MPICH's own test suite under mpcr (scripts/conformance.sh; included by tests/CMakeLists.txt).
