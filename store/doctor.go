package store

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"lore/record"
	"lore/secrets"
)

// Problem is one thing lore doctor found.
type Problem struct {
	File    string `json:"file"`
	Line    int    `json:"line,omitempty"`
	Kind    string `json:"kind"` // malformed, torn, conflict, tie, newer-format, attributes, temp-file, secret
	Message string `json:"message"`
	Fixable bool   `json:"fixable"`
	Fixed   bool   `json:"fixed"`
}

func (p Problem) String() string {
	pos := p.File
	if p.Line > 0 {
		pos = fmt.Sprintf("%s:%d", p.File, p.Line)
	}
	return pos + ": " + p.Message
}

// tempAge is how old a temporary file must be to count as left over: a
// younger one may belong to a write in progress.
const tempAge = time.Minute

// Doctor checks the store: every shard parses, no torn tails or conflict
// markers, no same-timestamp conflicts between versions, no record from a
// newer format, lore's .gitattributes and .gitignore, no leftover temporary
// files, no secret already in the store. With fix it repairs what is safe:
// torn tails and unparseable lines (moved to .lore/.local/quarantine),
// conflict-marker lines in JSONL shards, the attribute files, old
// temporary files. A rewrite that would lose a record is refused.
func (s *Store) Doctor(fix bool) ([]Problem, error) {
	var probs []Problem
	if fix {
		unlock, err := s.Lock()
		if err != nil {
			return nil, err
		}
		defer unlock()
	}
	files, err := s.Files()
	if err != nil {
		return nil, err
	}
	set := &Set{versions: map[string][]*record.Record{}}
	results := s.checkShards(files, fix)
	for _, r := range results {
		if r.err != nil {
			return nil, r.err
		}
		probs = append(probs, r.probs...)
		for _, rec := range r.recs {
			set.add(rec)
		}
	}
	for _, t := range set.Ties {
		winner := t[0]
		if record.Newer(t[1], t[0]) {
			winner = t[1]
		}
		probs = append(probs, Problem{File: t[1].Source.File, Line: t[1].Source.Line, Kind: "tie",
			Message: fmt.Sprintf("%s has two different versions at %s (the other at %s); lore serves the one in %s: revise the record to settle it",
				record.ShortID(t[0].ID), t[0].Time.Format(time.RFC3339Nano), t[0].Source, winner.Source)})
	}
	for _, r := range results {
		probs = append(probs, r.secrets...)
	}
	probs = append(probs, s.checkAttributes(fix)...)
	tmp, err := s.checkTempFiles(fix)
	if err != nil {
		return nil, err
	}
	return append(probs, tmp...), nil
}

// shardCheck is what doctor found in one shard.
type shardCheck struct {
	probs, secrets []Problem
	recs           []*record.Record
	err            error
}

// checkShards checks every shard, on every core unless fix rewrites them
// (repairs go one at a time), and returns the results in files' order.
func (s *Store) checkShards(files []string, fix bool) []shardCheck {
	out := make([]shardCheck, len(files))
	workers := runtime.GOMAXPROCS(0)
	if fix {
		workers = 1
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(workers, len(files)) {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < len(files); i = int(next.Add(1) - 1) {
				c := &out[i]
				c.probs, c.recs, c.err = s.checkShard(files[i], fix)
				for _, v := range c.recs {
					for _, f := range secrets.ScrubRecord(v.Derive(v.Time, record.Origin{})) {
						c.secrets = append(c.secrets, Problem{File: v.Source.File, Line: v.Source.Line, Kind: "secret",
							Message: fmt.Sprintf("%s holds a %s in %s: run 'lore forget %s --purge' and rotate the secret", record.ShortID(v.ID), f.Kind, f.Field, record.ShortID(v.ID))})
					}
				}
			}
		})
	}
	wg.Wait()
	return out
}

