/* The CCM inside–outside floor: one E-step of Klein's constituent-context
   model with every expected count — each yield's and each context's
   expected number of constituent occurrences — and the log-likelihood,
   as grind's stages/ccm computes them: per span the ratio φ = P(y|T)P(x|T)
   / (P(y|F)P(x|F)), all φ of a sentence scaled by one power of two so the
   chart stays in range, the product K of the distituent factors kept as
   mantissa and exponent, the O(n³) inside pass over binary bracketings,
   the outside pass as its derivative, and P(s) = K · I(0,n) / Cat(n−1).

   Two kernels:
     scalar   one sentence at a time (-O2)
     batched  sentences of one length in batches of 8, every chart cell
              8 doubles (one per sentence) and every multiply-add of the
              inside and outside passes one 512-bit FMA (GCC vector
              extensions); the potentials' table lookups and the counts'
              additions stay scalar, lane by lane

   usage: ccm_floor check                 enumeration checks, both kernels
          ccm_floor compare FILE          against grind's E-step on FILE
          ccm_floor bench FILE ITERS      median ms of ITERS E-steps, each
                                          kernel, 1 and 2 threads
   FILE is written by stages/ccm's TestWriteFloorInput (see run.sh). */
#include "floor.h"
#include <pthread.h>

enum { MAXLEN = 40 };

typedef struct {
    int NY, NX;
    double *spanD, *spanC, *ctxD, *ctxC; /* P(yield | F/T), P(context | F/T) */
    double logcat[MAXLEN];               /* log Cat(m) */
} model;

typedef struct {
    int S;
    int *len;
    long *off;       /* first span of each sentence: (n+1)² spans a sentence */
    int *yield, *ctx; /* span [i, j) of s at off[s] + i·(n+1) + j */
} corpus;

typedef struct {
    double *yield, *ctx, loglik; /* expected constituent counts */
} counts;

static void set_logcat(model *m)
{
    for (int k = 0; k < MAXLEN; k++)
        m->logcat[k] = lgamma(2.0 * k + 1) - lgamma(k + 2.0) - lgamma(k + 1.0);
}

/* potentials writes φ(i,j)·2^shift for the spans of one or more tokens of
   the sentence at phi[(i·(n+1)+j)·stride] and returns log K − (2n−1)·shift·ln 2,
   the log of what the chart's total must be multiplied by: every binary
   bracketing has 2n − 1 constituents, so the scale multiplies each alike. */
static double potentials(const model *m, const int *Y, const int *X, int n, double *phi, int stride)
{
    const int w = n + 1;
    double mant = 1, pmant = 1;
    int exp = 0, pexp = 0, e;
    for (int i = 0; i <= n; i++)
        for (int j = i; j <= n; j++) {
            const int k = i * w + j, y = Y[k], x = X[k];
            const double f = m->spanD[y] * m->ctxD[x];
            mant *= f;
            if (mant < 0x1p-500) {
                mant = frexp(mant, &e);
                exp += e;
            }
            if (j > i) {
                const double p = m->spanC[y] * m->ctxC[x] / f;
                phi[k * stride] = p;
                pmant *= p;
                if (pmant < 0x1p-500 || pmant > 0x1p500) {
                    pmant = frexp(pmant, &e);
                    pexp += e;
                }
            }
        }
    frexp(pmant, &e);
    /* Divide every φ by 2 to the mean exponent. */
    const int shift = -(pexp + e) / (n * w / 2);
    const double scale = ldexp(1, shift);
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j <= n; j++)
            phi[(i * w + j) * stride] *= scale;
    return log(mant) + (exp - (double)(2 * n - 1) * shift) * M_LN2;
}

/* ---------------------------------------------------------------- scalar */

typedef struct {
    double phi[(MAXLEN + 1) * (MAXLEN + 1)], in[(MAXLEN + 1) * (MAXLEN + 1)], out[(MAXLEN + 1) * (MAXLEN + 1)];
} chart;

