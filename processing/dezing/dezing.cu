// Kernels of the dezinging pipeline (cuda_ops.go launches them).
// Every result must be bit-identical to the CPU backend's
// (cpu_*.go): medians are exact order statistics of the same
// multiset under the same order, and all floating-point arithmetic is
// written with round-to-nearest intrinsics (__fsub_rn, __ddiv_rn, ...)
// which nvcc never contracts into fused multiply-adds.

// dezing_key maps float32 bits to a key whose unsigned order is IEEE 754
// totalOrder (floatKey in ops.go).
__device__ __forceinline__ unsigned int dezing_key(unsigned int b)
{
    return b ^ ((unsigned int)((int)b >> 31) | 0x80000000u);
}

__device__ __forceinline__ unsigned int dezing_unkey(unsigned int k)
{
    return k ^ ((unsigned int)((int)~k >> 31) | 0x80000000u);
}

// dezing_select returns the t-th smallest (0-based) of n keys of `bits`
// bits, by radix selection from the top bit: at each bit, count the keys
// that share the prefix chosen so far and have a 0 there; the answer's bit
// is 0 if the rank falls among them. Exact, and needs no scratch.
template <typename Get>
__device__ __forceinline__ unsigned int dezing_select(int n, int t, int bits, Get get)
{
    unsigned int prefix = 0;
    for (int bit = bits - 1; bit >= 0; --bit) {
        unsigned int hi = ~((2u << bit) - 1u); // bits above `bit`
        unsigned int one = 1u << bit;
        int cnt = 0;
        for (int i = 0; i < n; ++i) {
            unsigned int v = get(i);
            cnt += ((v & hi) == prefix) & ((v & one) == 0u);
        }
        if (t >= cnt) {
            t -= cnt;
            prefix |= one;
        }
    }
    return prefix;
}

// The median filter. One thread per output voxel of a 32 x 8 tile of one
// plane; the block first loads the tile with its halo (kernel/2 on each
// side, every index clamped to the source as scipy's mode='nearest') from
// global memory into shared memory as keys, then each thread selects the
// median of its kernel³ neighbourhood from shared memory.
#define DZ_TX 32
#define DZ_TY 8

template <bool F32>
__device__ void dezing_median(void *dst, const void *src, int planes, int rows, int cols,
                              int z0, int kernel, float dif, int thr)
{
    extern __shared__ unsigned int tile[];
    const int r = kernel / 2;
    const int tw = DZ_TX + 2 * r, th = DZ_TY + 2 * r;
    const int x0 = blockIdx.x * DZ_TX, y0 = blockIdx.y * DZ_TY;
    const int z = blockIdx.z;          // output plane
    const int zc = z0 + z;             // its source plane
    const long long plane = (long long)rows * cols;
    const int tid = threadIdx.y * DZ_TX + threadIdx.x;
    const int nt = tw * th * kernel;
    for (int i = tid; i < nt; i += DZ_TX * DZ_TY) {
        int tx = i % tw, ty = (i / tw) % th, tz = i / (tw * th);
        int gx = min(max(x0 + tx - r, 0), cols - 1);
        int gy = min(max(y0 + ty - r, 0), rows - 1);
        int gz = min(max(zc + tz - r, 0), planes - 1);
        long long o = gz * plane + (long long)gy * cols + gx;
        tile[i] = F32 ? dezing_key(((const unsigned int *)src)[o]) : ((const unsigned short *)src)[o];
    }
    __syncthreads();
    const int x = x0 + threadIdx.x, y = y0 + threadIdx.y;
    if (x >= cols || y >= rows) {
        return;
    }
    const int n = kernel * kernel * kernel;
    const int lx = threadIdx.x, ly = threadIdx.y;
    unsigned int m;
    if (kernel == 3) {
        // 27 keys in registers.
        unsigned int v[27];
#pragma unroll
        for (int i = 0; i < 27; ++i) {
            v[i] = tile[((i / 9) * th + ly + (i / 3) % 3) * tw + lx + i % 3];
        }
        m = dezing_select(27, 13, F32 ? 32 : 16, [&](int i) { return v[i]; });
    } else {
        m = dezing_select(n, n / 2, F32 ? 32 : 16, [&](int i) {
            int dx = i % kernel, dy = (i / kernel) % kernel, dz = i / (kernel * kernel);
            return tile[(dz * th + ly + dy) * tw + lx + dx];
        });
    }
    long long o = zc * plane + (long long)y * cols + x;
    long long od = z * plane + (long long)y * cols + x;
    if (F32) {
        unsigned int vb = ((const unsigned int *)src)[o];
        float v = __uint_as_float(vb);
        float mf = __uint_as_float(dezing_unkey(m));
        float d = fabsf(__fsub_rn(v, mf));
        ((unsigned int *)dst)[od] = d >= dif ? __float_as_uint(mf) : vb;
    } else {
        int v = ((const unsigned short *)src)[o];
        int d = abs(v - (int)m);
        ((unsigned short *)dst)[od] = (unsigned short)(d >= thr ? (int)m : v);
    }
}

