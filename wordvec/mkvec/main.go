// Command mkvec prepares text to learn word vectors from, and writes
// lore's word vector table (wordvec/table.bin) from the vectors fastText
// learned on it:
//
//	go run ./wordvec/mkvec -split < text > words      # a line of tokens (wordvec.Tokens) a line of text
//	go run ./wordvec/mkvec -count < words > counts.txt
//	fasttext skipgram -input words -output vectors -dim 100 -epoch 5 -minCount 5 -minn 0 -maxn 0
//	go run ./wordvec/mkvec -vec vectors.vec -counts counts.txt -words 50000 -o wordvec/table.bin
//
// vectors.vec is fastText's text output (a header line, then a word and
// its numbers a line); counts.txt holds "word count" a line, the counts
// over the whole text (wordvec/README.md says how both were made). The
// table keeps the most frequent words that have a vector, weighs each by
// a/(a+p), p its share of the text (Arora et al.'s smooth inverse
// frequency: rare words say more), and stores each unit vector as bytes.
package main

import (
	"bufio"
	"cmp"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"

	"lore/wordvec"
)

func main() {
	vecPath := flag.String("vec", "", "fastText vectors (.vec)")
	countsPath := flag.String("counts", "", "word counts of the training text")
	words := flag.Int("words", 50000, "words to keep, most frequent first")
	a := flag.Float64("a", 1e-3, "smooth inverse frequency constant")
	out := flag.String("o", "table.bin", "where to write the table")
	splitText := flag.Bool("split", false, "write stdin's lines as tokens (lines of fewer than 3 are dropped)")
	count := flag.Bool("count", false, "write the counts of stdin's tokens, most frequent first (5 at least)")
	flag.Parse()
	var err error
	switch {
	case *splitText:
		err = splitLines(os.Stdin, os.Stdout)
	case *count:
		err = countWords(os.Stdin, os.Stdout)
	default:
		err = run(*vecPath, *countsPath, *words, *a, *out)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "mkvec:", err)
		os.Exit(1)
	}
}

func splitLines(in io.Reader, out io.Writer) error {
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	w := bufio.NewWriter(out)
	for sc.Scan() {
		for line := range strings.SplitSeq(sc.Text(), "\r") { // a lone CR ends a line too
			if ts := wordvec.Tokens(line); len(ts) >= 3 {
				w.WriteString(strings.Join(ts, " "))
				w.WriteByte('\n')
			}
		}
	}
	if err := sc.Err(); err != nil {
		return err
	}
	return w.Flush()
}

func countWords(in io.Reader, out io.Writer) error {
	counts := map[string]int{}
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		for _, t := range strings.Fields(sc.Text()) {
			counts[t]++
		}
	}
	if err := sc.Err(); err != nil {
		return err
	}
	words := slices.SortedFunc(maps.Keys(counts), func(a, b string) int {
		if c := cmp.Compare(counts[b], counts[a]); c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})
	w := bufio.NewWriter(out)
	for _, t := range words {
		if counts[t] < 5 {
			break
		}
		fmt.Fprintf(w, "%s %d\n", t, counts[t])
	}
	return w.Flush()
}

func run(vecPath, countsPath string, keep int, a float64, out string) error {
	counts, total, err := readCounts(countsPath)
	if err != nil {
		return err
	}
	entries, dim, err := readVectors(vecPath, counts)
	if err != nil {
		return err
	}
	slices.SortFunc(entries, func(x, y wordvec.Entry) int {
		if c := cmp.Compare(y.Count, x.Count); c != 0 {
			return c
		}
		return strings.Compare(x.Word, y.Word)
	})
	entries = entries[:min(keep, len(entries))]
	data := wordvec.Encode(entries, dim, total, a)
	if _, err := wordvec.Parse(data); err != nil {
		return fmt.Errorf("the table written does not read back: %v", err)
	}
	return os.WriteFile(out, data, 0o644)
}

func readCounts(path string) (map[string]int, int, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	counts, total := map[string]int{}, 0
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		w, c, ok := strings.Cut(sc.Text(), " ")
		k, err := strconv.Atoi(c)
		if !ok || err != nil {
			return nil, 0, fmt.Errorf("%s:%d: want \"word count\"", path, n)
		}
		counts[w] = k
		total += k
	}
	return counts, total, sc.Err()
}

// readVectors keeps the vectors of words the tokenizer can produce (as
// wordvec.Tokens splits text) and that have a count.
func readVectors(path string, counts map[string]int) ([]wordvec.Entry, int, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	dim := 0
	var out []wordvec.Entry
	for n := 1; sc.Scan(); n++ {
		fields := strings.Fields(sc.Text())
		if n == 1 {
			if len(fields) != 2 {
				return nil, 0, fmt.Errorf("%s:1: want the header \"words dim\"", path)
			}
			dim, _ = strconv.Atoi(fields[1])
			continue
		}
		if len(fields) != dim+1 {
			return nil, 0, fmt.Errorf("%s:%d: want a word and %d numbers", path, n, dim)
		}
		w := fields[0]
		if ws := wordvec.Tokens(w); len(ws) != 1 || ws[0] != w || len(w) > 255 || counts[w] == 0 {
			continue
		}
		v := make([]float64, dim)
		for i, s := range fields[1:] {
			if v[i], err = strconv.ParseFloat(s, 64); err != nil {
				return nil, 0, fmt.Errorf("%s:%d: %v", path, n, err)
			}
		}
		out = append(out, wordvec.Entry{Word: w, Count: counts[w], Vec: v})
	}
	return out, dim, sc.Err()
}
