package h5

import "strings"

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
	nodes, err := walk(f)
	if err != nil {
		return tomoLayout{}, false
	}
	datasets := map[string]bool{} // soft links to datasets included
	for _, n := range nodes {
		datasets[n.Path] = n.Kind == "dataset" || (n.Kind == "link" && n.DType != notDataset)
	}
	first := func(paths ...string) string {
		for _, p := range paths {
			if datasets[p] {
				return p
			}
		}
		return ""
	}
	for _, n := range nodes {
		if e := n.Path; n.Kind == "group" && e != "/" && strings.Count(e, "/") <= 2 {
			data := first(e+"/instrument/detector/data", e+"/data/data")
			key := first(e+"/instrument/detector/image_key", e+"/data/image_key")
			if data != "" && key != "" {
				return tomoLayout{data: data, key: key, angles: first(e+"/data/rotation_angle", e+"/sample/rotation_angle")}, true
			}
		}
	}
	return tomoLayout{}, false
}
