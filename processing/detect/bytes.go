package detect

import "unsafe"

// int32Bytes views s as bytes (native order, as buffers hold them).
func int32Bytes(s []int32) []byte {
	if len(s) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&s[0])), 4*len(s))
}