/* scalar_sentence adds the sentence's counts to r and returns log P(s)
   (NaN when its chart leaves the range the scaling keeps it in: the
   floor, unlike grind, has no log-space fallback). */
static double scalar_sentence(const model *m, const int *Y, const int *X, int n, chart *ch, counts *r)
{
    const int w = n + 1;
    double *phi = ch->phi, *in = ch->in, *out = ch->out;
    const double logf = potentials(m, Y, X, n, phi, 1);
    for (int i = 0; i < n; i++)
        in[i * w + i + 1] = phi[i * w + i + 1];
    for (int l = 2; l <= n; l++)
        for (int i = 0; i + l <= n; i++) {
            const int j = i + l;
            double sum = 0;
            for (int k = i + 1; k < j; k++)
                sum += in[i * w + k] * in[k * w + j];
            in[i * w + j] = phi[i * w + j] * sum;
        }
    const double z = in[n];
    if (!(z >= 0x1p-1000 && z <= 0x1p1000))
        return NAN;
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j <= n; j++)
            out[i * w + j] = 0;
    out[n] = 1;
    for (int l = n; l >= 2; l--)
        for (int i = 0; i + l <= n; i++) {
            const int j = i + l;
            const double g = out[i * w + j] * phi[i * w + j];
            for (int k = i + 1; k < j; k++) {
                out[i * w + k] += g * in[k * w + j];
                out[k * w + j] += g * in[i * w + k];
            }
        }
    /* Single tokens and the whole sentence are constituents of every
       bracketing: their posterior is 1 exactly. */
    const double invz = 1 / z;
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j <= n; j++) {
            const int k = i * w + j;
            const double post = j == i + 1 || (i == 0 && j == n) ? 1 : in[k] * out[k] * invz;
            r->yield[Y[k]] += post;
            r->ctx[X[k]] += post;
        }
    return logf + log(z) - m->logcat[n - 1];
}

/* --------------------------------------------------------------- batched */

typedef double v8 __attribute__((vector_size(64)));

typedef struct {
    v8 phi[(MAXLEN + 1) * (MAXLEN + 1)], in[(MAXLEN + 1) * (MAXLEN + 1)], out[(MAXLEN + 1) * (MAXLEN + 1)];
} vchart;

/* batch_sentences runs the chart of lanes ≤ 8 sentences of length n at
   once (the unused lanes repeat the first sentence and add no counts)
   and returns Σ log P(s) over the lanes used. */
static double batch_sentences(const model *m, const corpus *c, const int *sents, int lanes, vchart *ch, counts *r)
{
    const int n = c->len[sents[0]], w = n + 1;
    v8 *phi = ch->phi, *in = ch->in, *out = ch->out;
    double logf[8];
    for (int l = 0; l < 8; l++) {
        const long off = c->off[sents[l < lanes ? l : 0]];
        logf[l] = potentials(m, c->yield + off, c->ctx + off, n, (double *)phi + l, 8);
    }
    for (int i = 0; i < n; i++)
        in[i * w + i + 1] = phi[i * w + i + 1];
    for (int len = 2; len <= n; len++)
        for (int i = 0; i + len <= n; i++) {
            const int j = i + len;
            v8 sum = {0};
            for (int k = i + 1; k < j; k++)
                sum += in[i * w + k] * in[k * w + j];
            in[i * w + j] = phi[i * w + j] * sum;
        }
    const v8 z = in[n];
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j <= n; j++)
            out[i * w + j] = (v8){0};
    out[n] = (v8){1, 1, 1, 1, 1, 1, 1, 1};
    for (int len = n; len >= 2; len--)
        for (int i = 0; i + len <= n; i++) {
            const int j = i + len;
            const v8 g = out[i * w + j] * phi[i * w + j];
            for (int k = i + 1; k < j; k++) {
                out[i * w + k] += g * in[k * w + j];
                out[k * w + j] += g * in[i * w + k];
            }
        }
    const v8 invz = 1 / z;
    double sum = 0;
    for (int l = 0; l < lanes; l++) {
        if (!(z[l] >= 0x1p-1000 && z[l] <= 0x1p1000))
            return NAN;
        sum += logf[l] + log(z[l]) - m->logcat[n - 1];
    }
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j <= n; j++) {
            const int k = i * w + j;
            v8 post = in[k] * out[k] * invz;
            if (j == i + 1 || (i == 0 && j == n))
                post = (v8){1, 1, 1, 1, 1, 1, 1, 1};
            for (int l = 0; l < lanes; l++) {
                const long off = c->off[sents[l]];
                r->yield[c->yield[off + k]] += post[l];
                r->ctx[c->ctx[off + k]] += post[l];
            }
        }
    return sum;
}

