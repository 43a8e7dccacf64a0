package classes

import (
	"math"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/mat"

	"github.com/grind-nlp/grind/pipeline"
)

// Klein's distributional word classes (Klein 2005 §2.1.4): "For
// (all-lowercased) word types in the Penn treebank, a 1000 element vector
// was made by counting how often each co-occurred with each of the 500
// most common words immediately to the left or right ... These vectors
// were length-normalized, and then rank-reduced by an SVD, keeping the 50
// largest singular vectors. The resulting vectors were clustered into 200
// word classes by a weighted k-means algorithm."
//
// What the thesis leaves open, and what grind chose (README, train-classes):
// the rank-reduced vector of a word is its row of U_r Σ_r = M V_r (the
// coordinates of the rank-r approximation of M, whose distances they
// keep); the SVD is taken through the eigenvectors of MᵀM (gonum's
// EigenSym), which are M's right singular vectors; a word's weight in
// k-means is its count, so the centroids are token averages; k-means
// starts from k-means++ (seeded) and runs Lloyd's iterations until no word
// changes class or MaxIter; the sentence edge is no word and counts
// nothing.

// KleinOptions are the thesis's numbers by default (NewKleinOptions).
type KleinOptions struct {
	Classes  int // k-means's k (200)
	Contexts int // the most common words counted on each side (500)
	Rank     int // singular vectors kept (50)
	MaxIter  int // Lloyd's iterations at most
	Seed     uint64
	Workers  int
}

// KleinResult is each word type's class (0 the heaviest class, by
// tokens), the vectors k-means clustered (word-major, Rank columns), the
// singular values kept, the weighted distortion Σ n(w)·‖x_w − μ‖² and the
// iterations run.
type KleinResult struct {
	Class      []int
	Classes    int
	Vectors    []float64
	Rank       int
	Singular   []float64
	Distortion float64
	Iterations int
}

// Klein clusters the word types of c (lowercased by the caller, as the
// thesis does).
func Klein(c *Corpus, opts KleinOptions) (*KleinResult, error) {
	if err := checkClasses(c, opts.Classes); err != nil {
		return nil, err
	}
	x, sing, r := kleinVectors(c, opts.Contexts, opts.Rank, opts.Workers)
	weights := make([]float64, len(c.Types))
	for i, n := range c.Counts {
		weights[i] = float64(n)
	}
	km := kmeans(x, r, weights, opts.Classes, opts.MaxIter, opts.Seed, opts.Workers)
	return &KleinResult{Class: km.class, Classes: km.k, Vectors: x, Rank: r, Singular: sing, Distortion: km.distortion, Iterations: km.iterations}, nil
}

// contextRows is M, one row per word type: counts of each of the m most
// common words (types 0..m−1) just left of the word (columns 0..m−1) and
// just right (m..2m−1), each row scaled to length 1, in sparse form.
type contextRows struct {
	ptr  []int // row w is cols[ptr[w]:ptr[w+1]]
	cols []int32
	vals []float64
	d    int
}

func newContextRows(c *Corpus, contexts int) *contextRows {
	v := len(c.Types)
	m := min(contexts, v)
	d := 2 * m
	var keys []uint64
	for _, s := range c.Sents {
		for i, w := range s {
			if i > 0 && int(s[i-1]) < m {
				keys = append(keys, uint64(w)*uint64(d)+uint64(s[i-1]))
			}
			if i+1 < len(s) && int(s[i+1]) < m {
				keys = append(keys, uint64(w)*uint64(d)+uint64(m)+uint64(s[i+1]))
			}
		}
	}
	slices.Sort(keys)
	rows := &contextRows{ptr: make([]int, v+1), d: d}
	for i := 0; i < len(keys); {
		j := i
		for j < len(keys) && keys[j] == keys[i] {
			j++
		}
		w := int(keys[i] / uint64(d))
		rows.ptr[w+1]++
		rows.cols = append(rows.cols, int32(keys[i]%uint64(d)))
		rows.vals = append(rows.vals, float64(j-i))
		i = j
	}
	for w := 0; w < v; w++ {
		rows.ptr[w+1] += rows.ptr[w]
		vals := rows.vals[rows.ptr[w]:rows.ptr[w+1]]
		var ss float64
		for _, x := range vals {
			ss += x * x
		}
		if ss > 0 { // a word never next to a common word keeps its zero row
			norm := math.Sqrt(ss)
			for i := range vals {
				vals[i] /= norm
			}
		}
	}
	return rows
}

