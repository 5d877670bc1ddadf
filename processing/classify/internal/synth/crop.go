package synth

// Crop makes a two-channel uint16 volume of shape (z, y, x) like a crop
// of a light-sheet brain: channel 0 (signal) 200 plus noise in [0, 256)
// and a soma at each point, channel 1 (background) a gradient plus half
// the noise and a faint copy of each soma. A soma adds
// max(0, 36 − dy² − dx² − 4dz²) times 20 (signal) or 3 (background):
// about 12 voxels across and 7 planes deep. Noise of voxel i of channel
// c is the top byte of SplitMix64(seed + c·2^40 + i).
func Crop(shape [3]int, points [][3]int, seed uint64) (signal, background []uint16) {
	nz, ny, nx := shape[0], shape[1], shape[2]
	n := nz * ny * nx
	signal, background = make([]uint16, n), make([]uint16, n)
	for i := range n {
		z, rem := i/(ny*nx), i%(ny*nx)
		y, x := rem/nx, rem%nx
		noise0 := SplitMix64(seed+uint64(i)) >> 56
		noise1 := SplitMix64(seed+1<<40+uint64(i)) >> 56
		signal[i] = uint16(200 + noise0)
		background[i] = uint16(150 + uint64((y+x)/8+2*z) + noise1/2)
	}
	for _, p := range points {
		for dz := -3; dz <= 3; dz++ {
			for dy := -6; dy <= 6; dy++ {
				for dx := -6; dx <= 6; dx++ {
					z, y, x := p[0]+dz, p[1]+dy, p[2]+dx
					v := 36 - dy*dy - dx*dx - 4*dz*dz
					if v <= 0 || z < 0 || z >= nz || y < 0 || y >= ny || x < 0 || x >= nx {
						continue
					}
					i := (z*ny+y)*nx + x
					signal[i] = uint16(min(65535, int(signal[i])+20*v))
					background[i] = uint16(min(65535, int(background[i])+3*v))
				}
			}
		}
	}
	return signal, background
}
