//go:build !linux

package pipeline

import "os"

// replaceFile puts the finished temporary file tmp in place of final.
func replaceFile(tmp, final string) error { return os.Rename(tmp, final) }
