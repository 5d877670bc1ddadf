package reconstruct

// voxelSize is the slices' voxel size: the pixel size given, else the
// scan's detector pixel (its x size), else 1.
func voxelSize(given float64, scan [3]float64) float64 {
	switch {
	case given > 0:
		return given
	case scan[2] > 0:
		return scan[2]
	}
	return 1
}

// attrs are the parameters of the run, recorded in the output's
// metadata where its format has attributes (HDF5, OME-Zarr): the centre
// (or the sweep's centres) and where it came from, the rows, the
// algorithm and filter, the stripe removal, Paganin's and dezinging's
// settings. The voxel size is recorded by the writer itself.
func (j *reconJob) attrs(centre string) map[string]any {
	c := j.cfg
	a := map[string]any{
		"reconstruct_center_from":   centre,
		"reconstruct_rows":          []int{j.from, j.to},
		"reconstruct_algorithm":     c.algorithm(),
		"reconstruct_filter":        c.Filter.String(),
		"reconstruct_stripes":       c.Stripes,
		"reconstruct_pad":           c.Pad,
		"reconstruct_mask_radius":   c.MaskRadius,
		"reconstruct_paganin":       c.Paganin != nil,
		"reconstruct_dezing":        c.Dezing != nil,
		"reconstruct_voxel_size_um": j.voxel,
	}
	if c.Stripes == "sorting" {
		a["reconstruct_stripe_size"] = c.StripeSize
	}
	if c.Sweep != nil {
		a["reconstruct_center_sweep"] = c.Sweep
	} else {
		a["reconstruct_center"] = j.center
	}
	if pg := c.Paganin; pg != nil {
		a["reconstruct_paganin_energy_kev"] = pg.Energy
		a["reconstruct_paganin_distance_mm"] = pg.Distance * 1000
		a["reconstruct_paganin_pixel_size_um"] = pg.PixelSize
		a["reconstruct_paganin_ratio"] = pg.Ratio
	}
	if dz := c.Dezing; dz != nil {
		a["reconstruct_dezing_kernel"] = dz.Kernel
		a["reconstruct_dezing_dif"] = dz.Dif
	}
	return a
}
