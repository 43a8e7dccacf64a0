package dmv

// SetKernel makes the E-step use the lane kernel k ("" for the scalar
// chart alone) until the returned function restores the one before.
func SetKernel(k string) (restore func()) {
	old := kernel
	kernel = k
	return func() { kernel = old }
}

// LaneKernel is the lane kernel tests can run here: this build's, when
// this machine has its instructions ("" otherwise).
func LaneKernel() string { return testedKernel() }

func testedKernel() string {
	if vecRuns() {
		return vecKernel
	}
	return ""
}
