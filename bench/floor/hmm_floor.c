/* The HMM forward–backward floor: one E-step of a bitag HMM (K states,
   start and stop) with every expected count — transitions, start, stop,
   emissions — and the log-likelihood, as grind's stages/hmm computes it:
   the forward vectors rescaled to sum to 1 at each position, the backward
   pass fused with the transition counts, which are accumulated divided by
   their weight and multiplied by it once at the end.

   Two kernels:
     scalar  plain loops, one state at a time (what -O2 makes of them)
     vector  the K states padded to a multiple of 8 and held in 512-bit
             vectors (GCC vector extensions): every axpy and every
             matrix–vector product a run of FMAs with the accumulators in
             registers; the limit on this machine

   usage: hmm_floor check                 enumeration checks, both kernels
          hmm_floor compare FILE          against grind's E-step on FILE
          hmm_floor bench FILE ITERS      median ms of ITERS E-steps, each
                                          kernel, 1 and 2 threads
   FILE is written by stages/hmm's TestWriteFloorInput (see run.sh). */
#include "floor.h"
#include <pthread.h>

typedef struct {
    int K, V;
    double *trans; /* (K+1)·(K+1): row = previous state or start (K), entry K = stop */
    double *emit;  /* V·K, word-major */
} model;

typedef struct {
    int S;
    int *len;
    long *off; /* first token of each sentence */
    int *words;
} corpus;

typedef struct {
    double *trans, *emit, loglik;
    int zero; /* sentences of weight 0, left out */
} counts;

/* Log-likelihood kept as a running product of scales, its log taken only
   when it nears the edge of the doubles: one log per ~100 tokens, not one
   a token. */
typedef struct {
    double prod, log;
} logacc;

static inline void logacc_mul(logacc *l, double s)
{
    l->prod *= s;
    if (l->prod < 0x1p-900 || l->prod > 0x1p900) {
        l->log += log(l->prod);
        l->prod = 1;
    }
}

static inline double logacc_value(logacc l) { return l.log + log(l.prod); }

/* ---------------------------------------------------------------- scalar */

typedef struct {
    double *alpha, *inv, *beta, *pbeta, *u;
    double *X; /* (K+1)·(K+1) transition sums over their weight */
    double *E; /* V·K emission counts */
} scalar_ws;

/* scalar_sentence adds one sentence's counts to ws and returns its log Z
   (−Inf, no counts, when every tagging has weight 0). */
static double scalar_sentence(const model *m, const int *w, int n, scalar_ws *ws)
{
    const int k = m->K, k1 = m->K + 1;
    const double *A = m->trans;
    double *alpha = ws->alpha, *inv = ws->inv;
    logacc lz = {1, 0};
    const double *e = m->emit + (long)w[0] * k, *start = A + (long)k * k1;
    double s = 0;
    for (int t = 0; t < k; t++) {
        alpha[t] = start[t] * e[t];
        s += alpha[t];
    }
    for (int i = 0;; i++) {
        double *cur = alpha + (long)i * k;
        if (!(s > 0) || isinf(s))
            return -INFINITY;
        inv[i] = 1 / s;
        for (int t = 0; t < k; t++)
            cur[t] *= inv[i];
        logacc_mul(&lz, s);
        if (i == n - 1)
            break;
        double *next = cur + k;
        memset(next, 0, k * sizeof *next);
        for (int q = 0; q < k; q++) {
            const double *row = A + (long)q * k1;
            for (int t = 0; t < k; t++)
                next[t] += cur[q] * row[t];
        }
        e = m->emit + (long)w[i + 1] * k;
        s = 0;
        for (int t = 0; t < k; t++) {
            next[t] *= e[t];
            s += next[t];
        }
    }
    const double *last = alpha + (long)(n - 1) * k;
    double stop = 0;
    for (int q = 0; q < k; q++)
        stop += last[q] * A[(long)q * k1 + k];
    if (!(stop > 0))
        return -INFINITY;
    logacc_mul(&lz, stop);

    double *beta = ws->beta, *pbeta = ws->pbeta, *u = ws->u, *X = ws->X;
    for (int q = 0; q < k; q++) {
        beta[q] = A[(long)q * k1 + k] / stop;
        X[(long)q * k1 + k] += last[q] / stop;
    }
    for (int i = n - 1; i >= 0; i--) {
        const double *a = alpha + (long)i * k;
        double *erow = ws->E + (long)w[i] * k;
        e = m->emit + (long)w[i] * k;
        for (int t = 0; t < k; t++) {
            erow[t] += a[t] * beta[t];
            u[t] = e[t] * beta[t] * inv[i];
        }
        if (i == 0) {
            for (int t = 0; t < k; t++)
                X[(long)k * k1 + t] += u[t];
            break;
        }
        const double *prev = a - k;
        for (int q = 0; q < k; q++) {
            const double *row = A + (long)q * k1;
            double *xrow = X + (long)q * k1, dot = 0;
            for (int t = 0; t < k; t++) {
                dot += row[t] * u[t];
                xrow[t] += prev[q] * u[t];
            }
            pbeta[q] = dot;
        }
        double *tmp = beta;
        beta = pbeta;
        pbeta = tmp;
    }
    return logacc_value(lz);
}

