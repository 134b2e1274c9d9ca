/* `ferry run --debug`'s pieces (tools/ferry/ferry_debug.c) on canned input: the ranks'
 * sanitizer settings merged with the user's (their keys kept, log_path ours and quoted,
 * SIGTERM held), and the report of a directory of sanitizer logs in the shapes gcc 12's
 * runtimes write them: a global, heap and stack overflow, a use after free, UBSan errors,
 * the same error on two ranks told once, a report cut short, a rank with two files, a file
 * with only a warning (no message), a null read (SEGV), another runtime's error, and file
 * names that are not reports. The real runtimes are tests/ferry/debug_reports.sh's. */
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ferry_debug.h"
#include "unit.h"

#define CHECK_HAS(hay, needle)                                                                     \
    do {                                                                                           \
        if (strstr((hay), (needle)) == NULL) {                                                     \
            fprintf(stderr, "  %s:%d: no '%s' in:\n%s\n", __FILE__, __LINE__, (needle), (hay));    \
            return 1;                                                                              \
        }                                                                                          \
    } while (0)

#define CHECK_HASNT(hay, needle)                                                                   \
    do {                                                                                           \
        if (strstr((hay), (needle)) != NULL) {                                                     \
            fprintf(stderr, "  %s:%d: '%s' unexpected in:\n%s\n", __FILE__, __LINE__, (needle),    \
                    (hay));                                                                        \
            return 1;                                                                              \
        }                                                                                          \
    } while (0)

static char tmp[256];

static void put(const char *name, const char *text)
{
    char p[512];
    snprintf(p, sizeof p, "%s/%s", tmp, name);
    FILE *f = fopen(p, "w");
    if (f != NULL) {
        fputs(text, f);
        fclose(f);
    }
}

/* The report of `tmp` into `out`; returns the count. */
static int report(char *out, size_t n)
{
    FILE *f = tmpfile();
    if (f == NULL)
        return -1;
    int r = fy_debug_report(tmp, f, true);
    size_t got = 0;
    rewind(f);
    got = fread(out, 1, n - 1, f);
    out[got] = '\0';
    fclose(f);
    return r;
}

/* Empties the reports' directory between cases. */
static void clear_dir(void)
{
    DIR *d = opendir(tmp);
    if (d == NULL)
        return;
    struct dirent *de;
    char p[600];
    while ((de = readdir(d)) != NULL) {
        if (de->d_name[0] == '.')
            continue;
        snprintf(p, sizeof p, "%s/%s", tmp, de->d_name);
        unlink(p);
    }
    closedir(d);
}

static int test_env_merge(void)
{
    sigset_t old, now;
    sigprocmask(SIG_SETMASK, NULL, &old);
    setenv("ASAN_OPTIONS", "halt_on_error=0:detect_leaks=1,stack_trace_format='#%n symbolize=0'",
           1);
    unsetenv("UBSAN_OPTIONS");
    char odd[300];
    snprintf(odd, sizeof odd, "%s/a dir:x", tmp);
    fy_debug_rank_env(odd, 5);
    const char *a = getenv("ASAN_OPTIONS"), *u = getenv("UBSAN_OPTIONS");
    CHECK(a != NULL && u != NULL);
    /* The user's keys stay theirs... */
    CHECK_HAS(a, "halt_on_error=0");
    CHECK_HASNT(a, "halt_on_error=1");
    CHECK_HAS(a, "detect_leaks=1");
    CHECK_HASNT(a, "detect_leaks=0");
    CHECK_HAS(a, "stack_trace_format='#%n symbolize=0'");
    CHECK_HASNT(a, "stack_trace_format='    #");
    /* ...a word inside their quoted value is no key of theirs... */
    CHECK_HAS(a, ":symbolize=1");
    /* ...ours are added, the log path last and quoted (':' and ' ' separate options). */
    CHECK_HAS(a, "detect_stack_use_after_return=1");
    char lp[400];
    snprintf(lp, sizeof lp, "log_path=\"%s/rank.5\"", odd);
    CHECK(strlen(a) > strlen(lp) && strcmp(a + strlen(a) - strlen(lp), lp) == 0);
    CHECK_HAS(u, "print_stacktrace=1");
    CHECK_HAS(u, "halt_on_error=1");
    CHECK_HAS(u, lp);
    CHECK(strncmp(u, "print_stacktrace=1", 18) == 0); /* no leading separator */
    sigprocmask(SIG_SETMASK, NULL, &now);
    CHECK(sigismember(&now, SIGTERM));
    sigprocmask(SIG_SETMASK, &old, NULL);
    CHECK(rmdir(odd) == 0); /* made by fy_debug_rank_env */
    /* A user's log_path is overridden: the report needs the files. */
    setenv("UBSAN_OPTIONS", "log_path=/elsewhere", 1);
    fy_debug_rank_env(tmp, 0);
    u = getenv("UBSAN_OPTIONS");
    CHECK(strncmp(u, "log_path=/elsewhere:", 20) == 0);
    char want[400];
    snprintf(want, sizeof want, "log_path=\"%s/rank.0\"", tmp);
    CHECK(strcmp(u + strlen(u) - strlen(want), want) == 0);
    sigprocmask(SIG_SETMASK, &old, NULL);
    unsetenv("ASAN_OPTIONS");
    unsetenv("UBSAN_OPTIONS");
    return 0;
}

