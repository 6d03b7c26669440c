#!/usr/bin/env bash
# Many checkpoint cycles of one MPI job (ckpt.sh cycles): C cycles of a
# checkpoint the job survives, then a checkpoint --exit and a restart, the
# output equal to the native run's. C is MPCR_CYCLES (default CYCLES); the
# program's work grows with it, ITERATIONS_PER_CYCLE each, so that the job
# outlasts them all.
#   cycles.sh CYCLES NPROCS PROGRAM ITERATIONS_PER_CYCLE ARGS...
#   (PROGRAM takes ITERATIONS first: ckpt_ring ITERATIONS UNITS)
set -u
c=${MPCR_CYCLES:-$1} n=$2 prog=$3 per=$4
shift 4
CKPT_CYCLES=$c exec "$(dirname "$0")/ckpt.sh" cycles "$c" "$n" "$prog" $((c * per)) "$@"
