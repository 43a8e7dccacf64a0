package pipeline

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"testing/iotest"

	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/internal/lines"
)

func writeText(path, text string) error {
	return WriteFile(path, nil, func(o *Output) error {
		_, err := o.WriteString(text)
		return err
	})
}

// -o onto a symbolic link replaces the link's target and keeps the link,
// a dangling one included.
func TestOutputFollowsSymlinks(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "target.jsonl")
	os.WriteFile(target, []byte("old\n"), 0o644)
	link := filepath.Join(dir, "link.jsonl")
	os.Symlink("target.jsonl", link)
	if err := writeText(link, "new\n"); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the link was replaced: %v %v", fi.Mode(), err)
	}
	if got, _ := os.ReadFile(target); string(got) != "new\n" {
		t.Errorf("target holds %q", got)
	}
	dangling := filepath.Join(dir, "dangling")
	os.Symlink("nowhere.jsonl", dangling)
	if err := writeText(dangling, "x\n"); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "nowhere.jsonl")); string(got) != "x\n" {
		t.Errorf("a dangling link's target holds %q", got)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 4 {
		t.Errorf("%d files in the folder, want 4 (nothing left behind)", len(entries))
	}
}

// An existing file keeps its mode; a new one gets 0666 less the umask.
func TestOutputModes(t *testing.T) {
	dir := t.TempDir()
	old := syscall.Umask(0o027)
	defer syscall.Umask(old)
	fresh := filepath.Join(dir, "fresh")
	if err := writeText(fresh, "x"); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(fresh); fi.Mode().Perm() != 0o640 {
		t.Errorf("new file has mode %v, want 0640 under umask 027", fi.Mode().Perm())
	}
	private := filepath.Join(dir, "private")
	os.WriteFile(private, nil, 0o600)
	os.Chmod(private, 0o600)
	if err := writeText(private, "x"); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(private); fi.Mode().Perm() != 0o600 {
		t.Errorf("existing file now has mode %v, want 0600", fi.Mode().Perm())
	}
}

// A FIFO and a device are written through, not replaced by a file.
func TestOutputWritesThroughFIFOsAndDevices(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	got := make(chan string)
	go func() {
		b, _ := os.ReadFile(fifo)
		got <- string(b)
	}()
	if err := writeText(fifo, "through\n"); err != nil {
		t.Fatal(err)
	}
	if g := <-got; g != "through\n" {
		t.Errorf("read %q from the FIFO", g)
	}
	if fi, _ := os.Lstat(fifo); fi.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the FIFO became %v", fi.Mode())
	}
	// (A program built before this fix, run by anyone on the machine with
	// -o /dev/null, turns it into a file: then there is no device to test.)
	if fi, _ := os.Stat(os.DevNull); fi != nil && fi.Mode()&os.ModeCharDevice != 0 {
		if err := writeText(os.DevNull, "gone\n"); err != nil {
			t.Errorf("%s: %v", os.DevNull, err)
		}
		if fi, _ := os.Stat(os.DevNull); fi.Mode()&os.ModeCharDevice == 0 {
			t.Fatalf("%s is now %v", os.DevNull, fi.Mode())
		}
	}
	if _, err := os.Stat("/dev/full"); err == nil {
		err := writeText("/dev/full", "x\n")
		if !errors.Is(err, syscall.ENOSPC) || strings.Count(err.Error(), "/dev/full") != 1 {
			t.Errorf("/dev/full: %v, want one ENOSPC naming it once", err)
		}
	}
}

