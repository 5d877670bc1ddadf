// Kernels of the cell detection pipeline (processing/detect), the CUDA
// twins of cpu_plane.go and cpu_ball.go, launched by cuda_ops.go. They
// give the same bits as the CPU kernels: float32 arithmetic in the same
// order with every operation rounded on its own (the _rn intrinsics keep
// nvcc from fusing multiply-adds), and every reduction either exact
// (integers, min/max) or sequential in the CPU's order. Work buffer
// regions are laid out by WorkLayout (ops.go).

#include <stdint.h>

#define DETECT_TX 32
#define DETECT_TY 8

// Stats slots (stat* of ops.go); slot 6 holds the median's int min/max.
#define ST_MIN 0
#define ST_MAX 1
#define ST_MEAN 2
#define ST_SD 3
#define ST_THR 4
#define ST_BRAIN 5
#define ST_MINMAX 6

__device__ __forceinline__ int refl(int i, int n) {
  if (n == 1) return 0;
  int p = 2 * n;
  i %= p;
  if (i < 0) i += p;
  if (i >= n) i = p - 1 - i;
  return i;
}

__device__ __forceinline__ int clipped(const void* src, int eb, int idx, int clip) {
  int v = eb == 1 ? (int)((const uint8_t*)src)[idx] : (int)((const uint16_t*)src)[idx];
  return min(v, clip);
}

__device__ __forceinline__ int med3(int a, int b, int c) { return max(min(a, b), min(max(a, b), c)); }

extern "C" __global__ void detect_init(double* stats) {
  int* mm = (int*)(stats + ST_MINMAX);
  mm[0] = 0x7fffffff;
  mm[1] = -1;
}

// 3x3 median of the clipped source with zero padding, from a shared tile;
// the plane's min and max go to the stats slot by warp reduction and
// atomics (exact in any order).
extern "C" __global__ void detect_median(const void* src, int eb, int H, int W, int clip, float* A, double* stats) {
  __shared__ int tile[DETECT_TY + 2][DETECT_TX + 2];
  int x0 = blockIdx.x * DETECT_TX, y0 = blockIdx.y * DETECT_TY;
  for (int i = threadIdx.y * DETECT_TX + threadIdx.x; i < (DETECT_TY + 2) * (DETECT_TX + 2); i += DETECT_TX * DETECT_TY) {
    int ty = i / (DETECT_TX + 2), tx = i % (DETECT_TX + 2);
    int y = y0 + ty - 1, x = x0 + tx - 1;
    tile[ty][tx] = (y >= 0 && y < H && x >= 0 && x < W) ? clipped(src, eb, y * W + x, clip) : 0;
  }
  __syncthreads();
  int x = x0 + threadIdx.x, y = y0 + threadIdx.y;
  int mn = 0x7fffffff, mx = -1;
  if (x < W && y < H) {
    int lo[3], mid[3], hi[3];
    for (int c = 0; c < 3; c++) {
      int a = tile[threadIdx.y][threadIdx.x + c], b = tile[threadIdx.y + 1][threadIdx.x + c], d = tile[threadIdx.y + 2][threadIdx.x + c];
      int l = min(a, min(b, d)), h = max(a, max(b, d));
      lo[c] = l; hi[c] = h; mid[c] = a + b + d - l - h;
    }
    int m = med3(max(lo[0], max(lo[1], lo[2])), med3(mid[0], mid[1], mid[2]), min(hi[0], min(hi[1], hi[2])));
    A[y * W + x] = (float)m;
    mn = mx = m;
  }
  for (int o = 16; o > 0; o >>= 1) {
    mn = min(mn, __shfl_down_sync(0xffffffff, mn, o));
    mx = max(mx, __shfl_down_sync(0xffffffff, mx, o));
  }
  if ((threadIdx.x & 31) == 0 && mx >= 0) {
    int* mm = (int*)(stats + ST_MINMAX);
    atomicMin(mm, mn);
    atomicMax(mm + 1, mx);
  }
}

