// Package widgets holds the small Fyne pieces the viewer and the
// processing panel share, so that the panel needs the viewer only for the
// viewer itself: voxlab's theme (Theme, MinTextSize), caption labels that
// wrap and hide when empty (WrapLabel, SetLabel), buttons that give the
// keyboard back to the canvas (NewButton, Refocus) and the vertical
// scroller of a side panel that takes the mouse wheel wherever the
// pointer is (PanelScroll).
//
// It imports Fyne only: no voxlab package.
package widgets
