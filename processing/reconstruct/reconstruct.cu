// Kernels of the reconstruction pipeline (Ops in ops.go, launched by
// cuda_ops.go): FBP's back-projection. The CPU back-projection
// (fbp.go's backProjectBlock, run by cpuOps) is the reference this is
// tested against (cuda_ops_test.go, and the self-check of selfcheck.go),
// within BackProjectTolerance (device.go). Compile-checked, not yet run
// on a GPU.

// A block is RECON_TX x RECON_TY pixels of one slice; the cosines and
// sines of RECON_ANGLES angles at a time are staged in shared memory.
#define RECON_TX 16
#define RECON_TY 16
#define RECON_ANGLES 256

// recon_backproject: one thread per pixel (i, j) of slice z =
// blockIdx.z, the sum over the angles a of the filtered projection a,
// read by linear interpolation at column
//
//   u = centre + (j - h)·cos a - (i - h)·sin a,   h = size/2 (integer),
//
// (the position of fbp.go's FBP doc, centre = Center + Pad), zero where
// u is outside [0, width-1], scaled by `scale` (π/(2·angles)); pixels
// outside the mask (x² + y² > r2, tested in double as the CPU does; r2 <
// 0: no mask) are zero. filtered holds, per slice and angle, width+2
// floats: a zero, the projection, a zero (so the read at u = width-1 of
// its next sample reads the trailing zero, times t = 0, as the CPU's
// does). trig holds the cosines, then the sines (double; rounded to
// float here). The position is computed in float and the sum kept in
// float, angle after angle: BackProjectTolerance bounds what that costs
// against the CPU's float64.
extern "C" __global__ void recon_backproject(float *__restrict__ dst, const float *__restrict__ filtered,
                                             const double *__restrict__ trig, int angles, int width, int size,
                                             double centre, double r2, float scale)
{
    __shared__ float cs[RECON_ANGLES];
    __shared__ float sn[RECON_ANGLES];
    const int j = blockIdx.x * RECON_TX + threadIdx.x;
    const int i = blockIdx.y * RECON_TY + threadIdx.y;
    const int z = blockIdx.z;
    const int tid = threadIdx.y * RECON_TX + threadIdx.x;
    const double h = (double)(size / 2);
    const double xd = (double)j - h, yd = (double)i - h;
    const bool on = i < size && j < size;
    const bool inside = on && (r2 < 0.0 || xd * xd + yd * yd <= r2);
    const float x = (float)xd, ny = (float)(-yd);
    const float ctr = (float)centre;
    const float last = (float)(width - 1);
    const long long stride = (long long)width + 2;
    const float *slice = filtered + (long long)z * angles * stride + 1;
    float acc = 0.0f;
    for (int a0 = 0; a0 < angles; a0 += RECON_ANGLES) {
        const int na = min(RECON_ANGLES, angles - a0);
        __syncthreads();
        for (int k = tid; k < na; k += RECON_TX * RECON_TY) {
            cs[k] = (float)trig[a0 + k];
            sn[k] = (float)trig[angles + a0 + k];
        }
        __syncthreads();
        if (inside) {
            const float *p = slice + (long long)a0 * stride;
            for (int k = 0; k < na; k++, p += stride) {
                const float u = fmaf(x, cs[k], fmaf(ny, sn[k], ctr));
                if (u >= 0.0f && u <= last) {
                    const int c = (int)u; // u >= 0: truncation is floor
                    const float t = u - (float)c;
                    const float v0 = __ldg(p + c), v1 = __ldg(p + c + 1);
                    acc += fmaf(t, v1 - v0, v0);
                }
            }
        }
    }
    if (on) {
        dst[((long long)z * size + i) * size + j] = inside ? acc * scale : 0.0f;
    }
}
