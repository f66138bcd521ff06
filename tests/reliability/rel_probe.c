/* What another user can read of a job: run as that user by ucx_perms.sh.  Each argument is one
 * attempt; for each it prints "READ <what>" when it could read something, else "DENIED <what>:
 * <reason>", and exits 1 when any attempt read something.
 *   file:PATH            open PATH and read a byte (/dev/shm entries, /proc/PID/fd/N, ...)
 *   shm:ID               shmat the System V segment ID read-only and read a byte
 *   mem:PID:ADDR         read 16 bytes at ADDR of process PID through /proc/PID/mem */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/shm.h>
#include <unistd.h>

static int attempt(const char *arg) {
    char buf[16];
    if (!strncmp(arg, "file:", 5)) {
        int fd = open(arg + 5, O_RDONLY);
        if (fd < 0) return printf("DENIED %s: %s\n", arg, strerror(errno)), 0;
        ssize_t n = read(fd, buf, 1);
        int e = errno;
        close(fd);
        if (n < 0) return printf("DENIED %s: read: %s\n", arg, strerror(e)), 0;
        return printf("READ %s (%zd bytes)\n", arg, n), 1;
    }
    if (!strncmp(arg, "shm:", 4)) {
        void *p = shmat(atoi(arg + 4), NULL, SHM_RDONLY);
        if (p == (void *)-1) return printf("DENIED %s: %s\n", arg, strerror(errno)), 0;
        volatile char c = *(volatile char *)p;
        (void)c;
        shmdt(p);
        return printf("READ %s\n", arg), 1;
    }
    if (!strncmp(arg, "mem:", 4)) {
        char path[64];
        unsigned long addr = 0;
        int pid = 0;
        if (sscanf(arg + 4, "%d:%lx", &pid, &addr) != 2) return printf("DENIED %s: malformed\n", arg), 0;
        snprintf(path, sizeof path, "/proc/%d/mem", pid);
        int fd = open(path, O_RDONLY);
        if (fd < 0) return printf("DENIED %s: %s\n", arg, strerror(errno)), 0;
        ssize_t n = pread(fd, buf, sizeof buf, (off_t)addr);
        int e = errno;
        close(fd);
        if (n <= 0) return printf("DENIED %s: pread: %s\n", arg, n < 0 ? strerror(e) : "nothing"), 0;
        return printf("READ %s (%zd bytes)\n", arg, n), 1;
    }
    printf("DENIED %s: unknown kind\n", arg);
    return 0;
}

int main(int argc, char **argv) {
    int read_any = 0;
    for (int i = 1; i < argc; ++i) read_any |= attempt(argv[i]);
    return read_any;
}
