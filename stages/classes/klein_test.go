package classes

import (
	"math"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/grind-nlp/grind/format"
)

// handCorpus: determiners, nouns and verbs in a fixed frame, so the three
// classes are obvious.
func handCorpus() []*format.Sentence {
	dets := []string{"the", "a", "this"}
	nouns := []string{"dog", "cat", "man", "bird"}
	verbs := []string{"runs", "sleeps", "eats", "sings"}
	var out []*format.Sentence
	for i := 0; i < 60; i++ {
		d, n, v := dets[i%3], nouns[(i/3)%4], verbs[(i*7)%4]
		n2 := nouns[(i+1)%4]
		out = append(out, &format.Sentence{Words: []string{d, n, v, d, n2}, Tags: []string{"D", "N", "V", "D", "N"}})
	}
	return out
}

// The vectors are M V_r, which is U_r Σ_r of gonum's SVD of the dense M:
// the same singular values, and the same Gram matrix X Xᵀ (which does not
// depend on the singular vectors' signs).
func TestKleinVectorsAreTheSVD(t *testing.T) {
	sents := classCorpus(5, 200, 4, 6)
	c := NewCorpus(sents, true)
	const contexts, rank = 7, 4
	x, sing, r := kleinVectors(c, contexts, rank, 3)
	if r != rank {
		t.Fatalf("rank %d", r)
	}
	rows := newContextRows(c, contexts)
	v, d := len(c.Types), rows.d
	dense := mat.NewDense(v, d, nil)
	for w := 0; w < v; w++ {
		var norm float64
		for k := rows.ptr[w]; k < rows.ptr[w+1]; k++ {
			dense.Set(w, int(rows.cols[k]), rows.vals[k])
			norm += rows.vals[k] * rows.vals[k]
		}
		if norm > 0 && math.Abs(norm-1) > 1e-12 {
			t.Fatalf("row %d has length² %g", w, norm)
		}
	}
	// The counts behind the first row, by hand.
	first := map[int]float64{}
	for _, s := range c.Sents {
		for i, w := range s {
			if w != 0 {
				continue
			}
			if i > 0 && int(s[i-1]) < contexts {
				first[int(s[i-1])]++
			}
			if i+1 < len(s) && int(s[i+1]) < contexts {
				first[contexts+int(s[i+1])]++
			}
		}
	}
	var ss float64
	for _, n := range first {
		ss += n * n
	}
	for j := 0; j < d; j++ {
		if want := first[j] / math.Sqrt(ss); math.Abs(dense.At(0, j)-want) > 1e-12 {
			t.Fatalf("M[0][%d] = %g, counted %g", j, dense.At(0, j), want)
		}
	}
	var svd mat.SVD
	if !svd.Factorize(dense, mat.SVDThin) {
		t.Fatal("SVD failed")
	}
	values := svd.Values(nil)
	var u mat.Dense
	svd.UTo(&u)
	for c := 0; c < rank; c++ {
		if math.Abs(values[c]-sing[c]) > 1e-9 {
			t.Errorf("singular value %d: %g, gonum's SVD %g", c, sing[c], values[c])
		}
	}
	for a := 0; a < v; a++ {
		for b := 0; b < v; b++ {
			var got, want float64
			for c := 0; c < rank; c++ {
				got += x[a*r+c] * x[b*r+c]
				want += u.At(a, c) * values[c] * u.At(b, c) * values[c]
			}
			if math.Abs(got-want) > 1e-9 {
				t.Fatalf("(X Xᵀ)[%d][%d] = %g, from the SVD %g", a, b, got, want)
			}
		}
	}
}