/* ---------------------------------------------------------------- driver */

enum kernel { SCALAR, BATCHED };
static const char *kernel_name[] = {"C scalar", "C batched"};

/* A unit of work: one sentence (scalar) or a batch of ≤ 8 of one length. */
typedef struct {
    int first, lanes;
} unit;

typedef struct {
    enum kernel kern;
    const model *m;
    const corpus *c;
    const int *order; /* sentences, by length for the batched kernel */
    const unit *units;
    int lo, hi;
    counts r;
} job;

static void *run_job(void *arg)
{
    job *j = arg;
    const model *m = j->m;
    const corpus *c = j->c;
    j->r.yield = xmalloc(m->NY * sizeof(double));
    j->r.ctx = xmalloc(m->NX * sizeof(double));
    double ll = 0;
    if (j->kern == SCALAR) {
        chart *ch = xmalloc(sizeof *ch);
        for (int u = j->lo; u < j->hi; u++) {
            const int s = j->units[u].first;
            ll += scalar_sentence(m, c->yield + c->off[s], c->ctx + c->off[s], c->len[s], ch, &j->r);
        }
        free(ch);
    } else {
        vchart *ch = xmalloc(sizeof *ch);
        for (int u = j->lo; u < j->hi; u++)
            ll += batch_sentences(m, c, j->order + j->units[u].first, j->units[u].lanes, ch, &j->r);
        free(ch);
    }
    j->r.loglik = ll;
    return NULL;
}

/* plan lists the units of work: the sentences in corpus order, or batches
   of the sentences sorted by length (a stable counting sort). Not timed:
   the corpus does not change between E-steps. */
static unit *plan(enum kernel kern, const corpus *c, int *order, int *nunits)
{
    unit *u = xmalloc(c->S * sizeof *u);
    int nu = 0;
    if (kern == SCALAR) {
        for (int s = 0; s < c->S; s++)
            u[nu++] = (unit){s, 1};
        *nunits = nu;
        return u;
    }
    int at = 0;
    for (int n = 1; n <= MAXLEN; n++) {
        const int start = at;
        for (int s = 0; s < c->S; s++)
            if (c->len[s] == n)
                order[at++] = s;
        for (int b = start; b < at; b += 8)
            u[nu++] = (unit){b, at - b < 8 ? at - b : 8};
    }
    *nunits = nu;
    return u;
}

/* estep runs one E-step with threads threads (the units cut into runs of
   about equal n³) and returns the counts, merged. */
