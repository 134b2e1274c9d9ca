#!/usr/bin/env bash
# timeout: 60
# Exported symbols of lib/libmpi.so.12:
#  - only MPI_*, PMPI_* and the ABI's few extra names are exported (no internal fy_* symbol
#    leaks): MPIR_Dup_fn (behind MPI_DUP_FN), the MPIR_F08_* and MPIR_C_MPI_* objects of
#    MPICH's headers, and MPIX_/PMPIX_ extensions that MPICH's mpi.h declares; and Ferry's
#    own public API of include/ferry/trace.h (ferry_trace_*: regions in a trace, no-ops in
#    libmpi that the recorder replaces);
#  - every standard MPI_x function that MPICH's libmpich.so.12 exports (MPIX_, QMPI, MPIR,
#    MPII and Fortran names excluded) is exported by Ferry both as MPI_x and as PMPI_x;
#  - the soname is one of the ABI's names (libmpi.so.12 or libmpich.so.12), and
#    lib/libmpich.so.12 and lib/libmpi.so name the same file.
. "$(dirname "${BASH_SOURCE[0]}")/common.bash"
fy_setup
lib=$FY_LIB/libmpi.so.12
mpich_lib=${MPICH_LIB:-/usr/lib/x86_64-linux-gnu/libmpich.so.12}
fy_need "$lib" "$mpich_lib" nm readelf

fy_run_ok nm-ferry 30 nm -D --defined-only "$lib"
fy_run_ok nm-mpich 30 nm -D --defined-only "$mpich_lib"
awk 'NF >= 3 { print $3 }' nm-ferry.out | sed 's/@.*//' | sort -u >ferry.syms
[ -s ferry.syms ] || { fy_show nm-ferry; fy_fail "no exported symbols in $lib"; }

# 1. Nothing but the ABI's names.
allowed='^(P?MPI_[A-Za-z0-9_]+|P?MPIX_[A-Za-z0-9_]+|MPIR_Dup_fn|MPIR_F08_[A-Za-z0-9_]+|MPIR_C_MPI_[A-Za-z0-9_]+|ferry_trace_(begin|end|note)|_init|_fini|_edata|_end|__bss_start)$'
grep -vE "$allowed" ferry.syms >extra.syms || true
if [ -s extra.syms ]; then
    echo "symbols exported by $lib outside the ABI:" >&2
    head -100 extra.syms >&2
    fy_fail "$(wc -l <extra.syms) exported symbols are neither MPI_*, PMPI_* nor ABI extras"
fi

# 2. MPICH's standard functions, as MPI_x and PMPI_x.
awk '$2 ~ /^[TtWwi]$/ { print $3 }' nm-mpich.out | sed 's/@.*//' |
    grep -E '^MPI_' | sort -u >mpich.funcs
[ "$(wc -l <mpich.funcs)" -gt 400 ] || fy_fail "only $(wc -l <mpich.funcs) MPI_ functions found in $mpich_lib"
awk '$2 ~ /^[TtWwi]$/ { print $3 }' nm-ferry.out | sed 's/@.*//' | sort -u >ferry.funcs
: >missing.syms
while read -r f; do
    grep -qxF "$f" ferry.funcs || echo "$f" >>missing.syms
    grep -qxF "P$f" ferry.funcs || echo "P$f" >>missing.syms
done <mpich.funcs
if [ -s missing.syms ]; then
    echo "functions exported by MPICH but not by Ferry:" >&2
    column -c 100 missing.syms >&2 2>/dev/null || cat missing.syms >&2
    fy_fail "$(wc -l <missing.syms) of MPICH's $(wc -l <mpich.funcs) standard functions (x2 for PMPI_) are missing"
fi

# 3. The names a program or a loader asks for.
fy_run_ok readelf 30 readelf -d "$lib"
grep -Eq 'SONAME.*\[libmpi(ch)?\.so\.12\]' readelf.out ||
    { fy_show readelf; fy_fail "the soname of $lib is neither libmpi.so.12 nor libmpich.so.12"; }
for alias in libmpich.so.12 libmpi.so; do
    [ "$(readlink -f "$FY_LIB/$alias")" = "$(readlink -f "$lib")" ] ||
        fy_fail "$FY_LIB/$alias is not the same file as $lib"
done
echo "PASS: $(wc -l <ferry.syms) exported symbols; all $(wc -l <mpich.funcs) MPICH functions present as MPI_ and PMPI_"
