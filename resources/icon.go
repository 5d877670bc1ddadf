package resources

import (
	_ "embed"

	"fyne.io/fyne/v2"
)

//go:embed icon.png
var iconPNG []byte

// Icon is the application icon.
var Icon = fyne.NewStaticResource("icon.png", iconPNG)
