// Package resources holds voxlab's bundled assets: the application icon and
// the colormaps the viewer draws with.
package resources
