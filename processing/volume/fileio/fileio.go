package fileio

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/voxlab/voxlab/internal/bytesize"
)

// MetadataLimit is the most bytes voxlab reads of a metadata file
// (.zarray, zarr.json, .zattrs, an N5 attributes.json, a TIFF's
// ImageDescription): OME-XML describing tens of thousands of planes
// takes a few MiB; a file larger than this is damaged or not metadata.
const MetadataLimit = 16 << 20

// ErrNotRegular is wrapped by the error Open gives for anything but a
// regular file.
var ErrNotRegular = errors.New("not a regular file")

// Open opens path read-only and returns it with its size, refusing
// anything but a regular file (a symbolic link is followed to what it
// names). A FIFO is opened without blocking, so that a FIFO with no
// writer is refused at once instead of hanging the reader.
func Open(path string) (*os.File, int64, error) {
	f, err := openNonBlocking(path)
	if err != nil {
		return nil, 0, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, 0, &fs.PathError{Op: "open", Path: path, Err: fmt.Errorf("%w (%s); voxlab reads only regular files", ErrNotRegular, kind(st.Mode()))}
	}
	return f, st.Size(), nil
}

// kind names a file's type for messages.
func kind(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m.IsDir():
		return "a folder"
	}
	return "mode " + m.String()
}

// ReadFile reads the regular file at path whole, refusing a file of
// more than limit bytes with an error naming it and what (".zarray").
func ReadFile(path string, limit int64, what string) ([]byte, error) {
	f, size, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if size > limit {
		return nil, TooLarge(path, what, size, limit)
	}
	// The file may grow after the fstat: read at most limit+1 bytes.
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, TooLarge(path, what, int64(len(b)), limit)
	}
	return b, nil
}

// TooLarge is the error for a file of size bytes over limit.
func TooLarge(path, what string, size, limit int64) error {
	return fmt.Errorf("%s: %s of %s is larger than voxlab's limit of %s for it (the file is damaged, or not %s)", path, what, bytesize.Format(size), bytesize.Format(limit), what)
}
