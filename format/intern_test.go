package format

import (
	"fmt"
	"sync"
	"testing"
	"unsafe"
)

// Every reader of a name gets the one shared copy, whether the name was
// found in a slot or in the map, with readers side by side, and beyond
// what the slots hold.
func TestInternerSharesOneCopy(t *testing.T) {
	in := &interner{names: map[string]string{}}
	const names = 3 * internSlots // more than the slots hold: the map takes the rest
	const readers = 4
	got := make([][]string, readers)
	var wg sync.WaitGroup
	for r := range readers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for round := range 3 {
				for i := range names {
					// Readers go through the names in different orders.
					k := (i + r*101 + round) % names
					if r%2 == 1 {
						k = names - 1 - k
					}
					s := in.intern([]byte(fmt.Sprintf("tag%d", k)))
					if round == 2 {
						if got[r] == nil {
							got[r] = make([]string, names)
						}
						got[r][k] = s
					}
				}
			}
		}()
	}
	wg.Wait()
	for k := range names {
		want := fmt.Sprintf("tag%d", k)
		first := got[0][k]
		for r := range readers {
			s := got[r][k]
			if s != want {
				t.Fatalf("reader %d: name %d is %q, want %q", r, k, s, want)
			}
			if unsafe.StringData(s) != unsafe.StringData(first) {
				t.Fatalf("name %q: readers 0 and %d hold different copies", want, r)
			}
		}
	}
	if len(in.names) != names {
		t.Fatalf("%d names in the map, want %d", len(in.names), names)
	}
}
