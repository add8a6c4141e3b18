/* pingpong_ref.c - the plain C MPI ping-pong that bench_comm.py compares
 * hpcbench's echo kernel with: OSU-style, one timer around the whole loop.
 * Usage: mpiexec -n 2 pingpong_ref SIZE ITERATIONS; prints "SIZE one_way_seconds". */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (argc != 3) {
        if (rank == 0)
            fprintf(stderr, "usage: pingpong_ref SIZE ITERATIONS\n");
        MPI_Finalize();
        return 2;
    }
    long size = atol(argv[1]), iterations = atol(argv[2]);
    long warmup = iterations / 10 > 10 ? iterations / 10 : 10;
    char *buf = malloc(size > 0 ? (size_t)size : 1);
    memset(buf, rank, size > 0 ? (size_t)size : 1);
    int peer = 1 - rank;
    double start = 0.0;
    MPI_Barrier(MPI_COMM_WORLD);
    for (long i = 0; i < warmup + iterations; i++) {
        if (i == warmup)
            start = MPI_Wtime();
        if (rank == 0) {
            MPI_Send(buf, (int)size, MPI_BYTE, peer, 1, MPI_COMM_WORLD);
            MPI_Recv(buf, (int)size, MPI_BYTE, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else if (rank == 1) {
            MPI_Recv(buf, (int)size, MPI_BYTE, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(buf, (int)size, MPI_BYTE, peer, 1, MPI_COMM_WORLD);
        }
    }
    double elapsed = MPI_Wtime() - start;
    if (rank == 0)
        printf("%ld %.9e\n", size, elapsed / (2.0 * (double)iterations));
    free(buf);
    MPI_Finalize();
    return 0;
}
