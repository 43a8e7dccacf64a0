package testenv

import (
	"encoding/binary"
	"os"
)

// WriteBinary writes parts (fixed-size values and slices of them) one
// after another, little-endian, to path: the inputs that bench/floor's C
// kernels read.
func WriteBinary(path string, parts ...any) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	for _, x := range parts {
		if err := binary.Write(f, binary.LittleEndian, x); err != nil {
			f.Close()
			return err
		}
	}
	return f.Close()
}