/* ---------------------------------------------------------------- vector */

typedef double v8 __attribute__((vector_size(64)));
enum { MAXNV = 8 }; /* K ≤ 64 */

/* The model padded to NV vectors a row (the pad entries 0, so padded
   states carry no mass), with the transitions also transposed for the
   backward pass's matrix–vector product. */
typedef struct {
    int K, V, NV;
    v8 *A;     /* (K+1) rows of NV: A[q][t], row K the start */
    v8 *AT;    /* K rows of NV: AT[t][q] = A[q][t], q < K */
    v8 *stopw; /* NV: A[q][stop] */
    v8 *E;     /* V rows of NV */
} vmodel;

typedef struct {
    v8 *alpha; /* max length × NV */
    double *inv;
    v8 *X;     /* (K+1) × NV */
    v8 *xstop; /* NV */
    v8 *E;     /* V × NV */
} vector_ws;

static inline double hsum(v8 x)
{
    double s = 0;
    for (int l = 0; l < 8; l++)
        s += x[l];
    return s;
}

/* vector_sentence is scalar_sentence over vectors; NV is a constant at
   each call (always_inline), so the accumulator arrays live in registers. */
static inline __attribute__((always_inline)) double
vector_sentence(const vmodel *m, const int *w, int n, vector_ws *ws, const int NV)
{
    const int k = m->K;
    v8 *alpha = ws->alpha;
    double *inv = ws->inv;
    logacc lz = {1, 0};
    const v8 *e = m->E + (long)w[0] * NV, *start = m->A + (long)k * NV;
    v8 acc[MAXNV];
    v8 sum = {0};
    for (int v = 0; v < NV; v++) {
        acc[v] = start[v] * e[v];
        sum += acc[v];
    }
    for (int i = 0;; i++) {
        double s = hsum(sum);
        if (!(s > 0) || isinf(s))
            return -INFINITY;
        inv[i] = 1 / s;
        v8 *cur = alpha + (long)i * NV;
        for (int v = 0; v < NV; v++)
            cur[v] = acc[v] * inv[i];
        logacc_mul(&lz, s);
        if (i == n - 1)
            break;
        const double *c = (const double *)cur;
        for (int v = 0; v < NV; v++)
            acc[v] = (v8){0};
        for (int q = 0; q < k; q++) {
            const v8 *row = m->A + (long)q * NV;
            for (int v = 0; v < NV; v++)
                acc[v] += c[q] * row[v];
        }
        e = m->E + (long)w[i + 1] * NV;
        sum = (v8){0};
        for (int v = 0; v < NV; v++) {
            acc[v] *= e[v];
            sum += acc[v];
        }
    }
    const v8 *last = alpha + (long)(n - 1) * NV;
    sum = (v8){0};
    for (int v = 0; v < NV; v++)
        sum += last[v] * m->stopw[v];
    double stop = hsum(sum);
    if (!(stop > 0))
        return -INFINITY;
    logacc_mul(&lz, stop);

    double invstop = 1 / stop;
    v8 beta[MAXNV], u[MAXNV];
    for (int v = 0; v < NV; v++) {
        beta[v] = m->stopw[v] * invstop;
        ws->xstop[v] += last[v] * invstop;
    }
    for (int i = n - 1; i >= 0; i--) {
        const v8 *a = alpha + (long)i * NV;
        v8 *erow = ws->E + (long)w[i] * NV;
        e = m->E + (long)w[i] * NV;
        for (int v = 0; v < NV; v++) {
            erow[v] += a[v] * beta[v];
            u[v] = e[v] * beta[v] * inv[i];
        }
        if (i == 0) {
            for (int v = 0; v < NV; v++)
                ws->X[(long)k * NV + v] += u[v];
            break;
        }
        const double *prev = (const double *)(a - NV), *ut = (const double *)u;
        for (int v = 0; v < NV; v++)
            beta[v] = (v8){0};
        for (int t = 0; t < k; t++) {
            const v8 *col = m->AT + (long)t * NV;
            for (int v = 0; v < NV; v++)
                beta[v] += ut[t] * col[v];
        }
        for (int q = 0; q < k; q++) {
            v8 *xrow = ws->X + (long)q * NV;
            for (int v = 0; v < NV; v++)
                xrow[v] += prev[q] * u[v];
        }
    }
    return logacc_value(lz);
}

