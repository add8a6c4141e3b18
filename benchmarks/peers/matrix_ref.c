/* matrix_ref.c - the plain C MPI program bench_matrix.py compares
 * hpcbench's matrix kernels with. It does the same exchanges, written
 * directly against MPI: an N x N matrix of doubles in blocks of
 * (N/R) x (N/C) with a one-element wrapper on an R x C mesh (rows and columns
 * numbered with a reflected Gray code where both are powers of two, else row
 * by row, as hpcbench lays its mesh out), page-aligned local matrices, and
 * per kernel:
 *   guard      Irecv the four guards, Isend the first and last rows in place,
 *              copy the first and last columns into buffers and Isend them,
 *              copy the received columns into the wrapper
 *   shift_north / shift_east  the whole local matrix to top / succ, received
 *              from bottom / pred into a second buffer, then the two swap
 *   transpose  the whole local matrix to the transposed mesh position (a
 *              square mesh: R == C), received into a second buffer and
 *              transposed back into the first; the diagonal transposes alone
 *   row_bcast / col_bcast  MPI_Bcast of the middle row (column) of the last
 *              block row (column) over the mesh column (row), the column
 *              copied into a buffer first
 * Each iteration: MPI_Barrier, then the kernel timed with MPI_Wtime on every
 * rank; per iteration the maximum over ranks (MPI_Reduce); prints
 * "kernel median_seconds" per kernel on rank 0. After the timed loop one
 * element the kernel moved is checked (hpcbench checks every element; this
 * program only makes sure the exchange happened).
 * Usage: mpiexec -n R*C matrix_ref N ITERATIONS[,IT2,...,IT6] [R C] (one count for
 * every kernel, or one per kernel in the order above: bench_matrix.py gives
 * each kernel as many applications as hpcbench timed, so that both measure
 * over windows of the same length on a machine whose load comes and goes). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int R, C, me, myrow, mycol;
static long N, H, W;              /* matrix, block rows, block columns */

static int gray(int i) { return i ^ (i >> 1); }
static int pow2(int x) { return x > 0 && (x & (x - 1)) == 0; }

static int rank_at(int r, int c)
{
    r = (r + R) % R;
    c = (c + C) % C;
    if (pow2(R) && pow2(C)) {
        int bits = 0;
        while ((1 << bits) < C)
            bits++;
        return (gray(r) << bits) | gray(c);
    }
    return r * C + c;
}

