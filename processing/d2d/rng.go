package d2d

import "slices"

// mt19937 is the Mersenne Twister of Matsumoto and Nishimura ("Mersenne
// Twister: a 623-dimensionally equidistributed uniform pseudo-random
// number generator", ACM TOMACS 8(1), 1998), seeded as their
// init_genrand seeds it — which is what numpy's legacy
// np.random.seed(int) does (numpy/random/src/mt19937/mt19937.c,
// mt19937_seed). The challenge draws its replicates with it, so the
// replicates here are the challenge's to the index.
type mt19937 struct {
	mt  [624]uint32
	pos int
}

func newMT19937(seed uint32) *mt19937 {
	r := &mt19937{pos: 624}
	r.mt[0] = seed
	for i := 1; i < 624; i++ {
		r.mt[i] = 1812433253*(r.mt[i-1]^(r.mt[i-1]>>30)) + uint32(i)
	}
	return r
}

// uint32 returns the next tempered 32-bit output.
func (r *mt19937) uint32() uint32 {
	const upper, lower, matrixA = 0x80000000, 0x7fffffff, 0x9908b0df
	if r.pos >= 624 {
		for i := range 624 {
			y := r.mt[i]&upper | r.mt[(i+1)%624]&lower
			v := r.mt[(i+397)%624] ^ y>>1
			if y&1 != 0 {
				v ^= matrixA
			}
			r.mt[i] = v
		}
		r.pos = 0
	}
	y := r.mt[r.pos]
	r.pos++
	y ^= y >> 11
	y ^= y << 7 & 0x9d2c5680
	y ^= y << 15 & 0xefc60000
	y ^= y >> 18
	return y
}

// interval returns a uniform integer in [0, max] by masked rejection, as
// numpy's legacy random_interval does (numpy/random/src/legacy, the
// 32-bit branch: every max here is below 2³²).
func (r *mt19937) interval(max uint32) uint32 {
	if max == 0 {
		return 0
	}
	mask := max
	for s := 1; s < 32; s *= 2 {
		mask |= mask >> s
	}
	for {
		if v := r.uint32() & mask; v <= max {
			return v
		}
	}
}

// replicateRows returns the sorted rows of replicate seed: what the
// challenge's np.random.seed(seed); np.random.choice(np.arange(m),
// size=k, replace=False) followed by a sort draws. numpy's legacy
// choice without replacement and without p takes the first k of
// permutation(m), a Fisher–Yates shuffle of arange(m) from the last
// element down (RandomState.shuffle's _shuffle_raw).
func replicateRows(seed uint32, m, k int) []int {
	r := newMT19937(seed)
	perm := make([]int, m)
	for i := range perm {
		perm[i] = i
	}
	for i := m - 1; i >= 1; i-- {
		j := int(r.interval(uint32(i)))
		perm[i], perm[j] = perm[j], perm[i]
	}
	out := perm[:k]
	slices.Sort(out)
	return out
}