static vmodel pad_model(const model *m)
{
    const int k = m->K, k1 = k + 1, NV = (k + 7) / 8;
    vmodel p = {k, m->V, NV, NULL, NULL, NULL, NULL};
    p.A = xmalloc((size_t)k1 * NV * sizeof(v8));
    p.AT = xmalloc((size_t)k * NV * sizeof(v8));
    p.stopw = xmalloc((size_t)NV * sizeof(v8));
    p.E = xmalloc((size_t)m->V * NV * sizeof(v8));
    double *A = (double *)p.A, *AT = (double *)p.AT, *E = (double *)p.E, *st = (double *)p.stopw;
    const int kp = NV * 8;
    for (int q = 0; q < k1; q++)
        for (int t = 0; t < k; t++) {
            A[(long)q * kp + t] = m->trans[(long)q * k1 + t];
            if (q < k)
                AT[(long)t * kp + q] = m->trans[(long)q * k1 + t];
        }
    for (int q = 0; q < k; q++)
        st[q] = m->trans[(long)q * k1 + k];
    for (long x = 0; x < m->V; x++)
        memcpy(E + x * kp, m->emit + x * k, k * sizeof(double));
    return p;
}

static void free_vmodel(vmodel *p)
{
    free(p->A), free(p->AT), free(p->stopw), free(p->E);
}

/* ---------------------------------------------------------------- driver */

enum kernel { SCALAR, VECTOR };
static const char *kernel_name[] = {"C scalar", "C vector"};

typedef struct {
    enum kernel kern;
    const model *m;
    const vmodel *vm;
    const corpus *c;
    int lo, hi, maxlen;
    scalar_ws sw;
    vector_ws vw;
    double loglik;
    int zero;
} job;