// Vertical pass of the Gaussian on the normalised median, reflecting rows.
extern "C" __global__ void detect_gauss_v(const float* A, float* T, const double* stats, const float* w, int R, int H, int W) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= W || y >= H) return;
  const int* mm = (const int*)(stats + ST_MINMAX);
  float mn = (float)mm[0];
  float rng = __fsub_rn((float)mm[1], mn);
  if (rng == 0.0f) rng = 1.0f;
  float s = __fmul_rn(w[0], __fdiv_rn(__fsub_rn(A[y * W + x], mn), rng));
  for (int i = 1; i <= R; i++) {
    float a = __fdiv_rn(__fsub_rn(A[refl(y - i, H) * W + x], mn), rng);
    float b = __fdiv_rn(__fsub_rn(A[refl(y + i, H) * W + x], mn), rng);
    s = __fadd_rn(s, __fmul_rn(w[i], __fadd_rn(a, b)));
  }
  T[y * W + x] = s;
}

__device__ __forceinline__ float gauss_h(const float* row, const float* w, int R, int W, int x) {
  float s = __fmul_rn(w[0], row[x]);
  for (int i = 1; i <= R; i++) s = __fadd_rn(s, __fmul_rn(w[i], __fadd_rn(row[refl(x - i, W)], row[refl(x + i, W)])));
  return s;
}

// Horizontal pass of the Gaussian into a shared tile of (rows, cols) ±1
// (reflected), then the negated 5-point Laplacian of it.
extern "C" __global__ void detect_gauss_h_laplace(const float* T, float* E, const float* w, int R, int H, int W) {
  __shared__ float g[DETECT_TY + 2][DETECT_TX + 2];
  int x0 = blockIdx.x * DETECT_TX, y0 = blockIdx.y * DETECT_TY;
  for (int i = threadIdx.y * DETECT_TX + threadIdx.x; i < (DETECT_TY + 2) * (DETECT_TX + 2); i += DETECT_TX * DETECT_TY) {
    int ty = i / (DETECT_TX + 2), tx = i % (DETECT_TX + 2);
    int y = y0 + ty - 1, x = x0 + tx - 1;
    if (y > H || x > W) continue;
    int ry = refl(y, H), rx = refl(x, W);
    g[ty][tx] = gauss_h(T + (size_t)ry * W, w, R, W, rx);
  }
  __syncthreads();
  int x = x0 + threadIdx.x, y = y0 + threadIdx.y;
  if (x >= W || y >= H) return;
  int ty = threadIdx.y + 1, tx = threadIdx.x + 1;
  float c = g[ty][tx];
  float ly = __fsub_rn(__fadd_rn(g[ty - 1][tx], g[ty + 1][tx]), __fmul_rn(2.0f, c));
  float lx = __fsub_rn(__fadd_rn(g[ty][tx - 1], g[ty][tx + 1]), __fmul_rn(2.0f, c));
  E[y * W + x] = -__fadd_rn(ly, lx);
}

// Each row's sum and sum of squares of E, left to right (24-byte row
// entries: int32 min, int32 max, float64 sum, float64 sum of squares).
extern "C" __global__ void detect_rowstats(const float* E, char* rows, int H, int W) {
  int y = blockIdx.x * blockDim.x + threadIdx.x;
  if (y >= H) return;
  double s = 0, q = 0;
  const float* e = E + (size_t)y * W;
  for (int x = 0; x < W; x++) {
    double d = (double)e[x];
    s = __dadd_rn(s, d);
    q = __dadd_rn(q, __dmul_rn(d, d));
  }
  double* ent = (double*)(rows + (size_t)y * 24 + 8);
  ent[0] = s;
  ent[1] = q;
}

__device__ void mean_sd(double s, double q, long long n, double* mean, double* sd) {
  *mean = __ddiv_rn(s, (double)n);
  if (n < 2) { *sd = 0; return; }
  double v = __ddiv_rn(__dsub_rn(q, __dmul_rn(s, *mean)), (double)(n - 1));
  *sd = sqrt(fmax(v, 0.0));
}