// checkShard reports a shard's problems and, with fix, repairs it.
func (s *Store) checkShard(path string, fix bool) ([]Problem, []*record.Record, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	name := s.Rel(path)
	toml := strings.HasSuffix(path, ".toml")
	recs, warns, err := record.ParseShard(name, data)
	var newer *record.ErrNewerFormat
	if errors.As(err, &newer) {
		return []Problem{{File: name, Kind: "newer-format", Message: err.Error() + "; upgrade lore"}}, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	var probs []Problem
	drop := map[int]bool{} // line numbers to take out (1-based)
	for _, w := range warns {
		p := Problem{File: name, Line: w.Pos.Line, Message: w.Msg, Fixable: true}
		switch w.Kind {
		case record.WarnTorn:
			p.Kind = "torn"
		case record.WarnConflict:
			p.Kind, p.Fixable = "conflict", !toml
		default:
			p.Kind = "malformed"
		}
		if p.Fixable {
			drop[w.Pos.Line] = true
		}
		probs = append(probs, p)
	}
	if !fix || len(drop) == 0 {
		return probs, recs, nil
	}
	lines := strings.SplitAfter(string(data), "\n")
	if toml {
		// A bad table goes whole: from its header to the next one.
		chunks, _ := record.SplitTables(data)
		for line := range drop {
			for i, c := range chunks {
				end := len(lines) + 1
				if i+1 < len(chunks) {
					end = chunks[i+1].Line
				}
				if line >= c.Line && line < end {
					for l := c.Line; l < end; l++ {
						drop[l] = true
					}
				}
			}
		}
	}
	var kept, out []string
	for i, l := range lines {
		switch {
		case !drop[i+1]:
			kept = append(kept, l)
		case toml || !record.IsConflictMarker([]byte(l)):
			out = append(out, strings.TrimRight(l, "\n"))
		}
	}
	newData := []byte(strings.Join(kept, ""))
	if len(newData) > 0 && newData[len(newData)-1] != '\n' {
		newData = append(newData, '\n')
	}
	q, err := s.quarantine(path, out)
	if err != nil {
		return nil, nil, err
	}
	if err := s.rewriteShard(path, data, newData, nil); err != nil {
		return nil, nil, err
	}
	for i := range probs {
		if probs[i].Fixable {
			probs[i].Fixed = true
			if q != "" && probs[i].Kind != "conflict" {
				probs[i].Message += "; moved to " + s.Rel(q)
			}
		}
	}
	return probs, recs, nil
}

func (s *Store) checkAttributes(fix bool) []Problem {
	var probs []Problem
	for _, f := range []struct{ name, want, body string }{
		{".gitattributes", "merge=union", gitattributes},
		{".gitignore", ".local/", gitignore},
	} {
		path := filepath.Join(s.Dir, f.name)
		data, err := os.ReadFile(path)
		if err == nil && strings.Contains(string(data), f.want) {
			continue
		}
		p := Problem{File: s.Rel(path), Kind: "attributes", Fixable: true,
			Message: fmt.Sprintf("missing lore's %q line", f.want)}
		if fix {
			var werr error
			if err == nil { // keep the file's own lines, add lore's
				werr = WriteAtomic(path, []byte(strings.TrimRight(string(data), "\n")+"\n"+f.body))
			} else {
				werr = WriteAtomic(path, []byte(f.body))
			}
			p.Fixed = werr == nil
		}
		probs = append(probs, p)
	}
	return probs
}

func (s *Store) checkTempFiles(fix bool) ([]Problem, error) {
	var probs []Problem
	err := filepath.WalkDir(s.Dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasPrefix(d.Name(), ".tmp-") {
			return err
		}
		info, err := d.Info()
		if err != nil || time.Since(info.ModTime()) < tempAge {
			return nil
		}
		pr := Problem{File: s.Rel(p), Kind: "temp-file", Fixable: true, Message: "temporary file left by an interrupted write"}
		if fix {
			pr.Fixed = os.Remove(p) == nil
		}
		probs = append(probs, pr)
		return nil
	})
	return probs, err
}
