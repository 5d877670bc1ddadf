package volume

import (
	"encoding/xml"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// OME-TIFF (OME Data Model, https://docs.openmicroscopy.org/ome-model/):
// the first page's ImageDescription is OME-XML whose Pixels element gives
// the sizes of Z, C and T and DimensionOrder, the order in which the
// file's planes (its pages) run, fastest first after X and Y ("XYCZT":
// channels fastest, then z, then time). voxlab opens one channel's z
// planes at one time point as a volume: channel 0 at time 0 unless the
// spec names one, "file.ome.tif:/channel/1". ImageJ hyperstacks with
// channels (Fiji's "channels=2 slices=40" description, planes in C, Z, T
// order) are read the same way.

// omePixels is the Pixels element of the first Image.
type omePixels struct {
	DimensionOrder string  `xml:"DimensionOrder,attr"`
	Type           string  `xml:"Type,attr"`
	SizeX          int     `xml:"SizeX,attr"`
	SizeY          int     `xml:"SizeY,attr"`
	SizeZ          int     `xml:"SizeZ,attr"`
	SizeC          int     `xml:"SizeC,attr"`
	SizeT          int     `xml:"SizeT,attr"`
	PhysicalSizeX  float64 `xml:"PhysicalSizeX,attr"`
	PhysicalSizeY  float64 `xml:"PhysicalSizeY,attr"`
	PhysicalSizeZ  float64 `xml:"PhysicalSizeZ,attr"`
	UnitX          string  `xml:"PhysicalSizeXUnit,attr"`
	UnitY          string  `xml:"PhysicalSizeYUnit,attr"`
	UnitZ          string  `xml:"PhysicalSizeZUnit,attr"`
	Channels       []struct {
		Name string `xml:"Name,attr"`
	} `xml:"Channel"`
	// imageJ marks channels from an ImageJ description, not OME-XML.
	imageJ   bool
	TiffData []struct {
		IFD        int `xml:"IFD,attr"`
		PlaneCount int `xml:"PlaneCount,attr"`
		FirstZ     int `xml:"FirstZ,attr"`
		FirstC     int `xml:"FirstC,attr"`
		FirstT     int `xml:"FirstT,attr"`
		UUID       *struct {
			FileName string `xml:"FileName,attr"`
		} `xml:"UUID"`
	} `xml:"TiffData"`
}

type omeXML struct {
	Images []struct {
		Pixels omePixels `xml:"Pixels"`
	} `xml:"Image"`
}

// parseOME returns the first image's Pixels of an OME-XML description,
// or nil when desc is not OME-XML.
func parseOME(desc string) (*omePixels, error) {
	if !strings.Contains(desc, "<OME") {
		return nil, nil
	}
	var o omeXML
	if err := xml.Unmarshal([]byte(desc), &o); err != nil {
		return nil, fmt.Errorf("OME-XML description: %w", err)
	}
	if len(o.Images) == 0 {
		return nil, fmt.Errorf("OME-XML description holds no Image")
	}
	px := o.Images[0].Pixels
	px.SizeZ, px.SizeC, px.SizeT = max(px.SizeZ, 1), max(px.SizeC, 1), max(px.SizeT, 1)
	order := px.DimensionOrder
	if len(order) != 5 || order[:2] != "XY" || !strings.ContainsRune(order[2:], 'Z') ||
		!strings.ContainsRune(order[2:], 'C') || !strings.ContainsRune(order[2:], 'T') {
		return nil, fmt.Errorf("OME-XML DimensionOrder %q is not XY followed by Z, C and T", order)
	}
	for _, td := range px.TiffData {
		if td.UUID != nil && td.UUID.FileName != "" {
			return nil, fmt.Errorf("OME-TIFF whose planes lie in other files (%s): voxlab reads single-file OME-TIFF", td.UUID.FileName)
		}
		if td.IFD != 0 || td.FirstZ != 0 || td.FirstC != 0 || td.FirstT != 0 {
			return nil, fmt.Errorf("OME-TIFF with planes mapped out of order (TiffData IFD %d, FirstZ/C/T %d/%d/%d): voxlab reads planes stored in DimensionOrder from the first page", td.IFD, td.FirstZ, td.FirstC, td.FirstT)
		}
	}
	return &px, nil
}

// imageJChannels describes an ImageJ hyperstack with channels (its
// description: "channels=2 slices=5 frames=1"; planes in C, Z, T order,
// channels fastest) as OME Pixels, or nil when it has one channel. The
// ImageJ reader's voxel size stays in force (no physical sizes here).
func imageJChannels(desc string) *omePixels {
	ij := imageJ(desc)
	c, _ := strconv.Atoi(ij["channels"])
	if c <= 1 {
		return nil
	}
	z, _ := strconv.Atoi(ij["slices"])
	t, _ := strconv.Atoi(ij["frames"])
	return &omePixels{DimensionOrder: "XYCZT", SizeC: c, SizeZ: max(z, 1), SizeT: max(t, 1), imageJ: true}
}

// planes returns SizeZ·SizeC·SizeT, false when the product overflows
// (sizes are at least 1).
func (px *omePixels) planes() (int, bool) {
	n := 1
	for _, s := range [3]int{px.SizeZ, px.SizeC, px.SizeT} {
		if s < 1 || n > math.MaxInt32/s {
			return 0, false
		}
		n *= s
	}
	return n, true
}

// page returns the index of plane (z, c, t) among the file's pages.
func (px *omePixels) page(z, c, t int) int {
	idx := map[byte]int{'Z': z, 'C': c, 'T': t}
	size := map[byte]int{'Z': px.SizeZ, 'C': px.SizeC, 'T': px.SizeT}
	n, stride := 0, 1
	for i := 2; i < 5; i++ {
		d := px.DimensionOrder[i]
		n += idx[d] * stride
		stride *= size[d]
	}
	return n
}

// micronsPer converts an OME length unit to microns (0: unknown).
func micronsPer(unit string) float64 {
	switch unit {
	case "", "µm", "um", "micron":
		return 1
	case "nm":
		return 1e-3
	case "mm":
		return 1e3
	case "Å":
		return 1e-4
	}
	return 0
}

// voxelSize returns (z, y, x) in microns, zero where absent.
func (px *omePixels) voxelSize() [3]float64 {
	return [3]float64{px.PhysicalSizeZ * micronsPer(px.UnitZ), px.PhysicalSizeY * micronsPer(px.UnitY),
		px.PhysicalSizeX * micronsPer(px.UnitX)}
}

// parseChannel reads the channel a spec's dataset part names:
// "/channel/N" (or "/c/N"); "" is channel 0. why says, for any other
// path, that the file has no datasets.
func parseChannel(path, dataset, why string) (int, error) {
	if dataset == "" {
		return 0, nil
	}
	parts := strings.Split(strings.Trim(dataset, "/"), "/")
	if len(parts) == 2 && (parts[0] == "channel" || parts[0] == "c") {
		if c, err := strconv.Atoi(parts[1]); err == nil && c >= 0 {
			return c, nil
		}
	}
	return 0, fmt.Errorf("%s: %s (an OME-TIFF's channel is picked with FILE:/channel/N); drop %q", path, why, dataset)
}

// selectChannel keeps, of an OME-TIFF's or ImageJ hyperstack's pages,
// those of channel c at time point 0, in z order. Pages of several
// samples per pixel (RGB, or channels interleaved) hold the channels
// themselves: each page is read for sample c. Other files have one
// channel.
func (tf *tiffFile) selectChannel(c int) error {
	px, err := parseOME(tf.pages[0].desc)
	if err != nil {
		return fmt.Errorf("%s: %w", tf.path, err)
	}
	if px == nil {
		px = imageJChannels(tf.pages[0].desc)
	}
	spp := tf.pages[0].samples
	tf.samples, tf.planar = spp, tf.pages[0].planar
	if px == nil && spp <= 1 {
		if c != 0 {
			return fmt.Errorf("%s: channel %d asked for, but the file is neither OME-TIFF nor an ImageJ hyperstack with channels, and has one channel", tf.path, c)
		}
		return nil
	}
	pageC := c // the channel among the pages
	if px != nil && spp > 1 && px.SizeC == spp {
		// OME's channels are the samples of each page.
		one := *px
		one.SizeC, pageC = 1, 0
		px = &one
	}
	if px != nil {
		tf.ome = px
		if pageC >= px.SizeC {
			return fmt.Errorf("%s: channel %d asked for, but the %s gives %d channels (0-%d)", tf.path, c, px.source(), px.SizeC, px.SizeC-1)
		}
		if want, ok := px.planes(); !ok {
			return fmt.Errorf("%s: the %s's sizes Z %d x C %d x T %d make more planes than any file holds (the file has %d pages)", tf.path, px.source(), px.SizeZ, px.SizeC, px.SizeT, len(tf.pages))
		} else if len(tf.pages) != want {
			return fmt.Errorf("%s: the %s promises %d planes (Z %d x C %d x T %d), the file has %d pages", tf.path, px.source(), want, px.SizeZ, px.SizeC, px.SizeT, len(tf.pages))
		}
		pages := make([]*tiffPage, px.SizeZ)
		for z := range pages {
			pages[z] = tf.pages[px.page(z, pageC, 0)]
		}
		tf.first, tf.allPages = tf.pages[0], len(tf.pages)
		tf.pages = pages
	}
	tf.channel = c
	if spp > 1 {
		for i, p := range tf.pages {
			if err := p.pickSample(c); err != nil {
				return fmt.Errorf("%s: page %d: %w", tf.path, i, err)
			}
		}
	}
	return nil
}

// channels returns the number of channels selectChannel chooses among.
func (tf *tiffFile) channels() int {
	if tf.ome != nil && tf.ome.SizeC > 1 {
		return tf.ome.SizeC
	}
	return max(tf.samples, 1)
}

// source names where the channels were described, for messages.
func (px *omePixels) source() string {
	if px.imageJ {
		return "ImageJ description"
	}
	return "OME-XML"
}

// TIFFChannels returns the number of channels of a TIFF file: an
// OME-TIFF's SizeC or an ImageJ hyperstack's channels, else 1. Only the
// first page is parsed.
func TIFFChannels(path string) (int, error) {
	f, size, err := openSized(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	tf, err := readTIFF(path, f, size, 1)
	if err != nil {
		return 0, err
	}
	px, err := parseOME(tf.pages[0].desc)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", path, err)
	}
	if px == nil {
		px = imageJChannels(tf.pages[0].desc)
	}
	if px == nil || (px.SizeC == tf.pages[0].samples) {
		return tf.pages[0].samples, nil
	}
	return px.SizeC, nil
}
