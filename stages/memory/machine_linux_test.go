package memory

import (
	"bufio"
	"bytes"
	"os"
	"strconv"
	"strings"
	"testing"
)

// TestRAMAndSwapIsMeminfos: ramAndSwap gives /proc/meminfo's MemTotal and
// SwapTotal, to the byte.
func TestRAMAndSwapIsMeminfos(t *testing.T) {
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		t.Skip(err)
	}
	want, seen := int64(0), 0
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) >= 2 && (f[0] == "MemTotal:" || f[0] == "SwapTotal:") {
			kb, err := strconv.ParseInt(f[1], 10, 64)
			if err != nil {
				t.Fatalf("/proc/meminfo: %q: %v", sc.Text(), err)
			}
			want += kb << 10
			seen++
		}
	}
	if seen != 2 {
		t.Skipf("/proc/meminfo without MemTotal and SwapTotal: %.200s", b)
	}
	if got := ramAndSwap(); got != want {
		t.Errorf("ramAndSwap() = %d, /proc/meminfo says %d", got, want)
	}
}