// Outputs committed together appear together: when one cannot be put in
// place, none stays.
func TestCommitAllIsAllOrNothing(t *testing.T) {
	dir := t.TempDir()
	var outs []*Output
	for _, name := range []string{"a", "b", "c"} {
		o, err := Create(filepath.Join(dir, name), nil)
		if err != nil {
			t.Fatal(err)
		}
		o.WriteString(name)
		outs = append(outs, o)
	}
	// c's final name becomes a non-empty folder, so its rename fails.
	os.MkdirAll(filepath.Join(dir, "c", "x"), 0o755)
	if err := CommitAll(outs...); err == nil || strings.Contains(err.Error(), ".tmp") {
		t.Fatalf("CommitAll: %v, want an error naming c", err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 || entries[0].Name() != "c" {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("left %v, want only the folder c", names)
	}
}

// RemoveTemps (the signal handler's) removes outputs under way, which then
// cannot be committed.
func TestRemoveTemps(t *testing.T) {
	dir := t.TempDir()
	o, err := Create(filepath.Join(dir, "out"), nil)
	if err != nil {
		t.Fatal(err)
	}
	o.WriteString("x")
	RemoveTemps()
	defer func() {
		temps.Lock()
		temps.closed = false
		temps.Unlock()
	}()
	if err := o.Commit(); err == nil {
		t.Error("committed after RemoveTemps")
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("%d files left", len(entries))
	}
}

// A record line longer than lines.MaxLine is an error at its line.
func TestRecordLineTooLong(t *testing.T) {
	defer func(old int) { lines.MaxLine = old }(lines.MaxLine)
	lines.MaxLine = 100
	input := `{"tags":["A"]}` + "\n" + `{"tags":["` + strings.Repeat("B", 1000) + `"]}` + "\n"
	err := EachSentence(Source{Stdin: strings.NewReader(input)}, func(*format.Sentence) error { return nil })
	if err == nil || err.Error() != "<stdin>:2: line longer than 100 bytes, the limit (GRIND_MAX_LINE raises it)" {
		t.Errorf("got %v", err)
	}
}

// Latin-1 input reads as UTF-8, whatever the size of the reads below it;
// a byte-order mark is skipped at the start only.
func TestLatin1AndBOM(t *testing.T) {
	var latin []byte
	var want strings.Builder
	for i := 0; i < 70000; i++ {
		b := byte(i % 256)
		if b == '\n' {
			continue
		}
		latin = append(latin, b)
		want.WriteRune(rune(b))
	}
	for _, small := range []bool{false, true} {
		var r io.Reader = bytes.NewReader(latin)
		if small {
			r = iotest.OneByteReader(r)
		}
		src := Source{Stdin: r, Latin1: true}
		var got []byte
		err := src.EachInput(func(in *Input) error {
			var err error
			got, err = io.ReadAll(in)
			return err
		})
		if err != nil || string(got) != want.String() {
			t.Errorf("one byte at a time %v: %d bytes, err %v", small, len(got), err)
		}
	}
	in, _ := Open("-", strings.NewReader("\ufeffa\ufeffb"))
	if got, _ := io.ReadAll(in); string(got) != "a\ufeffb" {
		t.Errorf("BOM: read %q", got)
	}
}

// A committed output replaces the file it names as a rename would: the
// new bytes under the name, no temporary file left, a hard link to the
// old file still the old file, and a name not there yet created.
func TestCommitReplaces(t *testing.T) {
	dir := t.TempDir()
	final, link := filepath.Join(dir, "m.jsonl"), filepath.Join(dir, "old.jsonl")
	for round, want := range []string{"first\n", "second\n", "third\n"} {
		o, err := Create(final, nil)
		if err != nil {
			t.Fatal(err)
		}
		o.WriteString(want)
		if err := o.Commit(); err != nil {
			t.Fatal(err)
		}
		if got, _ := os.ReadFile(final); string(got) != want {
			t.Errorf("round %d: %q, want %q", round, got, want)
		}
		if entries, _ := os.ReadDir(dir); len(entries) != 1+min(round, 1) {
			t.Errorf("round %d: %d files in the folder", round, len(entries))
		}
		if round == 0 {
			os.Link(final, link)
		}
		if got, _ := os.ReadFile(link); round > 0 && string(got) != "first\n" {
			t.Errorf("round %d: the hard link reads %q, want the old file", round, got)
		}
	}
}

// RemoveStaleTemps removes the temporary files of one name that no
// output of this process is writing, and nothing else.
func TestRemoveStaleTemps(t *testing.T) {
	dir := t.TempDir()
	final := filepath.Join(dir, "checkpoint.json")
	live, err := Reserve(final)
	if err != nil {
		t.Fatal(err)
	}
	defer live.Abort()
	keep := []string{filepath.Base(live.Name()), "checkpoint.json", ".checkpoint.json.tmpnothex00000", ".model.jsonl.tmp0123456789ab"}
	for _, name := range append(keep[1:], ".checkpoint.json.tmp0123456789ab") {
		os.WriteFile(filepath.Join(dir, name), nil, 0o644)
	}
	if err := RemoveStaleTemps(final); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(dir)
	var left []string
	for _, e := range entries {
		left = append(left, e.Name())
	}
	slices.Sort(left)
	slices.Sort(keep)
	if !slices.Equal(left, keep) {
		t.Errorf("left %v, want %v", left, keep)
	}
}
