package pipeline

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// FileKey says which file a name means, so that two names can be told to
// be one file however they are spelt: by the file itself (its device and
// inode) when it exists, else by the absolute name it would be made under,
// the links of its folders and of itself followed (an output's name that
// does not exist yet may still resolve to the name of another output).
type FileKey struct {
	info os.FileInfo // nil: the file does not exist
	path string      // when it does not
}

// KeyOf is the key of the file named path (not "-": stdin has no name).
func KeyOf(path string) FileKey {
	if fi, err := os.Stat(path); err == nil {
		return FileKey{info: fi}
	}
	final, err := resolveLinks(path)
	if err != nil {
		final = path
	}
	dir, base := filepath.Split(final)
	if dir == "" {
		dir = "."
	}
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	abs, err := filepath.Abs(filepath.Join(dir, base))
	if err != nil {
		abs = filepath.Clean(final)
	}
	return FileKey{path: abs}
}

// KeyOfFile is the key of an open file (standard input redirected from
// one); ok is false when it cannot be had.
func KeyOfFile(f *os.File) (k FileKey, ok bool) {
	fi, err := f.Stat()
	if err != nil {
		return FileKey{}, false
	}
	return FileKey{info: fi}, true
}

// Same says whether two keys are one file.
func (k FileKey) Same(o FileKey) bool {
	if k.info != nil && o.info != nil {
		return os.SameFile(k.info, o.info)
	}
	return k.info == nil && o.info == nil && k.path == o.path
}

// Exists says whether the file existed when its key was taken.
func (k FileKey) Exists() bool { return k.info != nil }

// Stream says whether the file is one an output writes through rather
// than replaces (a FIFO, a device, a socket): /dev/null may be named by
// every output of a run, and a program may read a terminal it writes to.
func (k FileKey) Stream() bool {
	return k.info != nil && !k.info.Mode().IsRegular() && !k.info.IsDir()
}

// IsDir says whether the file is a folder.
func (k FileKey) IsDir() bool { return k.info != nil && k.info.IsDir() }

// InDir says whether the file named path is, or would be made, in the
// folder dir under a name that match accepts (nil: any name); the name is
// path's with its links followed.
func InDir(path string, dir FileKey, match func(base string) bool) bool {
	final, err := resolveLinks(path)
	if err != nil {
		final = path
	}
	folder, base := filepath.Split(final) // not Dir, which cleans: a/link/.. is not a
	if folder == "" {
		folder = "."
	}
	if match != nil && !match(base) {
		return false
	}
	return KeyOf(folder).Same(dir)
}

// ProcessOwn says whether path names a file through the process's own
// descriptors (/dev/stdin, /dev/fd/N, /proc/self/fd/N): a name that means
// something else in every process, which a later run cannot read again.
func ProcessOwn(path string) bool {
	for range 40 {
		abs, err := filepath.Abs(path)
		if err != nil {
			return false
		}
		if processOwnName(abs) {
			return true
		}
		fi, err := os.Lstat(abs)
		if err != nil || fi.Mode()&os.ModeSymlink == 0 {
			return false
		}
		dest, err := os.Readlink(abs)
		if err != nil || strings.Contains(dest, ":[") { // "pipe:[1234]": not a name
			return false
		}
		if !filepath.IsAbs(dest) {
			dest = filepath.Join(filepath.Dir(abs), dest)
		}
		path = dest
	}
	return false
}

// processOwnName says whether an absolute name is one of /dev/stdin,
// /dev/stdout, /dev/stderr, /dev/fd/N or /proc/P/fd/N (P a number, self
// or thread-self).
func processOwnName(abs string) bool {
	switch abs {
	case "/dev/stdin", "/dev/stdout", "/dev/stderr":
		return true
	}
	number := func(s string) bool { _, err := strconv.ParseUint(s, 10, 32); return err == nil }
	if fd, ok := strings.CutPrefix(abs, "/dev/fd/"); ok {
		return number(fd)
	}
	rest, ok := strings.CutPrefix(abs, "/proc/")
	if !ok {
		return false
	}
	proc, fd, ok := strings.Cut(rest, "/fd/")
	return ok && (proc == "self" || proc == "thread-self" || number(proc)) && number(fd)
}
