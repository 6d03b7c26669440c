# Tests of security: owner and mode checks, images bound to their job, the coordinator's sockets (included by tests/CMakeLists.txt).