static counts estep(enum kernel kern, const model *m, const corpus *c, const int *order, const unit *units, int nunits, int threads)
{
    double total = 0;
    for (int u = 0; u < nunits; u++) {
        const int n = c->len[kern == SCALAR ? units[u].first : order[units[u].first]];
        total += (double)n * n * n;
    }
    job jobs[16];
    int u = 0;
    double done_cost = 0;
    for (int t = 0; t < threads; t++) {
        job *j = &jobs[t];
        memset(j, 0, sizeof *j);
        j->kern = kern, j->m = m, j->c = c, j->order = order, j->units = units, j->lo = u;
        while (u < nunits && (t == threads - 1 || done_cost < total * (t + 1) / threads)) {
            const int n = c->len[kern == SCALAR ? units[u].first : order[units[u].first]];
            done_cost += (double)n * n * n;
            u++;
        }
        j->hi = u;
    }
    pthread_t tid[16];
    for (int t = 1; t < threads; t++)
        pthread_create(&tid[t], NULL, run_job, &jobs[t]);
    run_job(&jobs[0]);
    for (int t = 1; t < threads; t++)
        pthread_join(tid[t], NULL);
    counts r = jobs[0].r;
    for (int t = 1; t < threads; t++) {
        for (int y = 0; y < m->NY; y++)
            r.yield[y] += jobs[t].r.yield[y];
        for (int x = 0; x < m->NX; x++)
            r.ctx[x] += jobs[t].r.ctx[x];
        r.loglik += jobs[t].r.loglik;
        free(jobs[t].r.yield), free(jobs[t].r.ctx);
    }
    return r;
}

static void free_counts(counts *r) { free(r->yield), free(r->ctx); }

/* ------------------------------------------------------------ enumeration */

/* The enumeration: every binary bracketing of [0, n) as the set of its
   constituents (in_tree), each weighed by P_bin · Π over all spans, empty
   ones included, of P(y|b)P(x|b); the counts are summed unnormalised and
   divided by Z at the end. */
typedef struct {
    const model *m;
    const int *Y, *X;
    int n;
    char in_tree[(MAXLEN + 1) * (MAXLEN + 1)];
    double Z, *cy, *cx;
} brute_state;

static void brute_tree(brute_state *b)
{
    const int w = b->n + 1;
    double p = exp(-b->m->logcat[b->n - 1]);
    for (int i = 0; i <= b->n; i++)
        for (int j = i; j <= b->n; j++) {
            const int k = i * w + j, y = b->Y[k], x = b->X[k];
            p *= b->in_tree[k] ? b->m->spanC[y] * b->m->ctxC[x] : b->m->spanD[y] * b->m->ctxD[x];
        }
    b->Z += p;
    for (int k = 0; k < w * w; k++)
        if (b->in_tree[k]) {
            b->cy[b->Y[k]] += p;
            b->cx[b->X[k]] += p;
        }
}

/* brute_split expands the pending spans (pairs i, j) into every binary
   bracketing below them. */
static void brute_split(brute_state *b, int *pending, int np)
{
    if (np == 0) {
        brute_tree(b);
        return;
    }
    const int i = pending[2 * (np - 1)], j = pending[2 * (np - 1) + 1], w = b->n + 1;
    b->in_tree[i * w + j] = 1;
    if (j - i == 1)
        brute_split(b, pending, np - 1);
    else
        for (int k = i + 1; k < j; k++) {
            int more[4 * MAXLEN];
            memcpy(more, pending, 2 * (np - 1) * sizeof(int));
            more[2 * (np - 1)] = i, more[2 * (np - 1) + 1] = k;
            more[2 * np] = k, more[2 * np + 1] = j;
            brute_split(b, more, np + 1);
        }
    b->in_tree[i * w + j] = 0;
}

/* check compares both kernels, 1 and 3 threads, with enumeration over
   sentences of 1–7 tokens whose spans draw their yield and context ids at
   random from small sets (so ids repeat within and across sentences),
   under random unnormalised weights. 11 sentences: the batched kernel
   meets a full batch of 8 and partial ones. */
