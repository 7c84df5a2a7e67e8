#!/bin/sh
# `mpirun -n K collsim ...` (issue 35, docs/parallel.md): the ranks split a sweep's points and rank
# 0 writes the bytes of the serial run: scenarios (every algorithm with its skipped and ideal
# rows; concurrent jobs), a collective sweep to -o FILE, a sweep stopped by a time bound (the
# same rows, error and exit status), and the refusals (exit 2). Without MPI, a start under mpirun
# is refused with a message saying so. Skipped (77, with the reason) when collsim was built
# without MPI (sanitizer builds leave it out) or where mpirun is missing; CI installs Open MPI (make deps).
# Usage: mpi_sweep_test.sh COLLSIM SOURCE_DIR WORK_DIR WITH_MPI SANITIZE
set -u
collsim=$1 src=$2 work=$3 with_mpi=$4 sanitize=$5
skip() { echo "mpi_sweep_test.sh: Skipped"; echo "$1"; exit 77; }
fail() { echo "FAIL: $1"; exit 1; }
case $collsim in /*) ;; *) collsim=$(pwd)/$collsim ;; esac
case $src in /*) ;; *) src=$(pwd)/$src ;; esac
rm -rf "$work" && mkdir -p "$work" || exit 1
cd "$work" || exit 1

if [ "$with_mpi" != 1 ]; then
  # What mpirun sets for rank 0 and rank 1 of two: exit 2, rank 0 says why, rank 1 stays silent.
  OMPI_COMM_WORLD_SIZE=2 OMPI_COMM_WORLD_RANK=0 "$collsim" list >out 2>err
  rc=$?
  [ "$rc" = 2 ] || fail "no-MPI build under mpirun: exit $rc, want 2"
  grep -q "built without MPI" err || fail "no-MPI build: message does not say so: $(cat err)"
  grep -q -- "--shard" err || fail "no-MPI build: message does not point to --shard"
  [ ! -s out ] || fail "no-MPI build: rank 0 ran the command anyway"
  OMPI_COMM_WORLD_SIZE=2 OMPI_COMM_WORLD_RANK=1 "$collsim" list >out 2>err
  rc=$?
  [ "$rc" = 2 ] && [ ! -s err ] && [ ! -s out ] || fail "no-MPI build: rank 1 exit $rc or output"
  [ "$sanitize" = 1 ] && skip "sanitizer builds leave MPI out (Open MPI's own allocations are not ASan-clean); make test runs this test"
  skip "collsim was built without MPI (Debian: libopenmpi-dev openmpi-bin, which make deps installs; configure again)"
fi
command -v mpirun >/dev/null 2>&1 || skip "mpirun not found (Debian: openmpi-bin, which make deps installs)"
root=""
[ "$(id -u)" = 0 ] && root="--allow-run-as-root"

# same K NAME ARGS...: serial and K ranks give the same standard output and exit status.
same() {
  k=$1 name=$2
  shift 2
  "$collsim" "$@" >"$name.serial" 2>"$name.serial.err"
  want=$?
  mpirun -n "$k" --oversubscribe $root "$collsim" "$@" >"$name.mpi" 2>"$name.mpi.err"
  got=$?
  [ "$got" = "$want" ] || { cat "$name.mpi.err"; fail "$name: exit $got under mpirun, $want serial"; }
  cmp -s "$name.serial" "$name.mpi" || { diff "$name.serial" "$name.mpi" | head; fail "$name: bytes differ"; }
  [ -s "$name.serial" ] || fail "$name: no output at all"
}

same 2 default run "$src/examples/default.yaml" --format csv -q
[ "$(wc -l <default.mpi)" -gt 300 ] || fail "default: fewer rows than the scenario has"
same 3 concurrent run "$src/examples/concurrent-collectives.yaml" --format csv -q
# A collective sweep to -o FILE: rank 0 writes the file; nothing on standard output.
coll="collective -t torus:4x4 -a ring,direct,hierarchical -s 64KiB,256KiB,1MiB,4MiB -b analytical,flow --format csv -q"
"$collsim" $coll -o serial.csv || fail "serial collective"
mpirun -n 2 --oversubscribe $root "$collsim" $coll -o mpi.csv >mpi.out 2>mpi.err || { cat mpi.err; fail "mpirun collective"; }
cmp -s serial.csv mpi.csv || fail "collective -o: bytes differ"
[ ! -s mpi.out ] || fail "collective -o: rank output on standard output"
[ "$(wc -l <mpi.csv)" = 33 ] || fail "collective -o: $(wc -l <mpi.csv) lines, want 33"
# A time bound stops the sweep at its 1 MiB ring run (on the second rank's slice): the rows
# before it, its error, exit 3.
same 3 bounded collective -t torus:4x4 -a ring,direct -s 64KiB,128KiB,256KiB,1MiB,4MiB,16MiB --max-time 150us --format csv -q
grep -q "not finished within the time bound" bounded.mpi.err || fail "bounded: no error message"
[ "$(wc -l <bounded.mpi)" = 9 ] || fail "bounded: $(wc -l <bounded.mpi) lines, want 9"
# Refusals: a format rank 0 cannot put together, --shard as well, a command without points.
mpirun -n 2 --oversubscribe $root "$collsim" collective -t torus:4x4 -a ring -s 64KiB >out 2>err
rc=$?
[ "$rc" = 2 ] && grep -q "add --format csv" err || fail "table under mpirun: exit $rc: $(head -2 err)"
mpirun -n 2 --oversubscribe $root "$collsim" collective -t torus:4x4 -a ring -s 64KiB --format csv --shard 0/2 >out 2>err
rc=$?
[ "$rc" = 2 ] && grep -q "leave out --shard" err || fail "--shard under mpirun: exit $rc: $(head -2 err)"
echo "mpirun -n 2/3: the same bytes as serial runs (scenario, concurrent jobs, -o, a time bound); refusals"
