// Kernels of the distance-matrix pipeline (Ops in ops.go, launched by
// cuda_ops.go). Rows are prepared maps of rowLen doubles; see Ops for
// their layout. The CPU kernels (cpu_ops.go) are the reference these are
// tested against (cuda_ops_test.go).

#define DIST_TILE 16

// dist_gram: C[s][i][j] = sum over k in [bounds[s], bounds[s+1]) of
// A[arow0+i][k] * B[j][k], in double, for every segment s = blockIdx.z.
// Classic shared-memory tiling (Kirk & Hwu, "Programming Massively Parallel
// Processors", ch. 4): each 16x16 block computes a 16x16 tile of C, staging
// 16-column slices of its 16 rows of A and 16 rows of B in shared memory so
// every value read from global memory is used 16 times. Each thread sums
// its k in increasing order, so results do not depend on the grid.
extern "C" __global__ void dist_gram(double *__restrict__ C, const double *__restrict__ A,
                                     const double *__restrict__ B, const long long *__restrict__ bounds,
                                     int M, int N, int arow0, int rowLen)
{
    __shared__ double As[DIST_TILE][DIST_TILE + 1];
    __shared__ double Bs[DIST_TILE][DIST_TILE + 1];
    const int s = blockIdx.z;
    const long long k0 = bounds[s], k1 = bounds[s + 1];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int i0 = blockIdx.y * DIST_TILE, j0 = blockIdx.x * DIST_TILE;
    double acc = 0.0;
    for (long long kt = k0; kt < k1; kt += DIST_TILE) {
        const long long k = kt + tx;
        const int ia = i0 + ty, jb = j0 + ty;
        As[ty][tx] = (ia < M && k < k1) ? A[(long long)(arow0 + ia) * rowLen + k] : 0.0;
        Bs[ty][tx] = (jb < N && k < k1) ? B[(long long)jb * rowLen + k] : 0.0;
        __syncthreads();
#pragma unroll
        for (int q = 0; q < DIST_TILE; q++) {
            acc += As[ty][q] * Bs[tx][q];
        }
        __syncthreads();
    }
    const int i = i0 + ty, j = j0 + tx;
    if (i < M && j < N) {
        C[((long long)s * M + i) * N + j] = acc;
    }
}

// The Kind values of ops.go.
#define DIST_L2 0
#define DIST_L2SQ 1
#define DIST_CORR 2
#define DIST_CORRDIST 3
#define DIST_BIOEM 4
#define DIST_FSC 5
#define DIST_RES 6

// BioEMTiny: the smallest positive normal float (2^-126).
#define DIST_BIOEM_TINY 1.1754943508222875e-38

// dist_metric: one thread per pair (i, j); the formulas of pairMetric in
// cpu_ops.go (Cossio & Hummer 2013 eq. 10 for BioEM).
extern "C" __global__ void dist_metric(double *__restrict__ dst, const double *__restrict__ gram,
                                       const double *__restrict__ A, const double *__restrict__ B,
                                       int kind, int M, int N, int arow0, int rowLen, int dst0,
                                       int dataSeg, int shellSeg0, int shells, int statOff,
                                       int voxels, double resScale)
{
    const long long mn = (long long)M * N;
    const long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= mn) {
        return;
    }
    const int i = (int)(t / N), j = (int)(t % N);
    const double *sa = A + (long long)(arow0 + i) * rowLen + statOff;
    const double *sb = B + (long long)j * rowLen + statOff;
    const double n = (double)voxels;
    const double ab = gram[dataSeg * mn + (long long)i * N + j];
    double v;
    switch (kind) {
    case DIST_L2:
        v = sqrt(fmax(sa[1] + sb[1] - 2.0 * ab, 0.0));
        break;
    case DIST_L2SQ:
        v = fmax(sa[1] + sb[1] - 2.0 * ab, 0.0);
        break;
    case DIST_CORR:
        v = ab / n;
        break;
    case DIST_CORRDIST:
        v = 1.0 - ab / n;
        break;
    case DIST_BIOEM: {
        const double co = sa[0], cc = sb[0], coo = sa[1], ccc = sb[1];
        const double t2 = n * (ccc * coo - ab * ab) + 2.0 * co * ab * cc - ccc * co * co - coo * cc * cc;
        const double t3 = (n - 2.0) * (n * ccc - cc * cc);
        const double pi = 3.141592653589793;
        const double logP = pi / 2.0 + log(2.0 * pi * 2.718281828459045) * (1.0 - n / 2.0) +
                            log(fmax(t2, DIST_BIOEM_TINY)) * (1.5 - n / 2.0) +
                            log(fmax(t3, DIST_BIOEM_TINY)) * (n / 2.0 - 2.0);
        v = -logP;
        break;
    }
    case DIST_FSC:
    case DIST_RES: {
        double sum = 0.0;
        int first = 0;
        for (int s = 1; s <= shells; s++) {
            double f = 0.0;
            const double p = sa[1 + s] * sb[1 + s];
            if (p > 0.0) {
                f = gram[(shellSeg0 + s - 1) * mn + (long long)i * N + j] / sqrt(p);
            }
            sum += f;
            if (first == 0 && f < 0.5) {
                first = s;
            }
        }
        if (kind == DIST_FSC) {
            v = 1.0 - sum / shells;
        } else {
            v = resScale / (first == 0 ? shells : first);
        }
        break;
    }
    default:
        v = __longlong_as_double(0x7ff8000000000000LL); // NaN
    }
    dst[dst0 + (long long)i * N + j] = v;
}
