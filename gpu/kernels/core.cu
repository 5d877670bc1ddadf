// Kernels of the GPU core: used by the backend's own tests (argument
// passing, transfers overlapping compute) and by the bandwidth probe.
// Pipeline kernels live in <pipeline>.cu beside this file.

extern "C" __global__ void core_fill_u32(unsigned int *dst, unsigned int v, unsigned long long n)
{
    unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
    unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
    for (; i < n; i += stride) {
        dst[i] = v;
    }
}

// y = a*x + y over n elements (grid-stride loop).
extern "C" __global__ void core_axpy_f32(float a, const float *x, float *y, long long n)
{
    long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    long long stride = (long long)gridDim.x * blockDim.x;
    for (; i < n; i += stride) {
        y[i] = a * x[i] + y[i];
    }
}

// core_args writes its scalar arguments to out as doubles, so a test can
// check that launch passes arguments of every size at the right offsets.
extern "C" __global__ void core_args(signed char c, short s, int i, float f, long long ll, double d, double *out)
{
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        out[0] = c;
        out[1] = s;
        out[2] = i;
        out[3] = f;
        out[4] = (double)ll;
        out[5] = d;
    }
}

// core_spin keeps one thread busy for about cycles clock ticks: a kernel
// of known length, to check that uploads on the copy stream overlap it.
extern "C" __global__ void core_spin(long long cycles, unsigned int *done)
{
    long long start = clock64();
    while (clock64() - start < cycles) {
    }
    if (threadIdx.x == 0) {
        atomicAdd(done, 1u);
    }
}
