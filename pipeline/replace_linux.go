package pipeline

import (
	"os"

	"golang.org/x/sys/unix"
)

// replaceFile puts the finished temporary file tmp in place of final, in
// one step: readers see the old file or the new one, never neither.
//
// Renaming over an existing file makes ext4 start writing the new file's
// data out first (auto_da_alloc, its guard against a file a power cut
// empties), which cost every step of a shell loop (mstep -o M) half a
// millisecond; exchanging the two names and removing the old file under
// the temporary one does not (nor guards: after a power cut the file may
// be empty, as any file grind writes without fsync may be). Only a
// regular file is exchanged (a folder would be swapped, not refused);
// where the exchange is not to be had (no final file yet, another file
// system, an older kernel) it is a rename.
func replaceFile(tmp, final string) error {
	fi, err := os.Lstat(final)
	if err != nil || !fi.Mode().IsRegular() {
		return os.Rename(tmp, final)
	}
	if err := unix.Renameat2(unix.AT_FDCWD, tmp, unix.AT_FDCWD, final, unix.RENAME_EXCHANGE); err != nil {
		return os.Rename(tmp, final)
	}
	os.Remove(tmp) // the old file now
	return nil
}
