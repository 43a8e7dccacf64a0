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

// SetLaneVectors makes the lattice chart's lane loops run in vectors
// (where this build and machine have them) or in plain loops, until the
// returned function restores the setting before.
func SetLaneVectors(on bool) (restore func()) {
	old := laneVec
	laneVec = on && laneKernel() != ""
	return func() { laneVec = old }
}