static void *run_job(void *arg)
{
    job *j = arg;
    const model *m = j->m;
    const int k = m->K, k1 = k + 1;
    double ll = 0;
    if (j->kern == SCALAR) {
        scalar_ws *ws = &j->sw;
        ws->alpha = xmalloc((size_t)j->maxlen * k * sizeof(double));
        ws->inv = xmalloc((size_t)j->maxlen * sizeof(double));
        ws->beta = xmalloc(k * sizeof(double));
        ws->pbeta = xmalloc(k * sizeof(double));
        ws->u = xmalloc(k * sizeof(double));
        ws->X = xmalloc((size_t)k1 * k1 * sizeof(double));
        ws->E = xmalloc((size_t)m->V * k * sizeof(double));
        for (int s = j->lo; s < j->hi; s++) {
            double lz = scalar_sentence(m, j->c->words + j->c->off[s], j->c->len[s], ws);
            j->zero += isinf(lz);
            ll += lz;
        }
    } else {
        const int NV = j->vm->NV;
        vector_ws *ws = &j->vw;
        ws->alpha = xmalloc((size_t)j->maxlen * NV * sizeof(v8));
        ws->inv = xmalloc((size_t)j->maxlen * sizeof(double));
        ws->X = xmalloc((size_t)k1 * NV * sizeof(v8));
        ws->xstop = xmalloc(NV * sizeof(v8));
        ws->E = xmalloc((size_t)m->V * NV * sizeof(v8));
#define SENTENCES(nv)                                                                       \
    for (int s = j->lo; s < j->hi; s++) {                                                   \
        double lz = vector_sentence(j->vm, j->c->words + j->c->off[s], j->c->len[s], ws, nv); \
        j->zero += isinf(lz);                                                               \
        ll += lz;                                                                           \
    }
        switch (NV) {
        case 1: SENTENCES(1) break;
        case 2: SENTENCES(2) break;
        case 3: SENTENCES(3) break;
        case 4: SENTENCES(4) break;
        case 5: SENTENCES(5) break;
        case 6: SENTENCES(6) break;
        case 7: SENTENCES(7) break;
        case 8: SENTENCES(8) break;
        }
#undef SENTENCES
    }
    j->loglik = ll;
    return NULL;
}

/* estep runs one E-step with the kernel on threads threads (sentences cut
   into runs of equal tokens) and returns the counts: timed from the
   model's padding to the merged counts. */
static counts estep(enum kernel kern, const model *m, const corpus *c, int threads)
{
    const int k = m->K, k1 = k + 1;
    vmodel vm = {0};
    if (kern == VECTOR)
        vm = pad_model(m);
    job jobs[16];
    long total = c->off[c->S];
    int s = 0;
    for (int t = 0; t < threads; t++) {
        job *j = &jobs[t];
        memset(j, 0, sizeof *j);
        j->kern = kern, j->m = m, j->vm = &vm, j->c = c, j->lo = s;
        while (s < c->S && (t == threads - 1 || c->off[s] < total * (t + 1) / threads))
            s++;
        j->hi = s;
        for (int i = j->lo; i < j->hi; i++)
            j->maxlen = j->maxlen > c->len[i] ? j->maxlen : c->len[i];
    }
    pthread_t tid[16];
    for (int t = 1; t < threads; t++)
        pthread_create(&tid[t], NULL, run_job, &jobs[t]);
    run_job(&jobs[0]);
    for (int t = 1; t < threads; t++)
        pthread_join(tid[t], NULL);

    counts r = {xmalloc((size_t)k1 * k1 * sizeof(double)), xmalloc((size_t)m->V * k * sizeof(double)), 0, 0};
    for (int t = 0; t < threads; t++) {
        job *j = &jobs[t];
        r.loglik += j->loglik;
        r.zero += j->zero;
        if (kern == SCALAR) {
            for (long i = 0; i < (long)k1 * k1; i++)
                r.trans[i] += j->sw.X[i];
            for (long i = 0; i < (long)m->V * k; i++)
                r.emit[i] += j->sw.E[i];
            free(j->sw.alpha), free(j->sw.inv), free(j->sw.beta), free(j->sw.pbeta), free(j->sw.u);
            free(j->sw.X), free(j->sw.E);
        } else {
            const int kp = vm.NV * 8;
            const double *X = (double *)j->vw.X, *E = (double *)j->vw.E, *xs = (double *)j->vw.xstop;
            for (int q = 0; q < k1; q++) {
                for (int t = 0; t < k; t++)
                    r.trans[(long)q * k1 + t] += X[(long)q * kp + t];
                if (q < k)
                    r.trans[(long)q * k1 + k] += xs[q];
            }
            for (long x = 0; x < m->V; x++)
                for (int t = 0; t < k; t++)
                    r.emit[x * k + t] += E[x * kp + t];
            free(j->vw.alpha), free(j->vw.inv), free(j->vw.X), free(j->vw.xstop), free(j->vw.E);
        }
    }
    /* The transition sums were kept over their weight. */
    for (long i = 0; i < (long)k1 * k1; i++)
        r.trans[i] *= m->trans[i];
    if (kern == VECTOR)
        free_vmodel(&vm);
    return r;
}

static void free_counts(counts *r) { free(r->trans), free(r->emit); }

