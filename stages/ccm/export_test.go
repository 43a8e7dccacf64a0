package ccm

import "github.com/grind-nlp/grind/internal/vec8"

// SetKernel makes the E-step use lane kernel k ("": the scalar chart
// alone) until restore is called.
func SetKernel(k string) (restore func()) {
	old := kernel
	kernel = k
	return func() { kernel = old }
}

// LaneKernel is the lane kernel tests can run here: this build's, when
// this machine has its instructions ("" otherwise).
func LaneKernel() string {
	if vec8.Runs() {
		return vec8.Kernel
	}
	return ""
}