static int check(void)
{
    model m = {12, 5, NULL, NULL, NULL, NULL, {0}};
    set_logcat(&m);
    m.spanD = xmalloc(m.NY * sizeof(double)), m.spanC = xmalloc(m.NY * sizeof(double));
    m.ctxD = xmalloc(m.NX * sizeof(double)), m.ctxC = xmalloc(m.NX * sizeof(double));
    for (int y = 0; y < m.NY; y++)
        m.spanD[y] = uniform() + 0.01, m.spanC[y] = uniform() + 0.01;
    for (int x = 0; x < m.NX; x++)
        m.ctxD[x] = uniform() + 0.01, m.ctxC[x] = uniform() + 0.01;
    int lens[] = {3, 1, 2, 3, 3, 7, 3, 3, 4, 3, 3};
    corpus c = {11, lens, xmalloc(12 * sizeof(long)), NULL, NULL};
    for (int s = 0; s < c.S; s++)
        c.off[s + 1] = c.off[s] + (lens[s] + 1) * (lens[s] + 1);
    c.yield = xmalloc(c.off[c.S] * sizeof(int)), c.ctx = xmalloc(c.off[c.S] * sizeof(int));
    counts want = {xmalloc(m.NY * sizeof(double)), xmalloc(m.NX * sizeof(double)), 0};
    for (int s = 0; s < c.S; s++) {
        brute_state b = {&m, c.yield + c.off[s], c.ctx + c.off[s], lens[s], {0}, 0, NULL, NULL};
        b.cy = xmalloc(m.NY * sizeof(double)), b.cx = xmalloc(m.NX * sizeof(double));
        for (long k = c.off[s]; k < c.off[s + 1]; k++)
            c.yield[k] = (int)(uniform() * m.NY), c.ctx[k] = (int)(uniform() * m.NX);
        int root[2] = {0, lens[s]};
        brute_split(&b, root, 1);
        for (int y = 0; y < m.NY; y++)
            want.yield[y] += b.cy[y] / b.Z;
        for (int x = 0; x < m.NX; x++)
            want.ctx[x] += b.cx[x] / b.Z;
        want.loglik += log(b.Z);
        free(b.cy), free(b.cx);
    }
    int failed = 0;
    int *order = xmalloc(c.S * sizeof(int));
    for (int kern = SCALAR; kern <= BATCHED; kern++) {
        int nunits;
        unit *units = plan(kern, &c, order, &nunits);
        for (int threads = 1; threads <= 3; threads += 2) {
            counts got = estep(kern, &m, &c, order, units, nunits, threads);
            double dy = max_rel(got.yield, want.yield, m.NY, 1e-300);
            double dx = max_rel(got.ctx, want.ctx, m.NX, 1e-300);
            double dl = fabs(got.loglik - want.loglik) / fabs(want.loglik);
            int ok = dy < 1e-12 && dx < 1e-12 && dl < 1e-12;
            failed |= !ok;
            printf("ccm check %s threads=%d: log P %.15g (enumeration %.15g), counts within %.1e %.1e: %s\n",
                   kernel_name[kern], threads, got.loglik, want.loglik, dy, dx, ok ? "ok" : "FAIL");
            free_counts(&got);
        }
        free(units);
    }
    return failed;
}

/* ------------------------------------------------------------------ main */