// On the hand-made corpus the three classes are the determiners, the
// nouns and the verbs, whatever the seed and the workers.
func TestKleinHandCorpus(t *testing.T) {
	c := NewCorpus(handCorpus(), true)
	var first []int
	for _, seed := range []uint64{1, 2, 3} {
		for _, workers := range []int{1, 4} {
			res, err := Klein(c, KleinOptions{Classes: 3, Contexts: 500, Rank: 50, MaxIter: 100, Seed: seed, Workers: workers})
			if err != nil {
				t.Fatal(err)
			}
			groups := map[int][]string{}
			for w, cl := range res.Class {
				groups[cl] = append(groups[cl], c.Types[w])
			}
			var got []string
			for _, g := range groups {
				slices.Sort(g)
				got = append(got, strings.Join(g, " "))
			}
			slices.Sort(got)
			want := []string{"a the this", "bird cat dog man", "eats runs sings sleeps"}
			if !slices.Equal(got, want) {
				t.Errorf("seed %d workers %d: classes %q, want %q", seed, workers, got, want)
			}
			if workers == 1 {
				first = res.Class
			} else if !slices.Equal(first, res.Class) {
				t.Errorf("seed %d: classes differ with %d workers", seed, workers)
			}
		}
	}
}

// k-means against a brute force on a tiny weighted set: the result is a
// fixed point (each point at its nearest centroid, each centroid its
// points' weighted mean), and with two well-separated groups it finds
// them; its distortion is the weighted one.
func TestKMeans(t *testing.T) {
	x := []float64{0, 0, 0.1, 0, 0, 0.2, 5, 5, 5.2, 5, 5, 5.1, 9, 0}
	w := []float64{1, 3, 2, 1, 1, 5, 1}
	res := kmeans(x, 2, w, 3, 100, 1, 2)
	if res.k != 3 {
		t.Fatalf("%d classes", res.k)
	}
	if res.class[0] != res.class[1] || res.class[1] != res.class[2] || res.class[3] != res.class[4] || res.class[4] != res.class[5] ||
		res.class[0] == res.class[3] || res.class[6] == res.class[0] || res.class[6] == res.class[3] {
		t.Fatalf("classes %v", res.class)
	}
	// Heaviest first: the second group weighs 7, the first 6, the last 1.
	if res.class[3] != 0 || res.class[0] != 1 || res.class[6] != 2 {
		t.Errorf("classes %v not numbered by weight", res.class)
	}
	var want float64
	for c := 0; c < 3; c++ {
		var mx, my, m float64
		for i, cl := range res.class {
			if cl == c {
				mx += w[i] * x[2*i]
				my += w[i] * x[2*i+1]
				m += w[i]
			}
		}
		mx, my = mx/m, my/m
		for i, cl := range res.class {
			if cl == c {
				want += w[i] * ((x[2*i]-mx)*(x[2*i]-mx) + (x[2*i+1]-my)*(x[2*i+1]-my))
			}
		}
	}
	if math.Abs(res.distortion-want) > 1e-12 {
		t.Errorf("distortion %g, want %g", res.distortion, want)
	}
}

// Klein's classes of a corpus with more word types than one chunk of
// work are the same for any number of workers.
func TestKleinWorkers(t *testing.T) {
	c := NewCorpus(classCorpus(17, 3000, 6, 300), true)
	if len(c.Types) < 3*pointChunk {
		t.Fatalf("only %d word types", len(c.Types))
	}
	var first *KleinResult
	for _, w := range []int{1, 2, 7} {
		res, err := Klein(c, KleinOptions{Classes: 20, Contexts: 100, Rank: 10, MaxIter: 50, Seed: 4, Workers: w})
		if err != nil {
			t.Fatal(err)
		}
		if first == nil {
			first = res
			continue
		}
		if !slices.Equal(first.Class, res.Class) || !slices.Equal(first.Vectors, res.Vectors) || first.Distortion != res.Distortion {
			t.Fatalf("%d workers: other classes, vectors or distortion than 1 worker", w)
		}
	}
}

// Points that coincide: more classes than distinct points leaves classes
// empty, which are dropped, and no point is lost.
func TestKMeansCoincidentPoints(t *testing.T) {
	x := []float64{1, 1, 1, 1, 2, 2, 2, 2, 1, 1}
	res := kmeans(x, 2, []float64{1, 2, 3, 1, 1}, 4, 100, 3, 2)
	if res.k != 2 {
		t.Fatalf("%d classes used, want 2", res.k)
	}
	if res.class[0] != res.class[1] || res.class[1] != res.class[4] || res.class[2] != res.class[3] || res.class[0] == res.class[2] {
		t.Fatalf("classes %v", res.class)
	}
	if res.distortion != 0 {
		t.Errorf("distortion %g", res.distortion)
	}
}
