#!/bin/bash
# timeout: 180
# mpicc/mpicxx: the MPICH and Open MPI spellings of the query options, FERRY_CC, compile-only
# mode, and an installed tree (make install) whose programs find libmpi without
# LD_LIBRARY_PATH, with pkg-config metadata.
set -u
fail=0
check() { # description, command...
    local what=$1
    shift
    if ! out=$("$@" 2>&1); then
        echo "FAIL: $what: $* -> $out"
        fail=1
    fi
}
B=$FY_BUILD
cat > hello.c <<'C'
#include <mpi.h>
#include <stdio.h>
int main(int argc, char **argv)
{
    int size;
    char v[MPI_MAX_LIBRARY_VERSION_STRING];
    int len;
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Get_library_version(v, &len);
    printf("size %d %s\n", size, v);
    MPI_Finalize();
    return 0;
}
C
cp hello.c hello.cpp

show=$("$B/bin/mpicc" -show -O2 hello.c -o hello)
for want in "-I$B/include" "hello.c" "-lmpi" "-Wl,-rpath,$B/lib"; do
    case "$show" in *"$want"*) ;; *) echo "FAIL: mpicc -show lacks $want: $show"; fail=1 ;; esac
done
[ "$("$B/bin/mpicc" --showme -O2 hello.c)" = "$show" ] || [ "$("$B/bin/mpicc" --showme -O2 hello.c -o hello)" = "$show" ] || { echo "FAIL: --showme differs from -show"; fail=1; }
ci=$("$B/bin/mpicc" -compile-info)
case "$ci" in *"-I$B/include"*) ;; *) echo "FAIL: -compile-info: $ci"; fail=1 ;; esac
case "$ci" in *-lmpi*) echo "FAIL: -compile-info has link flags: $ci"; fail=1 ;; esac
li=$("$B/bin/mpicc" -link-info)
case "$li" in *-lmpi*) ;; *) echo "FAIL: -link-info: $li"; fail=1 ;; esac
[ "$("$B/bin/mpicc" --showme:link)" = "$li" ] || { echo "FAIL: --showme:link differs"; fail=1; }
cshow=$("$B/bin/mpicc" -show -c hello.c)
case "$cshow" in *-lmpi*) echo "FAIL: -c still links: $cshow"; fail=1 ;; esac
fc=$(FERRY_CC=gcc-12 "$B/bin/mpicc" -show hello.c)
case "$fc" in gcc-12\ *) ;; *) echo "FAIL: FERRY_CC ignored: $fc"; fail=1 ;; esac
fx=$(FERRY_CXX=g++ "$B/bin/mpicxx" -show hello.cpp)
case "$fx" in g++\ *) ;; *) echo "FAIL: FERRY_CXX ignored: $fx"; fail=1 ;; esac

check "mpicc compile+link" "$B/bin/mpicc" -O2 -o hello hello.c
check "mpicxx compile+link" "$B/bin/mpicxx" -O2 -o hellocxx hello.cpp
check "mpicc -c then link" sh -c "'$B/bin/mpicc' -c hello.c -o h.o && '$B/bin/mpicc' h.o -o hello2"
for exe in ./hello ./hellocxx ./hello2; do
    out=$(env -u LD_LIBRARY_PATH "$B/bin/mpiexec" -n 2 "$exe" 2>&1)
    [ "$(echo "$out" | grep -c 'size 2 Ferry')" = 2 ] || { echo "FAIL: $exe under mpiexec: $out"; fail=1; }
done

# An installed tree, away from the build tree.
prefix=$PWD/inst
if ! out=$(cmake --install "$B" --prefix "$prefix" 2>&1); then
    echo "FAIL: cmake --install: $out"
    fail=1
else
    for f in bin/mpicc bin/mpicxx bin/mpiexec bin/mpirun lib/libmpi.so.12 lib/libmpi.so \
        lib/libmpich.so.12 lib/libmpich.so include/mpi.h lib/pkgconfig/mpi.pc; do
        [ -e "$prefix/$f" ] || { echo "FAIL: install lacks $f"; fail=1; }
    done
    check "installed mpicc" "$prefix/bin/mpicc" -O2 -o hello_inst hello.c
    readelf -d hello_inst | grep -q "$prefix/lib" || { echo "FAIL: no rpath to $prefix/lib"; fail=1; }
    out=$(env -u LD_LIBRARY_PATH "$prefix/bin/mpirun" -n 3 ./hello_inst 2>&1)
    [ "$(echo "$out" | grep -c 'size 3 Ferry')" = 3 ] || { echo "FAIL: installed run: $out"; fail=1; }
    ldd hello_inst | grep -q "$prefix/lib/libmpi.so.12" || { echo "FAIL: hello_inst does not use the installed lib: $(ldd hello_inst)"; fail=1; }
    grep -q "^prefix=$prefix\$" "$prefix/lib/pkgconfig/mpi.pc" || { echo "FAIL: mpi.pc prefix: $(cat "$prefix/lib/pkgconfig/mpi.pc")"; fail=1; }
    if command -v pkg-config >/dev/null; then
        pc=$(PKG_CONFIG_PATH=$prefix/lib/pkgconfig pkg-config --cflags --libs mpi)
        case "$pc" in *"-I$prefix/include"*"-lmpi"*) ;; *) echo "FAIL: pkg-config: $pc"; fail=1 ;; esac
    fi
fi
[ $fail = 0 ] && echo "wrappers: all checks passed"
exit $fail
