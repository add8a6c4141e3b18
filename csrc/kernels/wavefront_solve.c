/* wavefront_solve.c - see wavefront_solve.h. */
#include "wavefront_solve.h"

#include <stdlib.h>
#include <string.h>

#include "../runtime/hpcb.h"

/* SWEEP_ORDER (hpcbench/predict/_params.py): (starts east?, starts north?,
 * z upward?), corners SW, NE, SE, SE, NW, NW, SW, NE. */
static const unsigned char sweeps[HPCB_WAVEFRONT_SWEEPS][3] = {
    {0, 0, 1}, {1, 1, 1}, {1, 0, 1}, {1, 0, 0}, {0, 1, 1}, {0, 1, 0}, {0, 0, 0}, {1, 1, 0},
};

int hpcb_wavefront_from_east(int sweep) { return sweeps[sweep][0]; }
int hpcb_wavefront_from_north(int sweep) { return sweeps[sweep][1]; }
int hpcb_wavefront_upward(int sweep) { return sweeps[sweep][2]; }

/* The weight of the cell's own last iterate in the inner repetition, and
 * of phi in the source: constants, so every cell runs the same arithmetic. */
#define SELF 0.5
#define SCATTER 0.5

/* splitmix64's finaliser: every input bit reaches every output bit. */
static uint64_t mix(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

/* The fixed source of cell gid in sweep s: in [0.5, 1.5), from 53 bits of
 * a hash (exact in a double, so the same on every machine). */
static double source(size_t gid, int sweep)
{
    return 0.5 + (double)(mix((uint64_t)gid * HPCB_WAVEFRONT_SWEEPS + (uint64_t)sweep) >> 11) * 0x1p-53;
}

int hpcb_wavefront_block_init(struct hpcb_wavefront_block *b, size_t nx, size_t ny, size_t nz, size_t x0, size_t y0,
                              size_t cx, size_t cy, size_t angles, size_t work)
{
    *b = (struct hpcb_wavefront_block){.nx = nx, .ny = ny, .nz = nz, .x0 = x0, .y0 = y0, .cx = cx, .cy = cy,
                                       .angles = angles, .work = work};
    b->phi = calloc(cx * cy * nz, sizeof(double));
    b->psi = calloc(cx * cy * angles, sizeof(double));
    b->coef = malloc(5 * angles * sizeof(double));
    b->scratch = malloc(angles * sizeof(double));
    b->zero = calloc(angles, sizeof(double));
    if (b->phi == NULL || b->psi == NULL || b->coef == NULL || b->scratch == NULL || b->zero == NULL) {
        hpcb_wavefront_block_free(b);
        return HPCB_ENOMEM;
    }
    /* Direction cosines in (0.2, 0.9), different per angle; dyadic
     * fractions, so the table is exact and the same everywhere. */
    double *mu = b->coef, *eta = mu + angles, *xi = eta + angles, *inv = xi + angles, *tilt = inv + angles;
    for (size_t a = 0; a < angles; a++) {
        mu[a] = 0.25 + 0.0625 * (double)(a % 8);
        eta[a] = 0.75 - 0.0625 * (double)((a + 3) % 8);
        xi[a] = 0.375 + 0.03125 * (double)((5 * a) % 16);
        inv[a] = 1.0 / (1.0 + mu[a] + eta[a] + xi[a] + SELF);
        tilt[a] = 0.0078125 * (double)(a % 32);
    }
    return HPCB_OK;
}

void hpcb_wavefront_block_free(struct hpcb_wavefront_block *b)
{
    free(b->phi);
    free(b->psi);
    free(b->coef);
    free(b->scratch);
    free(b->zero);
    b->phi = b->psi = b->coef = b->scratch = b->zero = NULL;
}

/* The inner repetition of every angle of one cell: `work` rounds, each a
 * multiply-add-multiply per angle (the angles are independent chains, so
 * the compiler may vectorise across them; the rounds are a dependency
 * chain it cannot shorten, so the time grows linearly with work). */
static void repeat(size_t angles, size_t work, const double *restrict rhs, const double *restrict inv,
                   double *restrict psi)
{
    for (size_t a = 0; a < angles; a++)
        psi[a] = 0.0;
    for (size_t k = 0; k < work; k++)
        for (size_t a = 0; a < angles; a++)
            psi[a] = (rhs[a] + SELF * psi[a]) * inv[a];
}

/* One cell (wavefront_solve.h): reads px, py, pz (pz may be out itself, the
 * cell's psi of the previous plane), writes out and *phi. */
static void solve_cell(struct hpcb_wavefront_block *b, int sweep, size_t gid, const double *px, const double *py,
                       const double *pz, double *out, double *phi)
{
    size_t A = b->angles;
    const double *mu = b->coef, *eta = mu + A, *xi = eta + A, *inv = xi + A, *tilt = inv + A;
    double *rhs = b->scratch;
    double q = source(gid, sweep) + SCATTER * *phi;
    for (size_t a = 0; a < A; a++)
        rhs[a] = q + tilt[a] + mu[a] * px[a] + eta[a] * py[a] + xi[a] * pz[a];
    repeat(A, b->work, rhs, inv, out);
    double sum = 0.0;
    for (size_t a = 0; a < A; a++)
        sum += out[a];
    *phi = 0.5 * *phi + 0.5 * (sum / (double)A);
}

void hpcb_wavefront_tile(struct hpcb_wavefront_block *b, int sweep, size_t tile, size_t h, const double *ew_in,
                         const double *ns_in, double *ew_out, double *ns_out)
{
    size_t A = b->angles, cx = b->cx, cy = b->cy;
    int east = hpcb_wavefront_from_east(sweep), north = hpcb_wavefront_from_north(sweep);
    int up = hpcb_wavefront_upward(sweep);
    for (size_t k = 0; k < h; k++) {
        size_t plane = tile * h + k;                       /* in the sweep's z order */
        size_t gz = up ? plane : b->nz - 1 - plane;
        for (size_t jj = 0; jj < cy; jj++) {
            size_t ly = north ? cy - 1 - jj : jj;
            size_t ly_up = north ? ly + 1 : ly - 1;       /* used only when jj > 0 */
            for (size_t ii = 0; ii < cx; ii++) {
                size_t lx = east ? cx - 1 - ii : ii;
                size_t lx_up = east ? lx + 1 : lx - 1;
                double *cell = b->psi + (ly * cx + lx) * A;
                const double *px = ii > 0 ? b->psi + (ly * cx + lx_up) * A
                                          : ew_in != NULL ? ew_in + (k * cy + ly) * A : b->zero;
                const double *py = jj > 0 ? b->psi + (ly_up * cx + lx) * A
                                          : ns_in != NULL ? ns_in + (k * cx + lx) * A : b->zero;
                const double *pz = plane > 0 ? cell : b->zero;
                size_t gid = (b->x0 + lx) + b->nx * ((b->y0 + ly) + b->ny * gz);
                solve_cell(b, sweep, gid, px, py, pz, cell, &b->phi[lx + cx * (ly + cy * gz)]);
                if (ii == cx - 1 && ew_out != NULL)
                    memcpy(ew_out + (k * cy + ly) * A, cell, A * sizeof(double));
                if (jj == cy - 1 && ns_out != NULL)
                    memcpy(ns_out + (k * cx + lx) * A, cell, A * sizeof(double));
            }
        }
    }
}

uint64_t hpcb_wavefront_block_checksum(const struct hpcb_wavefront_block *b)
{
    uint64_t sum = 0;
    for (size_t z = 0; z < b->nz; z++)
        for (size_t y = 0; y < b->cy; y++)
            for (size_t x = 0; x < b->cx; x++) {
                double v = b->phi[x + b->cx * (y + b->cy * z)];
                uint64_t bits;
                memcpy(&bits, &v, sizeof bits);
                uint64_t gid = (b->x0 + x) + b->nx * ((b->y0 + y) + b->ny * z);
                sum += mix(bits ^ (gid * 0x9e3779b97f4a7c15u));
            }
    return sum;
}

double hpcb_wavefront_block_total(const struct hpcb_wavefront_block *b)
{
    double total = 0.0;
    for (size_t c = 0, count = b->cx * b->cy * b->nz; c < count; c++)
        total += b->phi[c];
    return total;
}

int hpcb_wavefront_serial(size_t nx, size_t ny, size_t nz, size_t angles, size_t work, size_t iterations,
                          uint64_t *checksum, double *total)
{
    struct hpcb_wavefront_block b;
    int rc = hpcb_wavefront_block_init(&b, nx, ny, nz, 0, 0, nx, ny, angles, work);
    if (rc != HPCB_OK)
        return rc;
    for (size_t it = 0; it < iterations; it++)
        for (int s = 0; s < HPCB_WAVEFRONT_SWEEPS; s++)
            for (size_t plane = 0; plane < nz; plane++)
                hpcb_wavefront_tile(&b, s, plane, 1, NULL, NULL, NULL, NULL);
    *checksum = hpcb_wavefront_block_checksum(&b);
    *total = hpcb_wavefront_block_total(&b);
    hpcb_wavefront_block_free(&b);
    return HPCB_OK;
}
