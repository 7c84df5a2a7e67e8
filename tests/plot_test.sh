#!/bin/sh
# tools/plot.py on a collsim CSV: a PNG comes out, the same bytes twice; a missing column is
# exit 2 with the column named, and no PNG. Skipped (77) where matplotlib/pandas are missing
# (`make figures` installs them; `make test` does not need them).
# Usage: plot_test.sh COLLSIM SOURCE_DIR WORK_DIR
set -u
collsim=$1 src=$2 work=$3
py=/usr/bin/python3
[ -x "$py" ] || py=python3
"$py" -c 'import matplotlib, pandas' 2>/dev/null || { echo "matplotlib/pandas missing: skipped"; exit 77; }
rm -rf "$work" && mkdir -p "$work" || exit 1
"$collsim" collective -t torus:4x4 -a hierarchical,hierarchical:schedule=themis:intra=scf \
  -s 1MiB,4MiB --chunks 4 --format csv -o "$work/r.csv" -q || exit 1
"$py" "$src/tools/plot.py" bars "$work/r.csv" "$work/a.png" --x size_MB --y bw_utilization_pct \
  --filter 'algorithm!=ideal' || exit 1
"$py" "$src/tools/plot.py" bars "$work/r.csv" "$work/b.png" --x size_MB --y bw_utilization_pct \
  --filter 'algorithm!=ideal' || exit 1
[ -s "$work/a.png" ] || { echo "no PNG"; exit 1; }
cmp -s "$work/a.png" "$work/b.png" || { echo "PNG bytes differ between two runs"; exit 1; }
"$py" "$src/tools/plot.py" bars "$work/r.csv" "$work/c.png" --x size_MB --y no_such_column \
  2>"$work/err"
rc=$?
[ "$rc" = 2 ] || { echo "bad column: exit $rc, want 2"; exit 1; }
grep -q no_such_column "$work/err" || { echo "error does not name the column"; cat "$work/err"; exit 1; }
[ ! -e "$work/c.png" ] || { echo "a PNG was written despite the error"; exit 1; }
# `collsim plot` draws the standard figure through the same module: the same bytes as `auto`.
"$collsim" plot "$work/r.csv" -o "$work/d.png" || exit 1
"$py" "$src/tools/plot.py" auto "$work/r.csv" "$work/e.png" || exit 1
cmp -s "$work/d.png" "$work/e.png" || { echo "collsim plot differs from plot.py auto"; exit 1; }
"$collsim" plot "$work/missing.csv" -o "$work/f.png" 2>"$work/err2"
rc=$?
[ "$rc" = 2 ] || { echo "missing CSV: exit $rc, want 2"; exit 1; }
grep -q "missing.csv: no such file" "$work/err2" || { echo "error does not name the file"; exit 1; }
# `collsim plot --trace`: a run's timeline, offline; the same bytes twice; a run the trace does
# not have is exit 2 with the runs named, and no PNG.
"$collsim" collective -t torus:2x2 -a ring,direct -s 64KiB --trace "$work/t.json" -q >/dev/null || exit 1
"$collsim" plot --trace "$work/t.json" -o "$work/t1.png" --run 2 || exit 1
"$collsim" plot --trace "$work/t.json" -o "$work/t2.png" --run 2 || exit 1
[ -s "$work/t1.png" ] || { echo "no timeline PNG"; exit 1; }
cmp -s "$work/t1.png" "$work/t2.png" || { echo "timeline PNG bytes differ between two runs"; exit 1; }
"$collsim" plot --trace "$work/t.json" -o "$work/t3.png" --run 3 2>"$work/err3"
rc=$?
[ "$rc" = 2 ] || { echo "--run 3 of 2 runs: exit $rc, want 2"; exit 1; }
grep -q "the trace has runs 1-2" "$work/err3" || { echo "error does not name the runs"; cat "$work/err3"; exit 1; }
[ ! -e "$work/t3.png" ] || { echo "a timeline was written despite the error"; exit 1; }
"$collsim" plot "$work/r.csv" --trace "$work/t.json" -o "$work/t4.png" 2>"$work/err4"
rc=$?
[ "$rc" = 2 ] || { echo "CSV and --trace: exit $rc, want 2"; exit 1; }
echo ok