extern "C" __global__ void dezing_median_u16(unsigned short *dst, const unsigned short *src, int planes, int rows,
                                             int cols, int z0, int kernel, int thr)
{
    dezing_median<false>(dst, src, planes, rows, cols, z0, kernel, 0.0f, thr);
}

extern "C" __global__ void dezing_median_f32(float *dst, const float *src, int planes, int rows, int cols, int z0,
                                             int kernel, float dif)
{
    dezing_median<true>(dst, src, planes, rows, cols, z0, kernel, dif, 0);
}

// dezing_canon_nan returns every NaN as 0x7fc00000, as gpu.dzCanonNaN does
// on the CPU: NaN payloads differ between x86 and CUDA arithmetic.
__device__ __forceinline__ float dezing_canon_nan(float v)
{
    return v != v ? __int_as_float(0x7fc00000) : v;
}

// Mean over frames: a float64 sum in frame order, divided once, rounded
// once to float32.
template <typename T>
__device__ void dezing_mean(float *dst, const T *src, int frames, long long pixels)
{
    long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    long long stride = (long long)gridDim.x * blockDim.x;
    for (; i < pixels; i += stride) {
        double s = 0.0;
        for (int f = 0; f < frames; ++f) {
            s = __dadd_rn(s, (double)src[f * pixels + i]);
        }
        dst[i] = dezing_canon_nan(__double2float_rn(__ddiv_rn(s, (double)frames)));
    }
}

extern "C" __global__ void dezing_mean_u16(float *dst, const unsigned short *src, int frames, long long pixels)
{
    dezing_mean(dst, src, frames, pixels);
}

extern "C" __global__ void dezing_mean_f32(float *dst, const float *src, int frames, long long pixels)
{
    dezing_mean(dst, src, frames, pixels);
}

// Median over frames (the mean of the two middle values, in float64, for
// an even count), by radix selection straight from global memory: the
// threads of a warp read neighbouring pixels of a frame, so reads are
// coalesced, and no scratch is needed whatever the number of frames.
template <bool F32>
__device__ void dezing_fmedian(float *dst, const void *src, int frames, long long pixels)
{
    long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    long long stride = (long long)gridDim.x * blockDim.x;
    for (; i < pixels; i += stride) {
        auto get = [&](int f) -> unsigned int {
            return F32 ? dezing_key(((const unsigned int *)src)[f * pixels + i])
                       : ((const unsigned short *)src)[f * pixels + i];
        };
        auto val = [&](unsigned int k) -> double {
            return F32 ? (double)__uint_as_float(dezing_unkey(k)) : (double)k;
        };
        int h = frames / 2;
        unsigned int hiKey = dezing_select(frames, h, F32 ? 32 : 16, get);
        if (frames % 2 == 1) {
            dst[i] = __double2float_rn(val(hiKey));
        } else {
            unsigned int loKey = dezing_select(frames, h - 1, F32 ? 32 : 16, get);
            dst[i] = __double2float_rn(__ddiv_rn(__dadd_rn(val(loKey), val(hiKey)), 2.0));
        }
    }
}

extern "C" __global__ void dezing_fmedian_u16(float *dst, const unsigned short *src, int frames, long long pixels)
{
    dezing_fmedian<false>(dst, src, frames, pixels);
}