static char src[300];

static int test_asan_kinds(void)
{
    char r[2048], out[8192];
    /* rank 0: a global overflow inside a helper. */
    snprintf(r, sizeof r,
             "=================================================================\n"
             "==100==ERROR: AddressSanitizer: global-buffer-overflow on address 0x5580 at pc "
             "0x55 bp 0x7f sp 0x7f\n"
             "WRITE of size 4 at 0x5580 thread T0\n"
             "    #0 0x55 in put_one %s:8 (/x/prog+0x12d1)\n"
             "    #1 0x55 in main %s:14 (/x/prog+0x14c7)\n"
             "    #2 0x7f in __libc_start_call_main ../sysdeps/nptl/libc_start_call_main.h:58 "
             "(/lib/x86_64-linux-gnu/libc.so.6+0x27249)\n\n",
             src, src);
    char rep[4096];
    snprintf(rep, sizeof rep,
             "%s0x5580 is located 0 bytes to the right of global variable 'table' defined in "
             "'prog.c:3:5' (0x5560) of size 20\n"
             "SUMMARY: AddressSanitizer: global-buffer-overflow %s:8 in put_one\n",
             r, src);
    put("rank.0.100", rep);
    /* rank 1: a heap block overflowed from below (newer runtimes' wording), by memcpy inside
     * MPI_Recv; allocated by MPI_Alloc_mem. */
    snprintf(rep, sizeof rep,
             "==101==ERROR: AddressSanitizer: heap-buffer-overflow on address 0x6 at pc 0x5\n"
             "WRITE of size 64 at 0x6 thread T0\n"
             "    #0 0x55 in __interceptor_memcpy <null> (/x/prog+0x2c920)\n"
             "    #1 0x7f in land /src/p2p/p2p_recv.c:29 (/x/lib/libmpi.so.12+0x5149b)\n"
             "    #2 0x7f in PMPI_Recv /src/api/recv.c:106 (/x/lib/libmpi.so.12+0x75a35)\n"
             "    #3 0x55 in main %s:20 (/x/prog+0xe51be)\n\n"
             "0x6 is located 8 bytes before 16-byte region [0x6,0x6)\n"
             "allocated by thread T0 here:\n"
             "    #0 0x55 in malloc <null> (/x/prog+0x9d24f)\n"
             "    #1 0x7f in PMPI_Alloc_mem /src/api/mem.c:10 (/x/lib/libmpi.so.12+0x1)\n"
             "    #2 0x55 in main %s:11 (/x/prog+0xe5fd5)\n\n"
             "SUMMARY: AddressSanitizer: heap-buffer-overflow\n",
             src, src);
    put("rank.1.101", rep);
    /* rank 2: a stack array overflowed (the runtime's own frame format, no modules). */
    snprintf(rep, sizeof rep,
             "==102==ERROR: AddressSanitizer: stack-buffer-overflow on address 0x7 at pc 0x5\n"
             "READ of size 4 at 0x7 thread T0\n"
             "    #0 0x55 in main %s:14\n"
             "    #1 0x7f in __libc_start_call_main ../sysdeps/nptl/libc_start_call_main.h:58\n\n"
             "Address 0x7 is located in stack of thread T0 at offset 92 in frame\n"
             "    #0 0x55 in main %s:6\n\n"
             "  This frame has 2 object(s):\n"
             "    [32, 36) 'n' (line 7)\n"
             "    [48, 88) 'vec' (line 9) <== Memory access at offset 92 overflows this "
             "variable\n"
             "SUMMARY: AddressSanitizer: stack-buffer-overflow %s:14 in main\n",
             src, src, src);
    put("rank.2.102", rep);
    /* rank 3: a use after free. */
    snprintf(rep, sizeof rep,
             "==103==ERROR: AddressSanitizer: heap-use-after-free on address 0x6 at pc 0x5\n"
             "READ of size 8 at 0x6 thread T0\n"
             "    #0 0x55 in main %s:20 (/x/prog+0x1)\n\n"
             "0x6 is located 0 bytes inside of 16-byte region [0x6,0x6)\n"
             "freed by thread T0 here:\n"
             "    #0 0x55 in __interceptor_free.part.0 <null> (/x/prog+0x9bf18)\n"
             "    #1 0x55 in main %s:14 (/x/prog+0x2)\n\n"
             "previously allocated by thread T0 here:\n"
             "    #0 0x55 in calloc <null> (/x/prog+0x9d24f)\n"
             "    #1 0x55 in main %s:11 (/x/prog+0x3)\n\n",
             src, src, src);
    put("rank.3.103", rep);
    /* rank 4: a null read, SEGV. */
    snprintf(rep, sizeof rep,
             "AddressSanitizer:DEADLYSIGNAL\n"
             "=================================================================\n"
             "==104==ERROR: AddressSanitizer: SEGV on unknown address 0x000000000008 (pc 0x5 "
             "bp 0x7 sp 0x7 T0)\n"
             "==104==The signal is caused by a READ memory access.\n"
             "==104==Hint: address points to the zero page.\n"
             "    #0 0x55 in main %s:20 (/x/prog+0x1)\n",
             src);
    put("rank.4.104", rep);

    int n = report(out, sizeof out);
    CHECK_EQ(n, 5);
    char want[2048];
    snprintf(want, sizeof want,
             "rank 0: %s:8: write of 4 bytes just past the end of global 'table' (20 bytes, "
             "defined at line 3)\n",
             src);
    CHECK_HAS(out, want);
    /* The snippet of line 8 (the caret only when the line spells the name). */
    CHECK_HAS(out, "      8 |     p[i] = v;\n");
    /* In a function other than main: which, and from where. */
    CHECK_HAS(out, "        = in put_one(), called from main() at line 14\n");
    snprintf(want, sizeof want,
             "rank 1: %s:20: write of 64 bytes in MPI_Recv 8 bytes before the start of 'buf' (16 "
             "bytes from MPI_Alloc_mem at line 11)\n",
             src);
    CHECK_HAS(out, want);
    snprintf(want, sizeof want,
             "rank 2: %s:14: read of 4 bytes 4 bytes past the end of 'vec' (40 bytes on the "
             "stack of main, declared at line 9)\n",
             src);
    CHECK_HAS(out, want);
    CHECK_HAS(out, "     14 |     x = vec[n] + buf[0];\n"
                   "        |         ^\n");
    snprintf(want, sizeof want,
             "rank 3: %s:20: read of 8 bytes of 'buf' after it was freed (freed at line 14, "
             "allocated at line 11)\n",
             src);
    CHECK_HAS(out, want);
    snprintf(want, sizeof want, "rank 4: %s:20: read through a null pointer\n", src);
    CHECK_HAS(out, want);
    CHECK_HAS(out, "(full sanitizer reports: ");
    CHECK_HAS(out, "/rank.*)\n"); /* five ranks: the pattern, not every name */
    return 0;
}

