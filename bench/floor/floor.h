/* Shared by the floor kernels: reading grind's dump, timing, comparing. */
#ifndef FLOOR_H
#define FLOOR_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void die(const char *msg, const char *path)
{
    fprintf(stderr, "%s: %s\n", path, msg);
    exit(1);
}

static void *xmalloc(size_t n)
{
    /* 64-byte aligned, so that 512-bit vectors may live anywhere in it. */
    void *p = NULL;
    if (posix_memalign(&p, 64, n ? n : 64) != 0)
        die("out of memory", "malloc");
    memset(p, 0, n);
    return p;
}

/* A whole file in memory, read through in order by take(). */
typedef struct {
    const char *path;
    unsigned char *buf;
    size_t len, at;
} dump;

static dump read_dump(const char *path)
{
    dump d = {path, NULL, 0, 0};
    FILE *f = fopen(path, "rb");
    if (!f)
        die("cannot open (run.sh writes it with GRIND_FLOOR_OUT)", path);
    fseek(f, 0, SEEK_END);
    d.len = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    d.buf = xmalloc(d.len);
    if (fread(d.buf, 1, d.len, f) != d.len)
        die("short read", path);
    fclose(f);
    return d;
}

static void *take(dump *d, size_t bytes)
{
    if (d->at + bytes > d->len)
        die("truncated: not the layout the Go test writes", d->path);
    void *p = xmalloc(bytes);
    memcpy(p, d->buf + d->at, bytes);
    d->at += bytes;
    return p;
}

static void done(dump *d)
{
    if (d->at != d->len)
        die("trailing bytes: not the layout the Go test writes", d->path);
    free(d->buf);
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

/* cpu is the process's user + system seconds, all threads. */
static double cpu(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *xs, int n)
{
    qsort(xs, n, sizeof *xs, cmp_double);
    return n % 2 ? xs[n / 2] : (xs[n / 2 - 1] + xs[n / 2]) / 2;
}

/* The largest relative difference of got from want over n entries, each
   relative to max(|want|, floor) so that tiny counts do not dominate. */
static double max_rel(const double *got, const double *want, size_t n, double floor)
{
    double worst = 0;
    for (size_t i = 0; i < n; i++) {
        double d = fabs(got[i] - want[i]) / fmax(fabs(want[i]), floor);
        if (!(d <= worst))
            worst = isnan(d) ? INFINITY : d;
    }
    return worst;
}

/* A small deterministic generator for the enumeration checks' models. */
static uint64_t rng_state = 88172645463325252ull;
static double uniform(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (rng_state >> 11) * 0x1p-53;
}

#endif
