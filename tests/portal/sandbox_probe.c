/* What a hostile job tries, one mode per run (tests/portal/sandbox_*.sh): rank 0 does it,
 * the other ranks wait in a barrier. Every outcome is printed as one line the tests read.
 *   fork                fork without end (a fork bomb)
 *   hog                 allocate and touch memory without end
 *   loop                compute forever
 *   write BYTES         write a file of BYTES bytes (the file-size limit)
 *   open PATH...        try to read each PATH: "open PATH: ok|<error>"
 *   list PATH           try to list a directory: "list PATH: N entries|<error>"
 *   connect IP PORT...  try TCP connections: "connect IP PORT: ok|<error>" */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <mpi.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static void try_open(const char *path)
{
    FILE *f = fopen(path, "r");
    printf("open %s: %s\n", path, f ? "ok" : strerror(errno));
    if (f)
        fclose(f);
}

static void try_list(const char *path)
{
    DIR *d = opendir(path);
    if (!d) {
        printf("list %s: %s\n", path, strerror(errno));
        return;
    }
    int n = 0;
    while (readdir(d))
        n++;
    closedir(d);
    printf("list %s: %d entries\n", path, n);
}

static void try_connect(const char *ip, int port)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(port)};
    inet_pton(AF_INET, ip, &a.sin_addr);
    int rc = fd < 0 ? -1 : connect(fd, (struct sockaddr *)&a, sizeof a);
    printf("connect %s %d: %s\n", ip, port, rc == 0 ? "ok" : strerror(errno));
    if (fd >= 0)
        close(fd);
}

int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    const char *mode = argc > 1 ? argv[1] : "";
    if (rank == 0) {
        printf("probe %s\n", mode);
        fflush(stdout);
        if (!strcmp(mode, "fork")) {
            for (;;)
                fork();
        } else if (!strcmp(mode, "hog")) {
            for (;;) {
                char *p = malloc(1 << 20);
                if (p)
                    memset(p, 1, 1 << 20);
            }
        } else if (!strcmp(mode, "loop")) {
            volatile unsigned long x = 0;
            for (;;)
                x++;
        } else if (!strcmp(mode, "write") && argc > 2) {
            long n = atol(argv[2]);
            FILE *f = fopen("big.out", "w");
            char buf[4096] = {0};
            for (long i = 0; f && i < n; i += sizeof buf)
                fwrite(buf, 1, sizeof buf, f);
            if (f)
                fclose(f);
            printf("wrote\n");
        } else if (!strcmp(mode, "open")) {
            for (int i = 2; i < argc; i++)
                try_open(argv[i]);
        } else if (!strcmp(mode, "list")) {
            for (int i = 2; i < argc; i++)
                try_list(argv[i]);
        } else if (!strcmp(mode, "connect")) {
            for (int i = 2; i + 1 < argc; i += 2)
                try_connect(argv[i], atoi(argv[i + 1]));
        }
        fflush(stdout);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
