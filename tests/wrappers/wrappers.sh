#!/bin/bash
# timeout: 180
# mpicc/mpicxx: the MPICH and Open MPI spellings of the query options, FERRY_CC, compile-only
# mode, and an installed tree (make install) whose programs find libmpi without
# LD_LIBRARY_PATH, with pkg-config metadata. No arguments: a usage line, not a link error.
# An install by `make install PREFIX=...` into a prefix with a space works, and its mpicc,
# mpiexec, -show output and pkg-config flags build and run a program.
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
# No arguments: one usage line on stderr, status 1, the compiler never run (it used to be, and
# failed to link a program without main).
for w in mpicc mpicxx; do
    rm -f a.out
    "$B/bin/$w" >w.out 2>w.err
    rc=$?
    [ $rc = 1 ] || { echo "FAIL: $w without arguments: status $rc"; fail=1; }
    grep -q "^usage: $w " w.err || { echo "FAIL: $w without arguments: $(cat w.err)"; fail=1; }
    [ "$(wc -l <w.err)" = 1 ] || { echo "FAIL: $w without arguments printed more: $(cat w.err)"; fail=1; }
    [ -s w.out ] && { echo "FAIL: $w without arguments wrote to stdout"; fail=1; }
    [ -e a.out ] && { echo "FAIL: $w without arguments ran the compiler"; fail=1; }
    "$B/bin/$w" -v >w.out 2>&1 || { echo "FAIL: $w -v: $(cat w.out)"; fail=1; }
    grep -q "^$w for Ferry" w.out || { echo "FAIL: $w -v does not name Ferry: $(cat w.out)"; fail=1; }
    grep -q "undefined reference" w.out && { echo "FAIL: $w -v tried to link"; fail=1; }
    "$B/bin/$w" -help | grep -q -- "-show" || { echo "FAIL: $w -help"; fail=1; }
done

# A prefix with a space, installed the way the README says (the Makefile's rule; -o all: the
# build is the one under test, not rebuilt), and sources and outputs in such directories too.
sp="$PWD/with space/ferry"
if ! out=$(make -s -C "$FY_SRC" -o all install BUILD="$B" PREFIX="$sp" 2>&1); then
    echo "FAIL: make install PREFIX='$sp': $out"
    fail=1
else
    mkdir -p "src dir" "out dir"
    cp hello.c "src dir/hello world.c"
    check "mpicc from a prefix with a space" "$sp/bin/mpicc" -O2 -o "out dir/hello" "src dir/hello world.c"
    check "mpicxx from a prefix with a space" "$sp/bin/mpicxx" -O2 -o "out dir/hellocxx" hello.cpp
    readelf -d "out dir/hello" | grep -qF "[$sp/lib]" || { echo "FAIL: rpath is not $sp/lib: $(readelf -d "out dir/hello" | grep -i path)"; fail=1; }
    for exe in "out dir/hello" "out dir/hellocxx"; do
        out=$(env -u LD_LIBRARY_PATH "$sp/bin/mpiexec" -n 2 "./$exe" 2>&1)
        [ "$(echo "$out" | grep -c 'size 2 Ferry')" = 2 ] || { echo "FAIL: $exe from a prefix with a space: $out"; fail=1; }
    done
    ldd "out dir/hello" | grep -qF "$sp/lib/libmpi.so.12" || { echo "FAIL: not the installed lib: $(ldd "out dir/hello")"; fail=1; }
    # -show prints a command a shell can run as it stands.
    cmd=$("$sp/bin/mpicc" -show -o "out dir/hello2" "src dir/hello world.c")
    check "running mpicc -show's command" sh -c "$cmd"
    out=$(env -u LD_LIBRARY_PATH "$sp/bin/mpirun" -n 1 "./out dir/hello2" 2>&1)
    case "$out" in "size 1 Ferry"*) ;; *) echo "FAIL: program built by -show's command: $out"; fail=1 ;; esac
    ci=$("$sp/bin/mpicc" -compile_info)
    case "$ci" in *" '-I$sp/include'"*) ;; *) echo "FAIL: -compile_info in a prefix with a space: $ci"; fail=1 ;; esac
    if command -v pkg-config >/dev/null; then
        pc=$(PKG_CONFIG_PATH="$sp/lib/pkgconfig" pkg-config --cflags --libs mpi)
        check "building with pkg-config's flags" sh -c "cc -o 'out dir/hello3' 'src dir/hello world.c' $pc"
        # Not run: a sanitizer build's library needs the wrapper's extra flags in the program.
        readelf -d "out dir/hello3" | grep -qF "[$sp/lib]" || { echo "FAIL: pkg-config's rpath: $(readelf -d "out dir/hello3" | grep -i path)"; fail=1; }
        expect=$sp
        got=$(PKG_CONFIG_PATH="$sp/lib/pkgconfig" pkg-config --variable=prefix mpi)
        [ "$got" = "$expect" ] || { echo "FAIL: pkg-config prefix: $got"; fail=1; }
    fi
fi

[ $fail = 0 ] && echo "wrappers: all checks passed"
exit $fail
