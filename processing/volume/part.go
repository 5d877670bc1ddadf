package volume

// Part is what a volume opened from a file's bare path leaves out of the
// dataset it was cut from: a NeXus tomography scan named without a
// dataset opens, in every command, as its projections, without its darks
// and flats.
type Part struct {
	// Kept names what the volume holds: "1800 projections".
	Kept string `json:"kept"`
	// Left names what it leaves out, and by what marker: "20 darks and
	// 50 flats (image_key)".
	Left string `json:"left_out"`
	// Whole is the spec that names the whole dataset:
	// "scan.nxs:/entry1/tomo_entry/data/data".
	Whole string `json:"whole"`
}

// Text says it as convert reports it: "1800 projections; left out 20
// darks and 50 flats (image_key): give scan.nxs:/entry1/tomo_entry/
// data/data for every frame".
func (p Part) Text() string {
	return p.Kept + "; left out " + p.Left + ": give " + p.Whole + " for every frame"
}

// PartOf returns the Part of v, and whether v is part of its file's
// dataset (a Source that is one has a method Part() Part, found through
// wrappers as AsBoxReader finds a BoxReader).
func PartOf(v *Volume) (Part, bool) {
	for src := v.Source(); src != nil; {
		if p, ok := src.(interface{ Part() Part }); ok {
			return p.Part(), true
		}
		w, ok := src.(interface{ Source() Source })
		if !ok {
			break
		}
		src = w.Source()
	}
	return Part{}, false
}