extern "C" __global__ void dezing_fmedian_f32(float *dst, const float *src, int frames, long long pixels)
{
    dezing_fmedian<true>(dst, src, frames, pixels);
}

// dezing_log is portableLog (ops.go) operation for operation (fdlibm's e_log.c),
// each rounded to float64 without contraction.
__device__ double dezing_log(double x)
{
    const double ln2Hi = 6.93147180369123816490e-01, ln2Lo = 1.90821492927058770002e-10;
    const double l1 = 6.666666666666735130e-01, l2 = 3.999999999940941908e-01, l3 = 2.857142874366239149e-01,
                 l4 = 2.222219843214978396e-01, l5 = 1.818357216161805012e-01, l6 = 1.531383769920937332e-01,
                 l7 = 1.479819860511658591e-01;
    if (x != x || x > 1.7976931348623157e308) {
        return x;
    }
    if (x < 0) {
        return __longlong_as_double(0x7ff8000000000001ll); // NaN
    }
    if (x == 0) {
        return __longlong_as_double(0xfff0000000000000ll); // -Inf
    }
    int ki;
    double f1 = frexp(x, &ki);
    if (f1 < 0.70710678118654752440) {
        f1 = __dmul_rn(f1, 2.0);
        ki--;
    }
    double f = __dsub_rn(f1, 1.0);
    double k = (double)ki;
    double s = __ddiv_rn(f, __dadd_rn(2.0, f));
    double s2 = __dmul_rn(s, s);
    double s4 = __dmul_rn(s2, s2);
    double t1 = __dmul_rn(s2, __dadd_rn(l1, __dmul_rn(s4, __dadd_rn(l3, __dmul_rn(s4, __dadd_rn(l5, __dmul_rn(s4, l7)))))));
    double t2 = __dmul_rn(s4, __dadd_rn(l2, __dmul_rn(s4, __dadd_rn(l4, __dmul_rn(s4, l6)))));
    double R = __dadd_rn(t1, t2);
    double hfsq = __dmul_rn(__dmul_rn(0.5, f), f);
    return __dsub_rn(__dmul_rn(k, ln2Hi),
                     __dsub_rn(__dsub_rn(hfsq, __dadd_rn(__dmul_rn(s, __dadd_rn(hfsq, R)), __dmul_rn(k, ln2Lo))), f));
}

// Flat-field: clamp((I − D) / max(F − D, 1e-7), low, high), then −log if
// asked; counts clipped values into *clipped.
template <typename T>
__device__ void dezing_flat(float *dst, const T *src, const float *dark, const float *flat, int frames,
                            long long pixels, float low, float high, int minusLog,
                            unsigned long long *clipped)
{
    long long n = frames * pixels;
    long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    long long stride = (long long)gridDim.x * blockDim.x;
    unsigned long long cnt = 0;
    for (; i < n; i += stride) {
        long long p = i % pixels;
        float den = __fsub_rn(flat[p], dark[p]);
        if (den < 1e-7f) {
            den = 1e-7f;
        }
        float v = __fdiv_rn(__fsub_rn((float)src[i], dark[p]), den);
        if (v < low) {
            v = low;
            cnt++;
        } else if (v > high) {
            v = high;
            cnt++;
        }
        if (minusLog) {
            v = __double2float_rn(-dezing_log((double)v));
        }
        dst[i] = dezing_canon_nan(v);
    }
    if (cnt) {
        atomicAdd(clipped, cnt);
    }
}

extern "C" __global__ void dezing_flat_u16(float *dst, const unsigned short *src, const float *dark,
                                           const float *flat, int frames, long long pixels, float low, float high,
                                           int minusLog, unsigned long long *clipped)
{
    dezing_flat(dst, src, dark, flat, frames, pixels, low, high, minusLog, clipped);
}

extern "C" __global__ void dezing_flat_f32(float *dst, const float *src, const float *dark, const float *flat,
                                           int frames, long long pixels, float low, float high, int minusLog,
                                           unsigned long long *clipped)
{
    dezing_flat(dst, src, dark, flat, frames, pixels, low, high, minusLog, clipped);
}
