// Package memory keeps Go's fatal "out of memory" (a goroutine dump and
// exit 2) out of reach of any flag or input. Each family estimates,
// before allocating, what a job will hold in proportion to its states,
// tags, classes and sentence lengths (its charts, model tables and
// per-worker counts; not the corpus, which grows with the input); Check
// refuses an estimate above the limit (--max-memory, one flag shared by
// every program, package program) with one line, exit 1.
package memory

import (
	"fmt"
	"math"
	"os"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

// Default is the limit of every program (--max-memory 1G).
const Default int64 = 1 << 30

// Error is a job whose estimate is over the limit; nothing was allocated
// for it.
type Error struct {
	What        string // what needs the memory: "a chart of 500 words"
	Need, Limit int64  // bytes
	Hint        string // what the user may do instead, after "raise --max-memory or"
}

func (e *Error) Error() string {
	hint := "raise --max-memory"
	if e.Hint != "" {
		hint += " or " + e.Hint
	}
	return fmt.Sprintf("%s needs about %s, over the limit of %s (--max-memory); %s", e.What, Size(e.Need), Size(e.Limit), hint)
}

// Size writes a number of bytes in MiB (KiB when small, GiB or TiB when
// large), rounded up, as the messages give it.
func Size(b int64) string {
	const mib = 1 << 20
	switch {
	case b < mib:
		return fmt.Sprintf("%d KiB", (b+1<<10-1)>>10)
	case b >= 1<<50:
		return "more than 1 PiB"
	case b >= 10<<40:
		return fmt.Sprintf("%d TiB", (b+1<<40-1)>>40)
	case b >= 10<<30:
		return fmt.Sprintf("%d GiB", (b+1<<30-1)>>30)
	}
	return fmt.Sprintf("%d MiB", (b+mib-1)/mib)
}

// Check refuses need bytes over limit (limit ≤ 0: no limit) with an
// *Error; what and hint are made only then. Under the limit it lets the
// collector know (SetSoftLimit).
func Check(need, limit int64, what func() string, hint string) error {
	if limit > 0 && need > limit {
		return &Error{What: what(), Need: need, Limit: limit, Hint: hint}
	}
	admitted(limit)
	return nil
}

// Mul is the product of sizes, saturating at math.MaxInt64 (an estimate
// of a million states cubed must not wrap to a small number).
func Mul(xs ...int64) int64 {
	p := int64(1)
	for _, x := range xs {
		if x <= 0 {
			return 0
		}
		if p > math.MaxInt64/x {
			return math.MaxInt64
		}
		p *= x
	}
	return p
}

// Add is the sum of sizes, saturating at math.MaxInt64.
func Add(xs ...int64) int64 {
	s := int64(0)
	for _, x := range xs {
		if x > 0 && s > math.MaxInt64-x {
			return math.MaxInt64
		}
		s += x
	}
	return s
}

// Of is the bytes of n values of size each (8 for a float64).
func Of(n, size int64) int64 { return Mul(n, size) }

// Zeroed is make([]T, n) with every element written at once. make
// leaves memory the runtime has just taken from the system unwritten
// (the system gives it zeroed), and a table whose first access is a read
// — a count added to, a cell cleared as it is read, a slot looked up —
// then faults twice a page: once to map the shared zero page, again at
// the first write, to replace it, which also flushes the page from the
// TLB of every core the process's threads run on. A short process (a
// shell loop's estep or mstep) takes most of its memory fresh: written
// first, each page faults once.
func Zeroed[T any](n int) []T {
	s := make([]T, n)
	clear(s)
	return s
}

// tuning says whether Check may lower the collector's soft limit: only
// in a program's own process (program.Main), never under tests that run
// programs side by side.
var tuning atomic.Bool

// TuneGC lets Check set the collector's soft limit (SetSoftLimit).
func TuneGC() { tuning.Store(true) }

var softMu sync.Mutex

// admitted lowers the Go heap's soft limit to what the process holds now
// (the corpus, read by then) plus limit, unless GOMEMLIMIT is set: the
// programs run with GOGC=400, which would otherwise let a job that fills
// its limit grow its garbage to several times more.
func admitted(limit int64) {
	if limit <= 0 || !tuning.Load() || os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	held := int64(0)
	if s[0].Value.Kind() == metrics.KindUint64 {
		held = int64(min(s[0].Value.Uint64(), math.MaxInt64))
	}
	want := Add(held, limit, 64<<20) // and room for the runtime's own
	softMu.Lock()
	defer softMu.Unlock()
	if cur := debug.SetMemoryLimit(-1); want < cur {
		debug.SetMemoryLimit(want)
	}
}

// Machine is the memory this process may have: RAM and swap (ramAndSwap),
// or the cgroup's limit when lower; 0 when unknown.
func Machine() int64 {
	machineOnce.Do(func() { machine = readMachine() })
	return machine
}

var (
	machineOnce sync.Once
	machine     int64
)

func readMachine() int64 {
	total := ramAndSwap()
	if b, err := os.ReadFile("/sys/fs/cgroup/memory.max"); err == nil {
		if v, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64); err == nil && v > 0 && (total == 0 || v < total) {
			total = v
		}
	}
	return total
}

// Parse reads a --max-memory value: a size with a unit (512M, 1G, 2T;
// powers of 1024) or a number of MiB (1024, as train-ce's flag always
// took). 0 is the whole machine (Machine). A value above the machine's
// memory is refused: what it would admit could not be had.
func Parse(s string) (int64, error) {
	bad := fmt.Errorf("--max-memory must be a size such as 512M, 1G or a number of MiB (0: this machine's memory), not %q", s)
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, bad
	}
	unit, digits := int64(1<<20), s
	if c := s[len(s)-1]; c < '0' || c > '9' {
		shift := strings.Index("KMGT", strings.ToUpper(s[len(s)-1:]))
		if shift < 0 {
			return 0, bad // 12X is no size, not 12 MiB
		}
		unit, digits = 1<<(10*(shift+1)), s[:len(s)-1]
	}
	n, err := strconv.ParseInt(digits, 10, 64)
	if err != nil || n < 0 || n > (1<<62)/unit {
		return 0, bad
	}
	bytes := n * unit
	m := Machine()
	switch {
	case bytes == 0 && m > 0:
		return m, nil
	case bytes == 0:
		return Default * 16, nil // unknown machine: a generous bound, still a bound
	case m > 0 && bytes > m:
		return 0, fmt.Errorf("--max-memory %s is more than this machine has (%s)", s, Size(m))
	}
	return bytes, nil
}
