package viewer

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"
)

// What differs between the kinds of layer (image, heat map, points)
// is a method of each kind, declared in the Layer interface, so that a
// new kind is one type with its methods rather than a case in switches
// over kinds across the package (napari's layer_to_controls is such a
// table): the controls (image_controls.go, points_controls.go), the
// painting (paint.go), the extent, and here the list icon, the image
// data, the 3D frame and which kind a layer is, for the code that acts
// on one kind only (imageLayer, pointsLayer, heatmapLayer: no type
// assertion on a kind outside this file, TestKindsInOnePlace). A heat
// map is an image layer (it embeds one) and overrides what it does
// otherwise.

// icon is the layer list's icon for an image layer.
func (l *ImageLayer) icon() fyne.Resource { return theme.MediaPhotoIcon() }

// icon is the layer list's icon for a heat map.
func (h *HeatmapLayer) icon() fyne.Resource { return theme.GridIcon() }

// icon is the layer list's icon for a points layer.
func (l *PointsLayer) icon() fyne.Resource { return theme.RadioButtonCheckedIcon() }

// image is the layer's image data: the layer itself (a heat map's is
// the image layer it embeds).
func (l *ImageLayer) image() *ImageLayer { return l }

// image is nil: points have no image data.
func (l *PointsLayer) image() *ImageLayer { return nil }

// imageOf returns the image part of an image or heat-map layer (nil for
// points, or no layer).
func imageOf(l Layer) *ImageLayer {
	if l == nil {
		return nil
	}
	return l.image()
}

// asImage is the image layer itself.
func (l *ImageLayer) asImage() *ImageLayer { return l }

// asImage is nil: a heat map is a matrix, not a volume, though it
// embeds an image layer.
func (h *HeatmapLayer) asImage() *ImageLayer { return nil }

// asImage is nil for points.
func (l *PointsLayer) asImage() *ImageLayer { return nil }

// asPoints is nil for an image layer (and a heat map).
func (l *ImageLayer) asPoints() *PointsLayer { return nil }

// asPoints is the points layer itself.
func (l *PointsLayer) asPoints() *PointsLayer { return l }

// asHeatmap is nil for an image layer.
func (l *ImageLayer) asHeatmap() *HeatmapLayer { return nil }

// asHeatmap is the heat map itself.
func (h *HeatmapLayer) asHeatmap() *HeatmapLayer { return h }

// asHeatmap is nil for points.
func (l *PointsLayer) asHeatmap() *HeatmapLayer { return nil }

// imageLayer returns l if it is an image layer (not a heat map);
// ok is false for other kinds and for nil.
func imageLayer(l Layer) (il *ImageLayer, ok bool) {
	if l == nil {
		return nil, false
	}
	il = l.asImage()
	return il, il != nil
}

// pointsLayer returns l if it is a points layer; ok is false for other
// kinds and for nil.
func pointsLayer(l Layer) (pl *PointsLayer, ok bool) {
	if l == nil {
		return nil, false
	}
	pl = l.asPoints()
	return pl, pl != nil
}

// heatmapLayer returns l if it is a heat map; ok is false for other
// kinds and for nil.
func heatmapLayer(l Layer) (h *HeatmapLayer, ok bool) {
	if l == nil {
		return nil, false
	}
	h = l.asHeatmap()
	return h, h != nil
}

// spacing3D is the voxel size (z, y, x) the layer is placed at in the
// 3D view's frame (frame3D): its own, 1 where unknown.
func (l *ImageLayer) spacing3D([]Layer) ([3]float64, bool) { return layerSpacing(l), true }

// spacing3D is false: a heat map is not drawn in 3D.
func (h *HeatmapLayer) spacing3D([]Layer) ([3]float64, bool) { return [3]float64{}, false }

// spacing3D is the voxel size of the image the points lie on, among
// layers (pointsSpacing).
func (l *PointsLayer) spacing3D(layers []Layer) ([3]float64, bool) {
	return pointsSpacing(layers, l), true
}