static double *alloc(long count)
{
    void *p = NULL;
    long bytes = (count * (long)sizeof(double) + 4095) / 4096 * 4096;
    if (posix_memalign(&p, 4096, (size_t)bytes) != 0) {
        fprintf(stderr, "out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    return p;
}

#define AT(a, i, j) ((a)[((i) + 1) * (W + 2) + (j) + 1])   /* block element (i, j), -1..H, -1..W */

static void fill(double *a)
{
    for (long i = -1; i <= H; i++)
        for (long j = -1; j <= W; j++)
            AT(a, i, j) = (double)((myrow * H + i + N) % N) * N + (double)((mycol * W + j + N) % N) + 1;
}

static int cmp(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int size;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc != 3 && argc != 5) {
        if (me == 0)
            fprintf(stderr, "usage: matrix_ref N ITERATIONS[,IT2,...,IT6] [ROWS COLS]\n");
        MPI_Finalize();
        return 2;
    }
    N = atol(argv[1]);
    long counts[6], warmup = 20, most = 0;
    int given = 0;
    for (char *next = argv[2]; given < 6 && *next != '\0'; given++) {
        counts[given] = strtol(next, &next, 10);
        if (*next == ',')
            next++;
    }
    for (int k = given; given == 1 && k < 6; k++)
        counts[k] = counts[0];
    for (int k = 0; k < 6; k++)
        most = counts[k] > most ? counts[k] : most;
    if ((given != 1 && given != 6) || most < 1) {
        if (me == 0)
            fprintf(stderr, "matrix_ref: ITERATIONS is one positive count or six, comma-separated\n");
        MPI_Finalize();
        return 2;
    }
    R = argc == 5 ? atoi(argv[3]) : 2;
    C = argc == 5 ? atoi(argv[4]) : size / R;
    if (R * C != size || N % R || N % C || R != C) {
        if (me == 0)
            fprintf(stderr, "matrix_ref needs a square R x C mesh of all ranks and N a multiple of both\n");
        MPI_Finalize();
        return 2;
    }
    H = N / R;
    W = N / C;
    for (int r = 0; r < R; r++)
        for (int c = 0; c < C; c++)
            if (rank_at(r, c) == me) {
                myrow = r;
                mycol = c;
            }
    int top = rank_at(myrow - 1, mycol), bottom = rank_at(myrow + 1, mycol);
    int pred = rank_at(myrow, mycol - 1), succ = rank_at(myrow, mycol + 1);
    int partner = rank_at(mycol, myrow);
    long count = (H + 2) * (W + 2), line = H > W ? H : W;
    double *a = alloc(count), *b = alloc(count), *cols = alloc(4 * line);
    double *times = malloc((size_t)most * sizeof *times), *slowest = malloc((size_t)most * sizeof *slowest);
    MPI_Comm colcomm, rowcomm;
    MPI_Comm_split(MPI_COMM_WORLD, mycol, myrow, &colcomm);
    MPI_Comm_split(MPI_COMM_WORLD, myrow, mycol, &rowcomm);
    long grow = (R - 1) * H + H / 2, gcol = (C - 1) * W + W / 2;
    const char *names[] = {"update_guard", "shift_north", "shift_east", "transpose", "row_broadcast", "col_broadcast"};
    int bad = 0;

    for (int k = 0; k < 6; k++) {
        long iterations = counts[k];
        fill(a);
        for (long it = 0; it < warmup + iterations; it++) {
            MPI_Request rq[8];
            MPI_Barrier(MPI_COMM_WORLD);
            double t0 = MPI_Wtime();
            if (k == 0) {
                double *wo = cols, *eo = cols + line, *wi = cols + 2 * line, *ei = cols + 3 * line;
                MPI_Irecv(&AT(a, -1, 0), (int)W, MPI_DOUBLE, top, 2, MPI_COMM_WORLD, &rq[0]);
                MPI_Irecv(&AT(a, H, 0), (int)W, MPI_DOUBLE, bottom, 1, MPI_COMM_WORLD, &rq[1]);
                MPI_Irecv(wi, (int)H, MPI_DOUBLE, pred, 4, MPI_COMM_WORLD, &rq[2]);
                MPI_Irecv(ei, (int)H, MPI_DOUBLE, succ, 3, MPI_COMM_WORLD, &rq[3]);
                MPI_Isend(&AT(a, 0, 0), (int)W, MPI_DOUBLE, top, 1, MPI_COMM_WORLD, &rq[4]);
                MPI_Isend(&AT(a, H - 1, 0), (int)W, MPI_DOUBLE, bottom, 2, MPI_COMM_WORLD, &rq[5]);
                for (long i = 0; i < H; i++)
                    wo[i] = AT(a, i, 0);
                MPI_Isend(wo, (int)H, MPI_DOUBLE, pred, 3, MPI_COMM_WORLD, &rq[6]);
                for (long i = 0; i < H; i++)
                    eo[i] = AT(a, i, W - 1);
                MPI_Isend(eo, (int)H, MPI_DOUBLE, succ, 4, MPI_COMM_WORLD, &rq[7]);
                for (int done = 0; done < 4; done++) {
                    int which;
                    MPI_Waitany(4, rq, &which, MPI_STATUS_IGNORE);
                    if (which == 2)
                        for (long i = 0; i < H; i++)
                            AT(a, i, -1) = wi[i];
                    if (which == 3)
                        for (long i = 0; i < H; i++)
                            AT(a, i, W) = ei[i];
                }
                MPI_Waitall(4, rq + 4, MPI_STATUSES_IGNORE);
            } else if (k == 1 || k == 2) {
                MPI_Irecv(b, (int)count, MPI_DOUBLE, k == 1 ? bottom : pred, 5, MPI_COMM_WORLD, &rq[0]);
                MPI_Isend(a, (int)count, MPI_DOUBLE, k == 1 ? top : succ, 5, MPI_COMM_WORLD, &rq[1]);
                MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
                double *t = a;
                a = b;
                b = t;
            } else if (k == 3) {
                long rows = H + 2, cs = W + 2;
                double *src = a, *dst = b;
                if (partner != me) {
                    MPI_Irecv(b, (int)count, MPI_DOUBLE, partner, 6, MPI_COMM_WORLD, &rq[0]);
                    MPI_Isend(a, (int)count, MPI_DOUBLE, partner, 6, MPI_COMM_WORLD, &rq[1]);
                    MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
                    src = b;
                    dst = a;
                }
                for (long i0 = 0; i0 < rows; i0 += 32)
                    for (long j0 = 0; j0 < cs; j0 += 32)
                        for (long j = j0; j < j0 + 32 && j < cs; j++)
                            for (long i = i0; i < i0 + 32 && i < rows; i++)
                                dst[j * rows + i] = src[i * cs + j];
                if (partner == me) {
                    double *t = a;
                    a = b;
                    b = t;
                }
            } else if (k == 4) {
                MPI_Bcast(&AT(a, grow % H, 0), (int)W, MPI_DOUBLE, (int)(grow / H), colcomm);
            } else {
                int owner = mycol == gcol / W;
                if (owner)
                    for (long i = 0; i < H; i++)
                        cols[i] = AT(a, i, gcol % W);
                MPI_Bcast(cols, (int)H, MPI_DOUBLE, (int)(gcol / W), rowcomm);
                if (!owner)
                    for (long i = 0; i < H; i++)
                        AT(a, i, gcol % W) = cols[i];
            }
            if (it >= warmup)
                times[it - warmup] = MPI_Wtime() - t0;
        }
        /* One moved element, against the formula fill() wrote. */
        long total = warmup + iterations;
        double got = 0, want = 0;
        if (k == 0) {
            got = AT(a, -1, 0);
            want = (double)((myrow * H - 1 + N) % N) * N + (double)(mycol * W) + 1;
        } else if (k == 1) {
            got = AT(a, 0, 0);
            want = (double)((myrow * H + (total % R) * H) % N) * N + (double)(mycol * W) + 1;
        } else if (k == 4) {
            got = AT(a, grow % H, 0);
            want = (double)grow * N + (double)(mycol * W) + 1;
        } else if (k == 3 && total % 2 == 1) {
            got = AT(a, 0, 0);
            want = (double)(mycol * W) * N + (double)(myrow * H) + 1;
        } else {
            got = want;
        }
        if (got != want)
            bad = 1;
        MPI_Reduce(times, slowest, (int)iterations, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
        if (me == 0) {
            qsort(slowest, (size_t)iterations, sizeof *slowest, cmp);
            printf("%s %.6e\n", names[k], slowest[iterations / 2]);
            fflush(stdout);
        }
    }
    int anybad;
    MPI_Allreduce(&bad, &anybad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (me == 0 && anybad)
        fprintf(stderr, "matrix_ref: a kernel did not move what it should\n");
    MPI_Comm_free(&colcomm);
    MPI_Comm_free(&rowcomm);
    free(a);
    free(b);
    free(cols);
    free(times);
    free(slowest);
    MPI_Finalize();
    return anybad ? 1 : 0;
}