// The plane's mean, SD and threshold from the row sums, in row order.
extern "C" __global__ void detect_stats(const char* rows, double* stats, int H, int W, double nsd) {
  double s = 0, q = 0;
  for (int y = 0; y < H; y++) {
    const double* ent = (const double*)(rows + (size_t)y * 24 + 8);
    s = __dadd_rn(s, ent[0]);
    q = __dadd_rn(q, ent[1]);
  }
  double mean, sd;
  mean_sd(s, q, (long long)H * W, &mean, &sd);
  const int* mm = (const int*)(stats + ST_MINMAX);
  stats[ST_MIN] = (double)mm[0];
  stats[ST_MAX] = (double)mm[1];
  stats[ST_MEAN] = mean;
  stats[ST_SD] = sd;
  stats[ST_THR] = __dadd_rn(mean, __dmul_rn(nsd, sd));
}

// Sums of E over the local-tile segments, one thread per segment, row by
// row and left to right.
extern "C" __global__ void detect_segsum(const float* E, double* seg, int H, int W, int segsY, int segsX, int offY, int offX, int lenY, int lenX) {
  int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= segsY * segsX) return;
  int sy = k / segsX, sx = k % segsX;
  int ya = offY + sy * lenY, yb = min(ya + lenY, H);
  int xa = offX + sx * lenX, xb = min(xa + lenX, W);
  double s = 0, q = 0;
  for (int y = ya; y < yb; y++)
    for (int x = xa; x < xb; x++) {
      double d = (double)E[(size_t)y * W + x];
      s = __dadd_rn(s, d);
      q = __dadd_rn(q, __dmul_rn(d, d));
    }
  seg[2 * k] = s;
  seg[2 * k + 1] = q;
}

// Each local tile's threshold from its two (or one) segments per axis.
extern "C" __global__ void detect_localthr(const double* seg, double* thr, int H, int W, int tilesY, int tilesX, int segsX,
                                           int offY, int offX, int lenY, int lenX, int doY, int doX, double nsd) {
  int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= tilesY * tilesX) return;
  int ty = k / tilesX, tx = k % tilesX;
  double s = 0, q = 0;
  long long n = 0;
  for (int a = ty; a < ty + (doY ? 2 : 1); a++) {
    int ya = offY + a * lenY, yb = min(ya + lenY, H);
    for (int b = tx; b < tx + (doX ? 2 : 1); b++) {
      int xa = offX + b * lenX, xb = min(xa + lenX, W);
      int j = 2 * (a * segsX + b);
      s = __dadd_rn(s, seg[j]);
      q = __dadd_rn(q, seg[j + 1]);
      n += (long long)(yb - ya) * (xb - xa);
    }
  }
  double mean, sd;
  mean_sd(s, q, n, &mean, &sd);
  thr[k] = __dadd_rn(mean, __dmul_rn(nsd, sd));
}

__device__ __forceinline__ int tile_of(int i, int doIt, int shift, int stride, int tiles) {
  if (!doIt) return 0;
  return min(max((i + shift) / stride - 1, 0), tiles - 1);
}

// The mask: E above the plane threshold (and its local tile's).
extern "C" __global__ void detect_threshold(const float* E, uint8_t* mask, const double* stats, const double* lthr, int H, int W,
                                            int on, int doY, int doX, int shiftY, int shiftX, int stride, int tilesY, int tilesX) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= W || y >= H) return;
  double d = (double)E[(size_t)y * W + x];
  bool above = d > stats[ST_THR];
  if (on) above = above && d > lthr[tile_of(y, doY, shiftY, stride, tilesY) * tilesX + tile_of(x, doX, shiftX, stride, tilesX)];
  mask[(size_t)y * W + x] = above ? 1 : 0;
}

