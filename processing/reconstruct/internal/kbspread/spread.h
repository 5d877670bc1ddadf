// Kaiser-Bessel spreading of gridrec's polar samples onto its Cartesian
// grid (kbspread.go says what and why).
#include <math.h>

/* No fused multiply-adds: every path and clone rounds alike. */
#pragma GCC optimize("fp-contract=off")

#define KBW 6 /* kernel width in cells: a sample meets KBW+1 per axis */

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define KB_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define KB_CLONES
#endif

/* kb_ceil is ceil(x) as an int, for |x| within an int: truncation,
   raised by one where it fell below x (no call to libm's ceil in the
   default clone, which has no rounding instruction). */
static inline int kb_ceil(double x) {
	int t = (int)x;
	return (double)t < x ? t + 1 : t;
}

typedef float kb_v16 __attribute__((vector_size(64)));
typedef float kb_v16u __attribute__((vector_size(64), aligned(4))); /* unaligned */

static inline int kb_wrap(int i, int g) { return i < 0 ? i + g : (i >= g ? i - g : i); }

/* kb_weights fills w with the kernel at cells c0..c0+KBW for a sample at
   x: rows f and f+1 of the table (weights by the sample's offset,
   steps+1 rows of KBW+1), interpolated linearly. */
static inline void kb_weights(double *w, const double *rows, int steps, int c0, double x) {
	double t = ((double)c0 - x + KBW / 2) * steps;
	int f = (int)t;
	if (f > steps - 1) f = steps - 1;
	double u = t - f;
	const double *a = rows + f * (KBW + 1), *b = a + (KBW + 1);
	for (int k = 0; k <= KBW; k++) w[k] = a[k] + u * (b[k] - a[k]);
}

/* kb_spread adds v = (vr, vi) at grid position (x, y) to the cells of
   columns [b0, b1) of the g x g complex grid (interleaved floats). Each
   cell gets wy·(v·wx) in float, the same product whatever the band, so
   the grid does not depend on how many cores split it. */
static inline void kb_spread(float *cells, int g, double x, double y, double vr, double vi,
	const double *rows, int steps, int b0, int b1) {
	int x0 = kb_ceil(x - KBW / 2), y0 = kb_ceil(y - KBW / 2);
	/* The kernel's first column on the grid: a negative x (half of
	   every projection's samples) is at g + x, and testing x0 itself
	   sent all of those down the indexed path, in every band. */
	int gx0 = kb_wrap(x0, g);
	/* inside: the kernel's columns and one more (the vector's padding
	   adds 0 to it) lie in the band, unwrapped. */
	int inside = gx0 >= b0 && gx0 + KBW + 1 < b1;
	if (!inside && gx0 + KBW < g && (gx0 + KBW < b0 || gx0 >= b1)) return;
	double wx[KBW + 1], wy[KBW + 1];
	kb_weights(wx, rows, steps, x0, x);
	kb_weights(wy, rows, steps, y0, y);
	float p[16] = {0};
	for (int k = 0; k <= KBW; k++) {
		p[2 * k] = (float)(vr * wx[k]);
		p[2 * k + 1] = (float)(vi * wx[k]);
	}
	if (inside) {
		/* A kernel row is 14 adjacent floats: one vector of 16, the
		   last two lanes 0 (x + 0 is x). */
		kb_v16 p0;
		__builtin_memcpy(&p0, p, 64);
		for (int ky = 0; ky <= KBW; ky++) {
			kb_v16u *row = (kb_v16u *)(cells + 2 * ((long)kb_wrap(y0 + ky, g) * g + gx0));
			float s = (float)wy[ky];
			row[0] += s * p0;
		}
		return;
	}
	/* At the band's edge or the grid's wrap: the band's cells alone
	   (another core's band is another core's to write). */
	int ix[KBW + 1], ks[KBW + 1], m = 0;
	for (int k = 0; k <= KBW; k++) {
		int gx = kb_wrap(x0 + k, g);
		if (gx >= b0 && gx < b1) {
			ix[m] = gx;
			ks[m++] = k;
		}
	}
	for (int ky = 0; ky <= KBW; ky++) {
		float *row = cells + 2 * (long)kb_wrap(y0 + ky, g) * g;
		float s = (float)wy[ky];
		for (int j = 0; j < m; j++) {
			row[2 * ix[j]] += s * p[2 * ks[j]];
			row[2 * ix[j] + 1] += s * p[2 * ks[j] + 1];
		}
	}
}

/* kb_round spreads frequencies 0..half-1 of na projections' transforms
   (interleaved floats, stride complex values apart), each times its
   phase (interleaved doubles; 0: skipped), at radius k·scale along
   (cos, −sin) of its angle (−k·scale for k = nyq), onto columns
   [b0, b1): frequency by frequency across the projections, so that
   consecutive samples fall in neighbouring cells. */
KB_CLONES
static void kb_round(float *cells, int g, const float *spectra, int stride, int na,
	const double *phase, int half, int nyq, double scale, const double *cs, const double *sn,
	const double *rows, int steps, int b0, int b1) {
	for (int k = 0; k < half; k++) {
		double pr = phase[2 * k], pi = phase[2 * k + 1];
		if (pr == 0 && pi == 0) continue;
		double kk = k * scale;
		if (k == nyq) kk = -kk;
		for (int a = 0; a < na; a++) {
			double vr = spectra[2 * ((long)a * stride + k)], vi = spectra[2 * ((long)a * stride + k) + 1];
			kb_spread(cells, g, kk * cs[a], -kk * sn[a], vr * pr - vi * pi, vr * pi + vi * pr, rows, steps, b0, b1);
		}
	}
}
