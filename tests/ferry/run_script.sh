#!/usr/bin/env bash
# timeout: 180
# C programs as scripts (ferry run): a file whose first line is "#!/usr/bin/env -S ferry run
# -n 3" runs when executed, with its own arguments (also ones that look like flags or sources);
# the compiler does not see the #! line, and its messages name the script and its true line
# numbers; a script without the .c extension (or with another) works too; examples/cpi_script.c runs as shipped;
# `ferry run -` reads the program from standard input.
. "$FY_SRC/tests/ferry/run_common.inc"

cat >args.c <<'C'
#!/usr/bin/env -S ferry run -n 3
#include <mpi.h>
#include <stdio.h>
int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    printf("%d:%d", rank, argc - 1);
    for (int i = 1; i < argc; i++)
        printf(" [%s]", argv[i]);
    printf(" %s:%d\n", __FILE__, __LINE__);
    MPI_Finalize();
    return 0;
}
C
chmod +x args.c
timeout -k 5 60 ./args.c one -O2 two.c 'with space' -- >out 2>err
expect_eq "script status" 0 "$?"
expect_eq "script output" "0:5 [one] [-O2] [two.c] [with space] [--] ./args.c:12
1:5 [one] [-O2] [two.c] [with space] [--] ./args.c:12
2:5 [one] [-O2] [two.c] [with space] [--] ./args.c:12" "$(sort out)"
expect_eq "script stderr" "" "$(cat err)"

# The same through ferry run, with other mpiexec options in front.
fr run -n 2 args.c a
expect_eq "script through ferry run" "0:1 [a] args.c:12
1:1 [a] args.c:12" "$(sort out)"

# Without the extension.
cp args.c tool
timeout -k 5 60 ./tool x >out 2>err
expect_eq "extensionless script status" 0 "$?"
expect_eq "extensionless script output" "0:1 [x] ./tool:12" "$(sort out | head -n 1)"
# Another extension is not C++ (nor anything the compiler would guess from it): C.
cat >tool.sh <<'C'
#!/usr/bin/env -S ferry run -n 1
#include <stdio.h>
int main(int argc, char **argv)
{
    int class = argc; /* not C++ */
    printf("C %d %s\n", class, argv[1]);
    return 0;
}
C
chmod +x tool.sh
timeout -k 5 60 ./tool.sh y >out 2>err
expect_eq "script.sh status" 0 "$?"
expect_eq "script.sh output" "C 2 y" "$(cat out)"

# A compile error in a script: the script's name and line (5: the #! line counts).
cat >bad.c <<'C'
#!/usr/bin/env -S ferry run -n 2
#include <mpi.h>
int main(void)
{
    return undeclared_thing;
}
C
chmod +x bad.c
timeout -k 5 60 ./bad.c >out 2>err
expect_eq "script compile error status" 2 "$?"
expect_grep "script error names file and line" "^\./bad\.c:5:[0-9]+: error: .undeclared_thing. undeclared" err
expect_grep "script error shows the source line" "return undeclared_thing;" err

# The example as shipped.
cp "$FY_SRC/examples/cpi_script.c" .
timeout -k 5 60 ./cpi_script.c 1000 >out 2>err
expect_eq "cpi_script status" 0 "$?"
expect_grep "cpi_script output" '^pi is approximately 3\.14159[0-9]*, error .* \(1000 intervals, 4 ranks\)$' out

# From standard input.
printf '#include <mpi.h>\n#include <stdio.h>\nint main(int c, char **v)\n{\n    int r;\n    MPI_Init(&c, &v);\n    MPI_Comm_rank(MPI_COMM_WORLD, &r);\n    printf("stdin %%d %%s %%s\\n", r, v[1], __FILE__);\n    MPI_Finalize();\n    return 0;\n}\n' >prog.txt
timeout -k 5 60 ferry run -n 2 - arg <prog.txt >out 2>err
expect_eq "stdin status" 0 "$?"
expect_eq "stdin output" "stdin 0 arg <stdin>
stdin 1 arg <stdin>" "$(sort out)"
printf 'int main(void) { return x; }\n' | timeout -k 5 60 ferry run - >out 2>err
expect_eq "stdin compile error status" 2 "$?"
expect_grep "stdin compile error" "^<stdin>:1:[0-9]+: error" err
expect_grep "stdin compile error summary" "^ferry run: compile error in <stdin> \(no ranks started\)$" err
finish
