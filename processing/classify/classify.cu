// CUDA kernels of cellfinder's classification network (processing/classify,
// cuda_ops.go launches them): im2col, the convolutions' epilogue (folded
// batch normalisation per output plane, residual, ReLU), the max pool,
// the global average pool and the dense layer with softmax. The matrix
// products themselves are cuBLAS's (gpu.BLAS). Layouts are channels-last
// as on the CPU (cpu_conv.go): a batch is [cube][y][x][z][channel]; an
// im2col row holds one output position's patch in (kh, kw, kd, channel)
// order, Keras's kernel order. Products and sums of the epilogue are
// rounded one by one (__fmul_rn, __fadd_rn: no fused multiply-add), as
// the CPU computes them.

#include <cuda_fp16.h>

extern "C" {

// classify_im2col writes rows [r0, r0+rows) of the im2col matrix of a
// convolution (input h x w x d x c, output oh x ow x od, kernel kh x kw x
// kd, stride, zero padding) into dst (float) or dst16 (half, when half is
// non-zero): one thread per element.
__global__ void classify_im2col(float *dst, __half *dst16, const float *in, int r0, int rows,
                                int h, int w, int d, int c, int oh, int ow, int od,
                                int kh, int kw, int kd, int sh, int sw, int sd,
                                int ph, int pw, int pd, int half) {
    long long k = (long long)kh * kw * kd * c;
    long long idx = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= k * rows) return;
    long long i = idx / k;
    int col = (int)(idx % k);
    long long r = r0 + i;
    long long p = (long long)oh * ow * od;
    long long b = r / p;
    int q = (int)(r % p);
    int z = q % od;
    q /= od;
    int x = q % ow, y = q / ow;
    int ch = col % c;
    int t = col / c;
    int e = t % kd;
    t /= kd;
    int f = t % kw, a = t / kw;
    int iy = y * sh - ph + a, ix = x * sw - pw + f, iz = z * sd - pd + e;
    float v = 0;
    if (iy >= 0 && iy < h && ix >= 0 && ix < w && iz >= 0 && iz < d)
        v = in[b * h * w * d * c + (((long long)iy * w + ix) * d + iz) * c + ch];
    if (half)
        dst16[idx] = __float2half_rn(v);
    else
        dst[idx] = v;
}

// classify_epilogue finishes rows [r0, r0+rows) of a product in place
// (out points at row r0): v = v·scale[z] + shift[z] (+ res) (ReLU), z the
// row's output plane ((r0 + row) % od).
__global__ void classify_epilogue(float *out, const float *scale, const float *shift, const float *res,
                                  int r0, int rows, int cout, int od, int relu) {
    long long idx = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= (long long)rows * cout) return;
    int z = (int)((r0 + idx / cout) % od);
    float v = __fadd_rn(__fmul_rn(out[idx], scale[z]), shift[z]);
    if (res) v = __fadd_rn(v, res[idx]);
    if (relu && v < 0) v = 0;
    out[idx] = v;
}

// classify_maxpool max-pools n cubes (h x w x d x c) with kernel k and
// stride s, no padding, into dst (oh x ow x od x c): a thread per output.
__global__ void classify_maxpool(float *dst, const float *src, int n, int h, int w, int d, int c,
                                 int oh, int ow, int od, int kh, int kw, int kd, int sh, int sw, int sd) {
    long long idx = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long per = (long long)oh * ow * od * c;
    if (idx >= per * n) return;
    long long b = idx / per;
    int q = (int)(idx % per);
    int ch = q % c;
    q /= c;
    int z = q % od;
    q /= od;
    int x = q % ow, y = q / ow;
    const float *cube = src + b * h * w * d * c;
    float m = -INFINITY;
    for (int a = 0; a < kh; a++)
        for (int f = 0; f < kw; f++)
            for (int e = 0; e < kd; e++) {
                float v = cube[(((long long)(y * sh + a) * w + x * sw + f) * d + z * sd + e) * c + ch];
                m = fmaxf(m, v);
            }
    dst[idx] = m;
}

// classify_gap sets feat[b][f] to the mean over the positions of cube b's
// feature f (one thread each, summing in position order, as the CPU).
__global__ void classify_gap(float *feat, const float *x, int n, int positions, int nf) {
    long long idx = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= (long long)n * nf) return;
    long long b = idx / nf;
    int f = (int)(idx % nf);
    const float *src = x + b * positions * nf + f;
    float s = 0;
    for (int p = 0; p < positions; p++) s = __fadd_rn(s, src[(long long)p * nf]);
    feat[idx] = __fmul_rn(s, __fdiv_rn(1.0f, (float)positions));
}

// classify_dense sets probs[b][0..1] to the softmax of the dense layer
// over cube b's features (one thread per cube).
__global__ void classify_dense(float *probs, const float *feat, const float *kernel, const float *bias, int n, int nf) {
    int b = blockIdx.x * blockDim.x + threadIdx.x;
    if (b >= n) return;
    float l0 = bias[0], l1 = bias[1];
    const float *f = feat + (long long)b * nf;
    for (int c = 0; c < nf; c++) {
        l0 = __fadd_rn(l0, __fmul_rn(f[c], kernel[2 * c]));
        l1 = __fadd_rn(l1, __fmul_rn(f[c], kernel[2 * c + 1]));
    }
    float m = fmaxf(l0, l1);
    double e0 = exp((double)__fsub_rn(l0, m)), e1 = exp((double)__fsub_rn(l1, m));
    probs[2 * b] = (float)(e0 / (e0 + e1));
    probs[2 * b + 1] = (float)(e1 / (e0 + e1));
}

// classify_to_half converts n floats to half (round to nearest even).
__global__ void classify_to_half(__half *dst, const float *src, long long n) {
    long long idx = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (idx < n) dst[idx] = __float2half_rn(src[idx]);
}

}
