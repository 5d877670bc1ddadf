package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/voxlab/voxlab/processing/volume/zarr" // registers Zarr and OME-Zarr
)

// printSpecHelp explains Zarr specs in the --help of commands that read
// volumes.
func printSpecHelp(w io.Writer) {
	fmt.Fprintf(w, "\nZarr and OME-Zarr inputs:\n  %s\n", strings.ReplaceAll(zarr.SpecHelp, "\n", "\n  "))
}
