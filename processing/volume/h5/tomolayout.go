package h5

import "gonum.org/v1/hdf5"

// tomoLayout is where a tomography scan keeps its frames, image keys and
// rotation angles; key and angles are empty when the file has none.
type tomoLayout struct{ data, key, angles string }

// findTomo finds a tomography scan in f. Diamond's layout comes first
// (frames at TomoData; a scan without image_key is all projections). Else
// it looks for an NXtomo entry as the NeXus application definition and
// other facilities lay it out: a top-level group E, or a group one level
// below it (an NXsubentry), with frames at E/instrument/detector/data or
// E/data/data and image_key at E/instrument/detector/image_key or
// E/data/image_key. There image_key is required: without it a 3D dataset
// is just a volume. Call with lib held.
func findTomo(f *file) (tomoLayout, bool) {
	if exists(f.f, TomoData) {
		at := tomoLayout{data: TomoData}
		if exists(f.f, TomoImageKey) {
			at.key = TomoImageKey
		}
		if exists(f.f, TomoAngles) {
			at.angles = TomoAngles
		}
		return at, true
	}
	for _, e := range entries(f) {
		data := firstExisting(f, e+"/instrument/detector/data", e+"/data/data")
		key := firstExisting(f, e+"/instrument/detector/image_key", e+"/data/image_key")
		if data != "" && key != "" {
			angles := firstExisting(f, e+"/data/rotation_angle", e+"/sample/rotation_angle")
			return tomoLayout{data: data, key: key, angles: angles}, true
		}
	}
	return tomoLayout{}, false
}

// entries lists the top-level groups of f and the groups directly below
// them, in file order. Call with lib held.
func entries(f *file) []string {
	var out []string
	for _, top := range subgroups(f.f, "") {
		out = append(out, top)
		out = append(out, subgroups(f.f, top)...)
	}
	return out
}

// subgroups lists the groups directly below the group at path ("" for
// the root), as full paths. Call with lib held.
func subgroups(f *hdf5.File, path string) []string {
	g, err := f.OpenGroup(path + "/")
	if err != nil {
		return nil
	}
	defer g.Close()
	n, err := g.NumObjects()
	if err != nil {
		return nil
	}
	var out []string
	for i := uint(0); i < n; i++ {
		name, err := g.ObjectNameByIndex(i)
		if err != nil {
			continue
		}
		if t, err := g.ObjectTypeByIndex(i); err == nil && t == hdf5.H5G_GROUP {
			out = append(out, path+"/"+name)
		}
	}
	return out
}

// firstExisting returns the first path that names a dataset of f (soft
// links to one included), or "". Call with lib held.
func firstExisting(f *file, paths ...string) string {
	for _, p := range paths {
		if !exists(f.f, p) {
			continue
		}
		if ds, err := f.f.OpenDataset(p); err == nil {
			ds.Close()
			return p
		}
	}
	return ""
}
