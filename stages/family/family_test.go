package family_test

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/grind-nlp/grind/pipeline"
	"github.com/grind-nlp/grind/stages/family"
)

// named is a family that only has a name: the registry's lookups are
// all that is tested here (the families are tested with the stages).
type named struct {
	family.Family
	name string
}

func (n named) Name() string { return n.name }

func TestRegistryFindsTheHeadersFamily(t *testing.T) {
	reg := family.Registry{named{name: "dmv"}, named{name: "ccm"}}
	if f, err := reg.Lookup("ccm"); err != nil || f.Name() != "ccm" {
		t.Fatalf("Lookup(ccm) = %v, %v", f, err)
	}
	if _, err := reg.Lookup("pcfg"); err == nil || !strings.Contains(err.Error(), `"pcfg"`) {
		t.Fatalf("Lookup(pcfg): error %v", err)
	}
	dir := t.TempDir()
	unknown := filepath.Join(dir, "pcfg.jsonl")
	if err := os.WriteFile(unknown, []byte(`{"ev":"header","family":"pcfg","unit":"p","events":3}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := reg.ForFile(unknown); err == nil || err.Error() != unknown+`:1: a model or counts of family "pcfg"; grind knows "dmv", "ccm"` {
		t.Errorf("ForFile(pcfg): error %v", err)
	}
	for _, c := range []struct{ first, want string }{
		{`{"ev":"header","family":"ccm","unit":"p","events":3}`, "ccm"},
		{`{"ev":"header","family":"dmv","unit":"n","events":3,"model":"none","corpus":"0000000000000000"}`, "dmv"},
		{`{"ev":"root","arg":"A","p":1}`, "dmv"},
		{`not json`, "dmv"},
		{``, "dmv"},
	} {
		path := filepath.Join(dir, "m.jsonl")
		if err := os.WriteFile(path, []byte(c.first+"\n{\"ev\":\"x\"}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		f, err := reg.ForFile(path)
		if err != nil || f.Name() != c.want {
			t.Errorf("ForFile(%s) = %v, %v; want %s", c.first, f, err, c.want)
		}
		// From stdin the stream is read whole and handed back unread.
		in := c.first + "\n{\"ev\":\"x\"}\n"
		f, src, err := reg.ForSource(pipeline.Source{Stdin: strings.NewReader(in)})
		if err != nil || f.Name() != c.want {
			t.Errorf("ForSource(%s) = %v, %v; want %s", c.first, f, err, c.want)
		}
		if again, _ := io.ReadAll(src.Stdin); string(again) != in {
			t.Errorf("ForSource consumed stdin: %q left of %q", again, in)
		}
		// Compressed stdin too, and a long stream is handed back whole.
		var gz bytes.Buffer
		zw := gzip.NewWriter(&gz)
		long := in + strings.Repeat("{\"ev\":\"root\",\"arg\":\"A\",\"n\":1}\n", 5000)
		zw.Write([]byte(long))
		zw.Close()
		raw := gz.Bytes()
		f, src, err = reg.ForSource(pipeline.Source{Stdin: bytes.NewReader(raw)})
		if err != nil || f.Name() != c.want {
			t.Errorf("ForSource(gzip %s) = %v, %v; want %s", c.first, f, err, c.want)
		}
		if again, _ := io.ReadAll(src.Stdin); !bytes.Equal(again, raw) {
			t.Errorf("ForSource consumed compressed stdin: %d bytes left of %d", len(again), len(raw))
		}
	}
}