// In-brain tiles: a full tile is in when its mean of the clipped source
// reaches the corner tile's mean + 2·SD (ddof 0) + 1; partial tiles, and all
// tiles of a plane smaller than one tile, are out. One thread per tile.
extern "C" __global__ void detect_brain(const void* src, int eb, int H, int W, int clip, int t, uint8_t* out, int tilesY, int tilesX, double* stats) {
  int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= tilesY * tilesX) return;
  int ty = k / tilesX, tx = k % tilesX;
  if (H < t || W < t) {
    out[k] = 0;
    if (k == 0) stats[ST_BRAIN] = __longlong_as_double(0x7ff0000000000000LL);  // +Inf
    return;
  }
  if ((ty + 1) * t > H || (tx + 1) * t > W) {
    out[k] = 0;
    return;
  }
  long long cs = 0, cq = 0, s = 0;
  for (int y = 0; y < t; y++)
    for (int x = 0; x < t; x++) {
      long long v = clipped(src, eb, y * W + x, clip);
      cs += v;
      cq += v * v;
      s += clipped(src, eb, (ty * t + y) * W + tx * t + x, clip);
    }
  double n = (double)t * t;
  double mean = __ddiv_rn((double)cs, n);
  double v = __ddiv_rn(__dsub_rn((double)cq, __dmul_rn((double)cs, mean)), n);
  double thr = __dadd_rn(__dadd_rn(mean, __dmul_rn(2.0, sqrt(fmax(v, 0.0)))), 1.0);
  if (k == 0) stats[ST_BRAIN] = thr;
  out[k] = __ddiv_rn((double)s, n) >= thr ? 1 : 0;
}

// The ball filter for count middle planes (grid z), from a shared tile of
// each plane of the window: a centre where the weights of the thresholded
// voxels under the kernel sum to more than thr and (with tiles) the
// middle plane's tile is in the brain. Integer sums: exact in any order.
extern "C" __global__ void detect_ball(uint8_t* out, const uint8_t* masks, const uint8_t* tiles, const int* w, int H, int W,
                                       int KZ, int KY, int KX, long long thr, int ring, int first, int midz, int offy, int offx,
                                       int useTiles, int tileSize, int tilesY, int tilesX) {
  extern __shared__ uint8_t tile[];
  int tw = DETECT_TX + KX - 1, th = DETECT_TY + KY - 1;
  int i = blockIdx.z;
  int x0 = blockIdx.x * DETECT_TX, y0 = blockIdx.y * DETECT_TY;
  int xc = x0 + threadIdx.x, yc = y0 + threadIdx.y;
  size_t plane = (size_t)H * W;
  long long sum = 0;
  for (int dz = 0; dz < KZ; dz++) {
    const uint8_t* m = masks + (size_t)((first + i + dz) % ring) * plane;
    __syncthreads();
    for (int j = threadIdx.y * DETECT_TX + threadIdx.x; j < tw * th; j += DETECT_TX * DETECT_TY) {
      int y = y0 - offy + j / tw, x = x0 - offx + j % tw;
      tile[j] = (y >= 0 && y < H && x >= 0 && x < W) ? m[(size_t)y * W + x] : 0;
    }
    __syncthreads();
    for (int dy = 0; dy < KY; dy++)
      for (int dx = 0; dx < KX; dx++)
        if (tile[(threadIdx.y + dy) * tw + threadIdx.x + dx]) sum += w[(dz * KY + dy) * KX + dx];
  }
  if (xc >= W || yc >= H) return;
  bool valid = yc >= offy && yc < H - (KY - 1 - offy) && xc >= offx && xc < W - (KX - 1 - offx);
  bool in = true;
  if (useTiles) {
    int mid = (first + i + midz) % ring;
    in = tiles[(size_t)mid * tilesY * tilesX + (yc / tileSize) * tilesX + xc / tileSize] != 0;
  }
  out[(size_t)i * plane + (size_t)yc * W + xc] = valid && in && sum > thr ? 1 : 0;
}
