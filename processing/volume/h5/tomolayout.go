package h5

import (
	"path"
	"sort"
	"strings"

	"github.com/voxlab/voxlab/processing/volume"
)

// tomoLayout is where a tomography scan keeps its frames, image keys and
// rotation angles; key and angles are empty when the file has none.
type tomoLayout struct{ data, key, angles string }

// findTomo finds a tomography scan in f. Diamond's layout comes first
// (frames at TomoData; a scan without image_key is all projections). Else
// it looks for an NXtomo entry as the NeXus application definition and
// other facilities lay it out: a top-level group E, or a group one level
// below it (an NXsubentry), with frames at E/instrument/detector/data or
// E/data/data and image_key at E/instrument/detector/image_key or
// E/data/image_key, or with data and image_key side by side in any group
// of E/instrument (Diamond's DIAD names its detector "imaging"), the data
// then named by the NXdata signal that links to it, if one does. Links,
// soft and external, are followed. There image_key is required: without
// it a 3D dataset is just a volume. Call with lib held.
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
	w, err := walkLinks(f)
	if err != nil {
		return tomoLayout{}, false
	}
	nodes := w.nodes
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
	for _, n := range nodes {
		d := n.Path
		if n.Kind != "group" || path.Dir(path.Dir(d)) == "/" || path.Base(path.Dir(d)) != "instrument" || strings.Count(d, "/") > 4 {
			continue
		}
		if !datasets[d+"/data"] || !datasets[d+"/image_key"] {
			continue
		}
		e := path.Dir(path.Dir(d))
		at := tomoLayout{data: d + "/data", key: d + "/image_key", angles: first(e+"/data/rotation_angle", e+"/sample/rotation_angle", d+"/rotation_angle")}
		// The NXdata signal leading to the same frames names them.
		if want := resolve(f, at.data).key; want != "" {
			var named []string
			for s := range nxSignals(f, nodes) {
				if datasets[s] && resolve(f, s).key == want {
					named = append(named, s)
				}
			}
			if len(named) > 0 {
				sort.Strings(named)
				at.data = named[0]
				if at.angles == "" {
					at.angles = nxAngles(nodes, at.data)
				}
			}
		}
		return at, true
	}
	return tomoLayout{}, false
}

// nxAngles returns the rotation angles beside a scan's frames in their
// NXdata group, where DIAD keeps them (/entry/imaging/gts_theta_value,
// the dataset httomo's own tests load as the k11 scan's angles): a 1-D
// float dataset of one value per frame named for an angle ("theta",
// "angle", "rotation"); "" when there is none, or more than one.
func nxAngles(nodes []volume.Node, data string) string {
	group, frames := path.Dir(data), -1
	for _, n := range nodes {
		if n.Path == data && len(n.Shape) > 0 {
			frames = n.Shape[0]
		}
	}
	var found []string
	for _, n := range nodes {
		name := strings.ToLower(path.Base(n.Path))
		if path.Dir(n.Path) != group || n.Kind == "group" || len(n.Shape) != 1 || n.Shape[0] != frames ||
			!strings.HasPrefix(n.DType, "float") {
			continue
		}
		if strings.Contains(name, "theta") || strings.Contains(name, "angle") || strings.Contains(name, "rotation") {
			found = append(found, n.Path)
		}
	}
	if len(found) != 1 {
		return ""
	}
	return found[0]
}