static void load(const char *path, model *m, corpus *c, counts *grind)
{
    dump d = read_dump(path);
    int *h = take(&d, 4 * sizeof(int));
    c->S = h[0], m->NY = h[1], m->NX = h[2];
    long spans = h[3];
    free(h);
    if (c->S < 1 || m->NY < 1 || m->NX < 1 || spans < 1)
        die("header out of range", path);
    set_logcat(m);
    c->len = take(&d, c->S * sizeof(int));
    c->off = xmalloc((c->S + 1) * sizeof(long));
    for (int s = 0; s < c->S; s++) {
        if (c->len[s] < 1 || c->len[s] >= MAXLEN)
            die("a sentence of no tokens or longer than the kernels' charts", path);
        c->off[s + 1] = c->off[s] + (long)(c->len[s] + 1) * (c->len[s] + 1);
    }
    if (c->off[c->S] != spans)
        die("sentence lengths do not add up to the spans", path);
    c->yield = take(&d, spans * sizeof(int));
    c->ctx = take(&d, spans * sizeof(int));
    for (int s = 0; s < c->S; s++)
        for (int i = 0; i <= c->len[s]; i++)
            for (int j = i; j <= c->len[s]; j++) {
                long k = c->off[s] + i * (c->len[s] + 1) + j;
                if (c->yield[k] < 0 || c->yield[k] >= m->NY || c->ctx[k] < 0 || c->ctx[k] >= m->NX)
                    die("yield or context id out of range", path);
            }
    m->spanD = take(&d, m->NY * sizeof(double));
    m->spanC = take(&d, m->NY * sizeof(double));
    m->ctxD = take(&d, m->NX * sizeof(double));
    m->ctxC = take(&d, m->NX * sizeof(double));
    for (int y = 0; y < m->NY; y++)
        if (!(m->spanD[y] > 0))
            die("a yield of distituent probability 0: the floor reads smoothed models only", path);
    for (int x = 0; x < m->NX; x++)
        if (!(m->ctxD[x] > 0))
            die("a context of distituent probability 0: the floor reads smoothed models only", path);
    double *ll = take(&d, sizeof(double));
    grind->loglik = *ll;
    free(ll);
    grind->yield = take(&d, m->NY * sizeof(double));
    grind->ctx = take(&d, m->NX * sizeof(double));
    done(&d);
}

int main(int argc, char **argv)
{
    if (argc == 2 && !strcmp(argv[1], "check"))
        return check();
    if (argc < 3 || (strcmp(argv[1], "compare") && strcmp(argv[1], "bench"))) {
        fprintf(stderr, "usage: ccm_floor check | compare FILE | bench FILE ITERS\n");
        return 2;
    }
    model m;
    corpus c;
    counts grind;
    load(argv[2], &m, &c, &grind);
    int *order = xmalloc(c.S * sizeof(int)), nunits;
    if (!strcmp(argv[1], "compare")) {
        int failed = 0;
        for (int kern = SCALAR; kern <= BATCHED; kern++) {
            unit *units = plan(kern, &c, order, &nunits);
            for (int threads = 1; threads <= 2; threads++) {
                counts got = estep(kern, &m, &c, order, units, nunits, threads);
                double dl = fabs(got.loglik - grind.loglik) / fabs(grind.loglik);
                double dy = max_rel(got.yield, grind.yield, m.NY, 1e-3);
                double dx = max_rel(got.ctx, grind.ctx, m.NX, 1e-3);
                int ok = dl < 1e-9 && dy < 1e-9 && dx < 1e-9;
                failed |= !ok;
                printf("ccm compare %s threads=%d: log-likelihood %.6f (grind %.6f, rel. diff %.1e), counts within %.1e %.1e: %s\n",
                       kernel_name[kern], threads, got.loglik, grind.loglik, dl, dy, dx, ok ? "ok" : "FAIL");
                free_counts(&got);
            }
            free(units);
        }
        return failed;
    }
    int iters = argc > 3 ? atoi(argv[3]) : 20;
    if (iters < 1)
        iters = 1;
    double *ms = xmalloc(iters * sizeof(double)), *cms = xmalloc(iters * sizeof(double));
    for (int kern = SCALAR; kern <= BATCHED; kern++) {
        unit *units = plan(kern, &c, order, &nunits);
        for (int threads = 1; threads <= 2; threads++) {
            counts r = estep(kern, &m, &c, order, units, nunits, threads); /* warm-up */
            free_counts(&r);
            double ll = 0;
            for (int it = 0; it < iters; it++) {
                double t0 = now(), c0 = cpu();
                r = estep(kern, &m, &c, order, units, nunits, threads);
                ms[it] = 1e3 * (now() - t0);
                cms[it] = 1e3 * (cpu() - c0);
                ll = r.loglik;
                free_counts(&r);
            }
            printf("ccm\t%s\t%d\t%.3f\t%.3f\t%.6f\n", kernel_name[kern], threads, median(ms, iters), median(cms, iters), ll);
        }
        free(units);
    }
    return 0;
}