static int test_ubsan_same_cut_warning(void)
{
    char rep[4096], out[8192];
    /* ranks 2 and 3: the same index error; rank 3's path relative as compiled. */
    snprintf(rep, sizeof rep,
             "%s:14:12: runtime error: index 10 out of bounds for type 'int [10]'\n"
             "    #0 0x56 in main %s:14 (/x/prog+0x33e5)\n"
             "    #1 0x7f in __libc_start_call_main ../sysdeps/nptl/libc_start_call_main.h:58 "
             "(/lib/x86_64-linux-gnu/libc.so.6+0x27249)\n\n"
             "SUMMARY: UndefinedBehaviorSanitizer: out-of-bounds-index %s:14:12 in \n",
             src, src, src);
    put("rank.2.200", rep);
    snprintf(rep, sizeof rep,
             "prog.c:14:12: runtime error: index 11 out of bounds for type 'int [10]'\n"
             "    #0 0x56 in main %s:14 (/x/prog+0x33e5)\n",
             src);
    put("rank.3.300", rep);
    /* rank 1: two files (a child of the rank's too): the first, by pid, tells. */
    snprintf(rep, sizeof rep,
             "%s:20:11: runtime error: signed integer overflow: 2147483647 + 1 cannot be "
             "represented in type 'int'\n",
             src);
    put("rank.1.150", rep);
    put("rank.1.151", "prog.c:8:1: runtime error: division by zero\n");
    /* rank 4: cut short while writing. */
    put("rank.4.400", "=================================================================\n"
                      "==400==ERROR: AddressSanitizer: heap-use-after-free on address 0x6 at pc "
                      "0x5 bp 0x7 sp 0x7\n"
                      "READ of size 4 at 0x6 thread T0\n");
    /* rank 5: a warning only; rank 6: another runtime's error. */
    put("rank.5.500", "==500==WARNING: ASan is ignoring requested __asan_handle_no_return\n");
    snprintf(rep, sizeof rep,
             "==600==ERROR: LeakSanitizer: detected memory leaks\n\n"
             "Direct leak of 16 byte(s) in 1 object(s) allocated from:\n"
             "    #0 0x55 in malloc <null> (/x/prog+0x9d24f)\n"
             "    #1 0x55 in main %s:11 (/x/prog+0x3)\n",
             src);
    put("rank.6.600", rep);
    /* Not reports. */
    put("rank.x.1", "prog.c:1:1: runtime error: division by zero\n");
    put("rank.7", "prog.c:1:1: runtime error: division by zero\n");
    put("notes.txt", "prog.c:1:1: runtime error: division by zero\n");

    int n = report(out, sizeof out);
    CHECK_EQ(n, 5);
    char want[2048];
    snprintf(want, sizeof want,
             "rank 1: %s:20:11: signed integer overflow: 2147483647 + 1 does not fit in 'int'\n",
             src);
    CHECK_HAS(out, want);
    CHECK_HASNT(out, "division by zero");
    snprintf(want, sizeof want,
             "rank 2: %s:14:12: array index 10 is out of bounds of 'vec' (int [10])\n", src);
    CHECK_HAS(out, want);
    CHECK_HAS(out, "     14 |     x = vec[n] + buf[0];\n"
                   "        |            ^\n");
    snprintf(want, sizeof want, "rank 3: same error at %s:14\n", src);
    CHECK_HAS(out, want);
    CHECK_HAS(out, "rank 4: heap-use-after-free");
    CHECK_HAS(out, "the report stops short");
    CHECK_HASNT(out, "rank 5");
    snprintf(want, sizeof want, "rank 6: %s:11: LeakSanitizer: detected memory leaks\n", src);
    CHECK_HAS(out, want);
    CHECK_HASNT(out, "rank 7");
    return 0;
}

