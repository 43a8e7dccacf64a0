package classes

import (
	"fmt"
	"slices"
	"strings"
)

// FunctionPrefix begins the class of a function word: with
// TrainOptions.FunctionWords, each of the most frequent word types keeps
// a class of its own, FunctionPrefix + the lowercased word ("w:the"). Its
// members are the closed-class words UD's content-head principle makes
// leaves (pr's content-heads rules), and a class of their own keeps them
// apart from the content words a cluster would share them with.
const FunctionPrefix = "w:"

// IsFunctionClass says whether a class is a function word's own.
func IsFunctionClass(class string) bool { return strings.HasPrefix(class, FunctionPrefix) }

// functionWords are the n most frequent lowercased forms of types (by
// the sum of their counts; ties by the form), each mapped to its class;
// an error when they would be every form.
func functionWords(types []string, counts []int, n int) (map[string]string, error) {
	total := map[string]int{}
	for i, w := range types {
		total[strings.ToLower(w)] += counts[i]
	}
	forms := make([]string, 0, len(total))
	for f := range total {
		forms = append(forms, f)
	}
	slices.SortFunc(forms, func(a, b string) int {
		if total[a] != total[b] {
			return total[b] - total[a]
		}
		return strings.Compare(a, b)
	})
	if n >= len(forms) {
		return nil, fmt.Errorf("%d function words of %d word forms would leave no word to the classes", n, len(forms))
	}
	out := make(map[string]string, n)
	for _, f := range forms[:n] {
		out[f] = FunctionPrefix + f
	}
	return out, nil
}

// withFunctionWords gives every type whose lowercased form is one of the
// n most frequent its function word's class instead of its cluster's.
func withFunctionWords(types []string, counts []int, names []string, n int) ([]string, error) {
	if n == 0 {
		return names, nil
	}
	fw, err := functionWords(types, counts, n)
	if err != nil {
		return nil, err
	}
	out := slices.Clone(names)
	for i, w := range types {
		if c, ok := fw[strings.ToLower(w)]; ok {
			out[i] = c
		}
	}
	return out, nil
}
