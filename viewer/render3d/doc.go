// Package render3d draws a volume in 3D on the CPU: maximum intensity
// projection (MIP), attenuated MIP, minimum intensity, average and a
// shaded iso-surface, seen through an orthographic camera that an
// arcball rotates. It knows nothing of Fyne: the viewer turns the
// values it returns into colours with the same lookup tables as its 2D
// slices, so contrast limits, gamma and colormap are shared.
//
// # Data
//
// A Grid is a volume held in memory as uint16 or float32 voxels in C
// order (z, y, x), with the physical size of its voxels. Build makes
// grids from a volume.Volume in one pass over it, plane slab by plane
// slab, each downsampled by the smallest integer factor (block mean)
// that keeps it within its byte budget: a small grid for interactive
// frames and a larger one, full resolution where it fits, for the
// frame drawn once the view is still. The volume is never held whole.
//
// # Rendering
//
// Render casts one ray per pixel (orthographic: all rays parallel),
// clipped to the volume's box, with the steps precomputed in voxel
// coordinates so the march is additions and one load per sample (the
// classic volume ray caster: M. Levoy, "Display of surfaces from volume
// data", IEEE CG&A 8(3), 1988). Rows of the frame are handed out to one
// goroutine per core. Views along an axis (the default view, and the
// ones the benchmarks quote) take a faster path: the volume is reduced
// along that axis in memory order, in parallel slabs, once per grid,
// axis and mode, and the 2D result is resampled to the screen. Other
// views in MIP, minimum or average at nearest sampling go by
// shear-warp (P. Lacroute and M. Levoy, SIGGRAPH 1994): every voxel
// once, in memory order, into an intermediate image along the
// principal axis, which the frame then resamples.
//
// The modes follow napari's volume shaders: MIP keeps the largest
// sample, attenuated MIP the largest of each sample times
// exp(-a (sum of the normalised samples before it)), minimum the
// smallest, average the mean of the samples, and iso the first sample
// at or above the threshold, refined between the two samples around the
// crossing and shaded by the Blinn-Phong model with a headlight, the
// normal being the gradient by central differences.
package render3d