static int test_source_names(void)
{
    char rep[4096], out[8192];
    /* The divisor after the operator's column, the pointer before "->", the freed pointer of
     * a double free. */
    snprintf(rep, sizeof rep, "%s:17:15: runtime error: division by zero\n", src);
    put("rank.0.1", rep);
    snprintf(rep, sizeof rep,
             "%s:18:13: runtime error: member access within null pointer of type 'struct s'\n",
             src);
    put("rank.1.1", rep);
    snprintf(rep, sizeof rep,
             "==3==ERROR: AddressSanitizer: attempting double-free on 0x6 in thread T0:\n"
             "    #0 0x55 in free <null> (/x/prog+0x9bf18)\n"
             "    #1 0x55 in main %s:19 (/x/prog+0x2)\n\n"
             "0x6 is located 0 bytes inside of 16-byte region [0x6,0x6)\n"
             "freed by thread T0 here:\n"
             "    #0 0x55 in free <null> (/x/prog+0x9bf18)\n"
             "    #1 0x55 in main %s:14 (/x/prog+0x2)\n\n"
             "previously allocated by thread T0 here:\n"
             "    #0 0x55 in calloc <null> (/x/prog+0x9d24f)\n"
             "    #1 0x55 in main %s:11 (/x/prog+0x3)\n\n"
             "SUMMARY: AddressSanitizer: double-free\n",
             src, src, src);
    put("rank.2.1", rep);
    /* The caret under a use in the code, not the word in a comment or a string. */
    snprintf(rep, sizeof rep,
             "==4==ERROR: AddressSanitizer: stack-buffer-overflow on address 0x7 at pc 0x5\n"
             "READ of size 4 at 0x7 thread T0\n"
             "    #0 0x55 in main %s:16 (/x/prog+0x1)\n\n"
             "Address 0x7 is located in stack of thread T0 at offset 88 in frame\n"
             "    #0 0x55 in main %s:6 (/x/prog+0x1)\n\n"
             "    [48, 88) 'vec' (line 9) <== Memory access at offset 88 overflows this "
             "variable\n",
             src, src);
    put("rank.3.1", rep);
    int n = report(out, sizeof out);
    CHECK_EQ(n, 4);
    CHECK_HAS(out, "     16 |     puts(\"vec[\"); /* vec[n] */ use(vec); // vec[n]\n"
                   "        | " "                                   ^\n");
    char want[2048];
    snprintf(want, sizeof want, "rank 0: %s:17:15: integer division by zero ('cells->n' is 0)\n",
             src);
    CHECK_HAS(out, want);
    snprintf(want, sizeof want,
             "rank 1: %s:18:13: member access through a null pointer: 'cell' is NULL (struct s "
             "*)\n",
             src);
    CHECK_HAS(out, want);
    snprintf(want, sizeof want,
             "rank 2: %s:19: 'buf' freed twice (freed first at line 14, allocated at line 11)\n",
             src);
    CHECK_HAS(out, want);
    return 0;
}

