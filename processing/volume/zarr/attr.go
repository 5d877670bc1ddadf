package zarr

import (
	"encoding/json"
	"fmt"
	"path/filepath"
)

// numberAttr reads the numeric attribute name that Export recorded
// (ExportOptions.Attrs) in the store's top group: its .zattrs (v2) or
// zarr.json's attributes (v3). The dataset (a level, "/0") shares its
// store's attributes. ok is false where the group has no such attribute.
func numberAttr(dir, _ string, name string) (vals []float64, ok bool, err error) {
	n, err := readNode(dir, filepath.Base(dir))
	if err != nil || n.attrs == nil {
		return nil, false, err
	}
	var attrs map[string]json.RawMessage
	if err := json.Unmarshal(n.attrs, &attrs); err != nil {
		return nil, false, fmt.Errorf("%s: attributes are not a JSON object: %v", dir, err)
	}
	raw, ok := attrs[name]
	if !ok {
		return nil, false, nil
	}
	var x float64
	if json.Unmarshal(raw, &x) == nil {
		return []float64{x}, true, nil
	}
	if err := json.Unmarshal(raw, &vals); err != nil || len(vals) == 0 {
		return nil, false, fmt.Errorf("%s: attribute %s is %s, not a number or a list of them", dir, name, raw)
	}
	return vals, true, nil
}
