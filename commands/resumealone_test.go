package commands

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/grind-nlp/grind/commands/program"
	"github.com/grind-nlp/grind/internal/clitest"
	"github.com/grind-nlp/grind/stages/rundir"
)

// A run started in one folder with relative names — the corpus, -m, a
// --rules FILE, -o — killed, and resumed with --resume DIR alone from
// another folder reads its inputs and writes its -o where the run
// started, and ends with the uninterrupted run's model.
func TestResumeAloneElsewhere(t *testing.T) {
	work := t.TempDir()
	corpus := sampledCorpus(t, work, 200)
	writeTemp(t, work, "rules.txt", []byte(prRules))
	writeTemp(t, work, "init.jsonl", run(t, nil, "dmv-init", "--init", "km", corpus))
	flags := []string{"train-em", "--lambda", "0.1", "--tol", "0", "--max-iter", "30", "--rules", "rules.txt", "-m", "init.jsonl", "-q"}
	want := run(t, nil, append(append([]string{}, flags...), "--rules", filepath.Join(work, "rules.txt"), "-m", filepath.Join(work, "init.jsonl"), corpus)...)

	cmd := clitest.Command(t, "TestResumeChild", append(append([]string{}, flags...), "--run-dir", "run", "-o", "out.jsonl", filepath.Base(corpus)))
	cmd.Dir = work
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	rd := filepath.Join(work, "run")
	for deadline := time.Now().Add(30 * time.Second); logLines(rd) < 5; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatal("the run never reached its fifth iteration")
		}
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	t.Logf("killed after %d log lines", logLines(rd))

	run(t, nil, "train-em", "--resume", rd) // from this package's folder
	if got := readFile(t, filepath.Join(work, "out.jsonl")); !bytes.Equal(got, want) {
		t.Error("the run resumed from another folder differs from the uninterrupted one")
	}
	if _, err := os.Stat("out.jsonl"); err == nil {
		os.Remove("out.jsonl")
		t.Error("-o out.jsonl was written in the folder of the resume, not of the run")
	}
}

// A run directory recorded by an older grind — its inputs' hashes without
// names, every flag's declared value (--tol left out recorded as 0) —
// resumes as it did, given the run's flags and files, and with --resume
// DIR alone; a flag that differs is refused as before.
func TestResumeOlderRecord(t *testing.T) {
	dir := t.TempDir()
	corpus := sampledCorpus(t, dir, 60)
	init := writeTemp(t, dir, "init.jsonl", run(t, nil, "dmv-init", corpus))
	rd, out := filepath.Join(dir, "run"), filepath.Join(dir, "out.jsonl")
	flags := []string{"train-em", "--lambda", "0.1", "--max-iter", "6", "-q", "-m", init}
	run(t, nil, append(append([]string{}, flags...), "--run-dir", rd, "-o", out, corpus)...)
	want := readFile(t, out)

	rec, err := rundir.ReadRecord(rd)
	if err != nil {
		t.Fatal(err)
	}
	if rec.Flags["tol"] != "1e-05" || rec.Flags["workers"] == "0" {
		t.Errorf("run.json records --tol %s and --workers %s, not the values used", rec.Flags["tol"], rec.Flags["workers"])
	}
	old := map[string]any{"program": rec.Program, "argv": rec.Argv, "args": rec.Args}
	declared := map[string]string{}
	for k, v := range rec.Flags {
		declared[k] = v
	}
	declared["tol"], declared["workers"] = "0", "0"
	var hashes []string
	for _, in := range rec.Inputs {
		hashes = append(hashes, in.SHA256)
	}
	old["flags"], old["inputs"] = declared, hashes
	b, _ := json.Marshal(old)
	writeTemp(t, rd, rundir.RecordFile, b)

	for _, resume := range [][]string{
		append(append([]string{}, flags...), "--resume", rd, "-o", out, corpus),
		{"train-em", "--resume", rd},
	} {
		os.Remove(out)
		run(t, nil, resume...)
		if got := readFile(t, out); !bytes.Equal(got, want) {
			t.Errorf("%s: not the run's model", strings.Join(resume, " "))
		}
	}
	var errs bytes.Buffer
	args := []string{"train-em", "--resume", rd, "--lambda", "0.2"}
	if code := program.Run(args[0], args, nil, &bytes.Buffer{}, &errs); code != program.ExitUsage || !strings.Contains(errs.String(), "--lambda 0.2 (the run had 0.1)") {
		t.Errorf("%v: exit %d, %q", args, code, errs.String())
	}
}

// --run-dir takes its corpus from stdin: hashed as it is read (run.json's
// input "-" has the SHA-256 of every byte of it), the run's model the one
// the same corpus gives from a file, and the run marked not resumable,
// which the run says and --resume (alone or not) refuses.
func TestRunDirStdin(t *testing.T) {
	dir := t.TempDir()
	corpus := sampledCorpus(t, dir, 80)
	data := readFile(t, corpus)
	flags := []string{"train-em", "--lambda", "0.1", "--max-iter", "4"}
	want := run(t, nil, append(append([]string{}, flags...), "-q", corpus)...)

	rd := filepath.Join(dir, "run")
	var out, errs bytes.Buffer
	args := append(append([]string{}, flags...), "--run-dir", rd)
	if code := program.Run(args[0], args, bytes.NewReader(data), &out, &errs); code != 0 {
		t.Fatalf("exit %d: %s", code, errs.String())
	}
	if !bytes.Equal(out.Bytes(), want) {
		t.Error("the model trained on stdin differs from the one trained on the file")
	}
	if !strings.Contains(errs.String(), "train-em: --run-dir "+rd+": this run reads stdin, which cannot be read again: it cannot be resumed") {
		t.Errorf("stderr does not say the run cannot be resumed: %q", errs.String())
	}
	rec, err := rundir.ReadRecord(rd)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(data)
	if len(rec.Inputs) != 1 || rec.Inputs[0] != (rundir.Input{File: "-", SHA256: hex.EncodeToString(sum[:])}) {
		t.Errorf("run.json's inputs are %+v, want stdin with the SHA-256 of the corpus", rec.Inputs)
	}
	if rec.NotResumable == "" || rec.Ended == "" {
		t.Errorf("run.json: not_resumable %q, ended %q", rec.NotResumable, rec.Ended)
	}
	for _, args := range [][]string{
		{"train-em", "--resume", rd},
		append(append([]string{}, flags...), "--resume", rd, corpus),
	} {
		var errs bytes.Buffer
		if code := program.Run(args[0], args, nil, &bytes.Buffer{}, &errs); code != program.ExitUsage || !strings.Contains(errs.String(), "the run cannot be resumed: it read stdin") {
			t.Errorf("%v: exit %d, %q", args, code, errs.String())
		}
	}
}