static int test_empty_and_missing(void)
{
    char out[1024];
    CHECK_EQ(report(out, sizeof out), 0);
    CHECK(out[0] == '\0');
    char keep[256];
    snprintf(keep, sizeof keep, "%s", tmp);
    snprintf(tmp, sizeof tmp, "%.200s/none", keep);
    int n = report(out, sizeof out);
    snprintf(tmp, sizeof tmp, "%s", keep);
    CHECK_EQ(n, 0);
    CHECK_HAS(out, "ferry: cannot read the sanitizer reports in '");
    CHECK_HAS(out, "/none': No such file or directory\n");
    return 0;
}

static const unit_case_t cases[] = {
    {"env_merge", test_env_merge},
    {"asan_kinds", test_asan_kinds},
    {"ubsan_same_cut_warning", test_ubsan_same_cut_warning},
    {"source_names", test_source_names},
    {"empty_and_missing", test_empty_and_missing},
};

int main(void)
{
    char sdir[64] = "/tmp/fy_test_debug_src.XXXXXX";
    snprintf(tmp, sizeof tmp, "/tmp/fy_test_debug.XXXXXX");
    if (mkdtemp(tmp) == NULL || mkdtemp(sdir) == NULL) {
        perror("mkdtemp");
        rmdir(tmp);
        return 1;
    }
    /* The program the canned reports point at (line numbers matter). */
    snprintf(src, sizeof src, "%s/prog.c", sdir);
    FILE *f = fopen(src, "w");
    if (f == NULL)
        return 1;
    for (int i = 1; i <= 20; i++) {
        switch (i) {
        case 8: fputs("    p[i] = v;\n", f); break;
        case 11: fputs("    int *buf = calloc(4, sizeof *buf);\n", f); break;
        case 14: fputs("    x = vec[n] + buf[0];\n", f); break;
        case 16: fputs("    puts(\"vec[\"); /* vec[n] */ use(vec); // vec[n]\n", f); break;
        case 17: fputs("    k = total / cells->n;\n", f); break;
        case 18: fputs("    y = cell->v;\n", f); break;
        case 19: fputs("    free(buf);\n", f); break;
        case 20: fputs("    y = buf[1] + *q;\n", f); break;
        default: fprintf(f, "    /* line %d */\n", i); break;
        }
    }
    fclose(f);
    int rc = unit_run_with(cases, UNIT_COUNT(cases), clear_dir);
    clear_dir();
    rmdir(tmp);
    unlink(src);
    rmdir(sdir);
    return rc;
}