// gram is MᵀM (d×d, dense), each row computed by one worker in a fixed
// order, so that it does not depend on their number.
func (rows *contextRows) gram(workers int) []float64 {
	d := rows.d
	// The columns of M: for column i, the rows that have it.
	colPtr := make([]int, d+1)
	for _, j := range rows.cols {
		colPtr[j+1]++
	}
	for i := 0; i < d; i++ {
		colPtr[i+1] += colPtr[i]
	}
	colRow := make([]int32, len(rows.cols))
	colVal := make([]float64, len(rows.cols))
	fill := slices.Clone(colPtr[:d])
	for w := 0; w+1 < len(rows.ptr); w++ {
		for k := rows.ptr[w]; k < rows.ptr[w+1]; k++ {
			j := rows.cols[k]
			colRow[fill[j]], colVal[fill[j]] = int32(w), rows.vals[k]
			fill[j]++
		}
	}
	g := make([]float64, d*d)
	pipeline.ForEachChunk(chunks(d), workers, func(_, ch int) {
		lo, hi := chunk(ch, d)
		for i := lo; i < hi; i++ {
			gi := g[i*d : (i+1)*d]
			for k := colPtr[i]; k < colPtr[i+1]; k++ {
				w, v := colRow[k], colVal[k]
				for l := rows.ptr[w]; l < rows.ptr[w+1]; l++ {
					gi[rows.cols[l]] += v * rows.vals[l]
				}
			}
		}
	})
	return g
}

// kleinVectors is M V_r (word-major, r columns), the r largest singular
// values of M, and r.
func kleinVectors(c *Corpus, contexts, rank, workers int) ([]float64, []float64, int) {
	rows := newContextRows(c, contexts)
	d := rows.d
	var eig mat.EigenSym
	if !eig.Factorize(mat.NewSymDense(d, rows.gram(workers)), true) {
		panic("classes: the eigendecomposition of MᵀM did not converge")
	}
	vals := eig.Values(nil) // ascending
	var vecs mat.Dense
	eig.VectorsTo(&vecs)
	r := min(rank, d)
	basis := make([]float64, d*r) // V_r, row-major d×r, largest first
	sing := make([]float64, r)
	for c := 0; c < r; c++ {
		src := d - 1 - c
		sing[c] = math.Sqrt(max(vals[src], 0))
		// A singular vector's sign is arbitrary: the largest entry is
		// made positive, so the vectors do not depend on the solver's.
		sign, big := 1.0, 0.0
		for i := 0; i < d; i++ {
			if a := math.Abs(vecs.At(i, src)); a > big {
				big, sign = a, math.Copysign(1, vecs.At(i, src))
			}
		}
		for i := 0; i < d; i++ {
			basis[i*r+c] = sign * vecs.At(i, src)
		}
	}
	v := len(c.Types)
	x := make([]float64, v*r)
	pointChunks := pointChunksOf(v)
	pipeline.ForEachChunk(len(pointChunks), workers, func(_, ch int) {
		for w := pointChunks[ch][0]; w < pointChunks[ch][1]; w++ {
			xw := x[w*r : (w+1)*r]
			for k := rows.ptr[w]; k < rows.ptr[w+1]; k++ {
				val, b := rows.vals[k], basis[int(rows.cols[k])*r:]
				for c := range xw {
					xw[c] += val * b[c]
				}
			}
		}
	})
	return x, sing, r
}

// pointChunk is the points of a chunk of k-means's work.
const pointChunk = 512

func pointChunksOf(n int) [][2]int {
	var out [][2]int
	for i := 0; i < n; i += pointChunk {
		out = append(out, [2]int{i, min(i+pointChunk, n)})
	}
	return out
}

type kmeansResult struct {
	class      []int
	k          int // the classes that have words
	distortion float64
	iterations int
}