/* ------------------------------------------------------------ enumeration */

/* brute enumerates every tag sequence of the sentence w (n ≤ 8) and adds
   the posterior expected counts to r; it returns log Z. */
static double brute(const model *m, const int *w, int n, counts *r)
{
    const int k = m->K, k1 = k + 1;
    long total = 1;
    for (int i = 0; i < n; i++)
        total *= k;
    double *weight = xmalloc(total * sizeof(double)), Z = 0;
    int y[8];
    for (long code = 0; code < total; code++) {
        long c = code;
        for (int i = 0; i < n; i++)
            y[i] = c % k, c /= k;
        double p = 1;
        int prev = k;
        for (int i = 0; i < n; i++) {
            p *= m->trans[(long)prev * k1 + y[i]] * m->emit[(long)w[i] * k + y[i]];
            prev = y[i];
        }
        p *= m->trans[(long)prev * k1 + k];
        weight[code] = p;
        Z += p;
    }
    for (long code = 0; code < total; code++) {
        long c = code;
        for (int i = 0; i < n; i++)
            y[i] = c % k, c /= k;
        double post = weight[code] / Z;
        int prev = k;
        for (int i = 0; i < n; i++) {
            r->trans[(long)prev * k1 + y[i]] += post;
            r->emit[(long)w[i] * k + y[i]] += post;
            prev = y[i];
        }
        r->trans[(long)prev * k1 + k] += post;
    }
    free(weight);
    return log(Z);
}

/* check compares both kernels, 1 and 3 threads, with enumeration on
   random weights (not normalised: grind runs on annealed and variational
   weights too) for K = 3 (one vector, mostly padding) and K = 10 (two). */
static int check(void)
{
    int failed = 0;
    const int shapes[][2] = {{3, 4}, {10, 3}};
    for (int sh = 0; sh < 2; sh++) {
        model m = {shapes[sh][0], shapes[sh][1], NULL, NULL};
        const int k = m.K, k1 = k + 1;
        m.trans = xmalloc((size_t)k1 * k1 * sizeof(double));
        m.emit = xmalloc((size_t)m.V * k * sizeof(double));
        for (int i = 0; i < k1 * k1; i++)
            m.trans[i] = uniform() + 0.01;
        for (int t = 0; t < k1; t++)
            m.trans[(long)k * k1 + t] *= t < k; /* the start cannot stop */
        for (int i = 0; i < m.V * k; i++)
            m.emit[i] = uniform() + 0.01;
        int lens[] = {1, 2, 3, 5, 4};
        const int S = 5, maxlen = k == 3 ? 5 : 4;
        corpus c = {S, lens, xmalloc((S + 1) * sizeof(long)), xmalloc(S * 8 * sizeof(int))};
        counts want = {xmalloc((size_t)k1 * k1 * sizeof(double)), xmalloc((size_t)m.V * k * sizeof(double)), 0, 0};
        for (int s = 0; s < S; s++) {
            lens[s] = lens[s] < maxlen ? lens[s] : maxlen;
            c.off[s + 1] = c.off[s] + lens[s];
            for (int i = 0; i < lens[s]; i++)
                c.words[c.off[s] + i] = (int)(uniform() * m.V);
            want.loglik += brute(&m, c.words + c.off[s], lens[s], &want);
        }
        for (int kern = SCALAR; kern <= VECTOR; kern++)
            for (int threads = 1; threads <= 3; threads += 2) {
                counts got = estep(kern, &m, &c, threads);
                double dt = max_rel(got.trans, want.trans, (size_t)k1 * k1, 1e-300);
                double de = max_rel(got.emit, want.emit, (size_t)m.V * k, 1e-300);
                double dl = fabs(got.loglik - want.loglik) / fabs(want.loglik);
                int ok = dt < 1e-12 && de < 1e-12 && dl < 1e-12;
                failed |= !ok;
                printf("hmm check K=%d %s threads=%d: log Z %.15g (enumeration %.15g), counts within %.1e %.1e: %s\n",
                       k, kernel_name[kern], threads, got.loglik, want.loglik, dt, de, ok ? "ok" : "FAIL");
                free_counts(&got);
            }
        free_counts(&want);
        free(m.trans), free(m.emit), free(c.off), free(c.words);
    }
    return failed;
}

