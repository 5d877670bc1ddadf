package panel

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/voxlab/voxlab/processing/volume"
	"github.com/voxlab/voxlab/viewer"
)

// ExportLayer shows the convert pipeline's form for a layer (File ▸
// Export layer…): its spec as the input, an output named after it, its
// voxel size (which the output's metadata carries), and the layer's
// contrast limits as a hint under the summary — shown, not
// applied: convert writes the data's own values (--dtype casts them,
// and refuses values that do not fit).
func (p *Panel) ExportLayer(r viewer.ExportRequest) error {
	if err := p.Select("convert"); err != nil {
		return fmt.Errorf("export: %w", err)
	}
	if err := p.Set("in", r.Spec); err != nil {
		return err
	}
	path, _ := volume.SplitSpec(r.Spec)
	base := strings.TrimSuffix(filepath.Base(strings.TrimRight(path, "/")), filepath.Ext(path))
	if err := p.Set("out", filepath.Join(filepath.Dir(path), base+"-export.ome.zarr")); err != nil {
		return err
	}
	if vs := r.VoxelSize; vs[0] > 0 && vs[1] > 0 && vs[2] > 0 { // the layer's, typed or from its file
		if err := p.Set("voxel-size", fmt.Sprintf("%g,%g,%g", vs[0], vs[1], vs[2])); err != nil {
			return err
		}
	}
	p.summary.SetText(fmt.Sprintf("%s\nThe layer shows contrast %g to %g: a hint for --dtype or a later rescale; the export writes the data's own values.",
		p.cur.Spec.Summary, r.Lo, r.Hi))
	return nil
}
