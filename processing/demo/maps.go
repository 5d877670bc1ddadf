package demo

import "errors"

// WriteMaps writes the cryo-EM demo (MapsGT, MapsSubmitted, MapsMask) into
// dir. (Owned by the distance pipeline's work; replaced there.)
func WriteMaps(dir string, size Size, seed int64) error {
	return errors.New("demo maps: not written yet")
}