/* ------------------------------------------------------------------ main */

static void load(const char *path, model *m, corpus *c, counts *grind)
{
    dump d = read_dump(path);
    int *h = take(&d, 4 * sizeof(int));
    m->K = h[0], m->V = h[1], c->S = h[2];
    long tokens = h[3];
    free(h);
    if (m->K < 1 || m->K > 8 * MAXNV || m->V < 1 || c->S < 1 || tokens < c->S)
        die("header out of range", path);
    const long k = m->K, k1 = k + 1;
    c->len = take(&d, c->S * sizeof(int));
    c->off = xmalloc((c->S + 1) * sizeof(long));
    for (int s = 0; s < c->S; s++) {
        if (c->len[s] < 1)
            die("a sentence of no tokens", path);
        c->off[s + 1] = c->off[s] + c->len[s];
    }
    if (c->off[c->S] != tokens)
        die("sentence lengths do not add up to the tokens", path);
    c->words = take(&d, tokens * sizeof(int));
    for (long i = 0; i < tokens; i++)
        if (c->words[i] < 0 || c->words[i] >= m->V)
            die("word id out of range", path);
    m->trans = take(&d, k1 * k1 * sizeof(double));
    m->emit = take(&d, m->V * k * sizeof(double));
    double *ll = take(&d, sizeof(double));
    grind->loglik = *ll;
    free(ll);
    grind->trans = take(&d, k1 * k1 * sizeof(double));
    grind->emit = take(&d, m->V * k * sizeof(double));
    done(&d);
}

int main(int argc, char **argv)
{
    if (argc == 2 && !strcmp(argv[1], "check"))
        return check();
    if (argc < 3 || (strcmp(argv[1], "compare") && strcmp(argv[1], "bench"))) {
        fprintf(stderr, "usage: hmm_floor check | compare FILE | bench FILE ITERS\n");
        return 2;
    }
    model m;
    corpus c;
    counts grind;
    load(argv[2], &m, &c, &grind);
    if (!strcmp(argv[1], "compare")) {
        int failed = 0;
        for (int kern = SCALAR; kern <= VECTOR; kern++)
            for (int threads = 1; threads <= 2; threads++) {
                counts got = estep(kern, &m, &c, threads);
                double dl = fabs(got.loglik - grind.loglik) / fabs(grind.loglik);
                double dt = max_rel(got.trans, grind.trans, (size_t)(m.K + 1) * (m.K + 1), 1e-3);
                double de = max_rel(got.emit, grind.emit, (size_t)m.V * m.K, 1e-3);
                int ok = dl < 1e-9 && dt < 1e-9 && de < 1e-9;
                failed |= !ok;
                printf("hmm compare %s threads=%d: log-likelihood %.6f (grind %.6f, rel. diff %.1e), counts within %.1e %.1e: %s\n",
                       kernel_name[kern], threads, got.loglik, grind.loglik, dl, dt, de, ok ? "ok" : "FAIL");
                free_counts(&got);
            }
        return failed;
    }
    int iters = argc > 3 ? atoi(argv[3]) : 5;
    if (iters < 1)
        iters = 1;
    double *ms = xmalloc(iters * sizeof(double)), *cms = xmalloc(iters * sizeof(double));
    for (int kern = SCALAR; kern <= VECTOR; kern++)
        for (int threads = 1; threads <= 2; threads++) {
            counts r = estep(kern, &m, &c, threads); /* warm-up */
            free_counts(&r);
            double ll = 0;
            for (int it = 0; it < iters; it++) {
                double t0 = now(), c0 = cpu();
                r = estep(kern, &m, &c, threads);
                ms[it] = 1e3 * (now() - t0);
                cms[it] = 1e3 * (cpu() - c0);
                ll = r.loglik;
                free_counts(&r);
            }
            printf("hmm\t%s\t%d\t%.3f\t%.3f\t%.6f\n", kernel_name[kern], threads, median(ms, iters), median(cms, iters), ll);
        }
    return 0;
}