// kmeans clusters the n points of x (r columns) with weights into k
// classes: weighted k-means++ seeding, then Lloyd's iterations (a point
// goes to its nearest centroid, ties to the lower index; a centroid is its
// points' weighted mean) until no point moves or maxIter. A class left
// empty takes the point that adds most to the distortion. The classes are
// then renumbered by weight, heaviest first, and empty ones dropped.
func kmeans(x []float64, r int, weights []float64, k, maxIter int, seed uint64, workers int) kmeansResult {
	n := len(weights)
	rng := rand.New(rand.NewPCG(seed, 0x6b6d65616e732b2b))
	cent := make([]float64, k*r)
	dist := make([]float64, n) // squared distance to the nearest centroid so far
	for i := range dist {
		dist[i] = math.Inf(1)
	}
	chunks := pointChunksOf(n)
	point := func(i int) []float64 { return x[i*r : (i+1)*r] }
	sq := func(a, b []float64) float64 {
		var s float64
		for j := range a {
			d := a[j] - b[j]
			s += d * d
		}
		return s
	}
	chosen := make([]bool, n)
	for c := 0; c < k; c++ {
		var total float64
		for i := 0; i < n; i++ {
			if c == 0 {
				total += weights[i]
			} else {
				total += weights[i] * dist[i]
			}
		}
		pick := -1
		if total > 0 {
			u := rng.Float64() * total
			for i := 0; i < n; i++ {
				if c == 0 {
					u -= weights[i]
				} else {
					u -= weights[i] * dist[i]
				}
				if u < 0 && !chosen[i] {
					pick = i
					break
				}
			}
		}
		if pick < 0 { // every point sits on a centroid: the first not chosen
			for i := n - 1; i >= 0; i-- {
				if !chosen[i] {
					pick = i
				}
			}
		}
		chosen[pick] = true
		copy(cent[c*r:], point(pick))
		pipeline.ForEachChunk(len(chunks), workers, func(_, ch int) {
			for i := chunks[ch][0]; i < chunks[ch][1]; i++ {
				dist[i] = min(dist[i], sq(point(i), cent[c*r:(c+1)*r]))
			}
		})
	}

	class := make([]int, n)
	for i := range class {
		class[i] = -1
	}
	moved := make([]int, len(chunks))
	sums := make([]float64, len(chunks)*k*(r+1)) // per chunk: k sums of r, then k weights
	res := kmeansResult{}
	for res.iterations < maxIter {
		res.iterations++
		pipeline.ForEachChunk(len(chunks), workers, func(_, ch int) {
			moved[ch] = 0
			part := sums[ch*k*(r+1) : (ch+1)*k*(r+1)]
			clear(part)
			for i := chunks[ch][0]; i < chunks[ch][1]; i++ {
				p := point(i)
				best, bestD := 0, math.Inf(1)
				for c := 0; c < k; c++ {
					if d := sq(p, cent[c*r:(c+1)*r]); d < bestD {
						best, bestD = c, d
					}
				}
				if class[i] != best {
					class[i] = best
					moved[ch]++
				}
				dist[i] = bestD
				acc := part[best*r : (best+1)*r]
				for j, v := range p {
					acc[j] += weights[i] * v
				}
				part[k*r+best] += weights[i]
			}
		})
		changes := 0
		for _, m := range moved {
			changes += m
		}
		if changes == 0 {
			break
		}
		// The centroids: the chunks' sums added in chunk order.
		clear(cent)
		mass := make([]float64, k)
		for ch := range chunks {
			part := sums[ch*k*(r+1):]
			for j := 0; j < k*r; j++ {
				cent[j] += part[j]
			}
			for c := 0; c < k; c++ {
				mass[c] += part[k*r+c]
			}
		}
		for c := 0; c < k; c++ {
			if mass[c] > 0 {
				for j := c * r; j < (c+1)*r; j++ {
					cent[j] /= mass[c]
				}
				continue
			}
			// An empty class takes the point that costs most where it is.
			far, farD := -1, 0.0
			for i := 0; i < n; i++ {
				if d := weights[i] * dist[i]; d > farD {
					far, farD = i, d
				}
			}
			if far >= 0 {
				copy(cent[c*r:], point(far))
				dist[far] = 0
			}
		}
	}
	for i := 0; i < n; i++ {
		res.distortion += weights[i] * dist[i]
	}
	// Renumber: heaviest class first (ties: the lower old number).
	mass := make([]float64, k)
	for i, c := range class {
		mass[c] += weights[i]
	}
	order := make([]int, k)
	for c := range order {
		order[c] = c
	}
	slices.SortStableFunc(order, func(a, b int) int {
		switch {
		case mass[a] > mass[b]:
			return -1
		case mass[a] < mass[b]:
			return 1
		}
		return 0
	})
	renum := make([]int, k)
	for newC, old := range order {
		renum[old] = newC
		if mass[old] > 0 {
			res.k++
		}
	}
	for i, c := range class {
		class[i] = renum[c]
	}
	res.class = class
	return res
}
