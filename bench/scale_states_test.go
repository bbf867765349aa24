//go:build unix

package bench

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"lore/record"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// pullInto brings the other clone's shards into the store under new file
// names, with current mtimes, as a git pull would. Each lands one month
// later than generated, so the pull also brings the newest month's
// directories (the generated stores end in 2026-10); lore goes by the
// directories' names, not the records' times.
func (s *scale) pullInto(work string) string {
	t := s.t
	dst := filepath.Join(work, ".lore")
	files, newDirs, recs := 0, 0, 0
	err := filepath.WalkDir(s.pull, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(s.pull, p)
		dir, name := filepath.Split(rel)
		if !strings.HasPrefix(name, "main-") || !isShardDir(dir) {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, nextMonth(t, dir))
		if _, err := os.Stat(target); errors.Is(err, os.ErrNotExist) {
			newDirs++
			if err := os.MkdirAll(target, 0o755); err != nil {
				return err
			}
		}
		files++
		recs += countRecords(name, data)
		return os.WriteFile(filepath.Join(target, "other-"+strings.TrimPrefix(name, "main-")), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("the pull added %s records in %d new shards, one month later than generated (%d new month directories)", commas(recs), files, newDirs)
}

// checkoutInto rewrites up to n JSONL shards, spread over the store, as a
// checkout of another branch would: the file is removed and written anew,
// without its last line and with one record of another clone appended.
func (s *scale) checkoutInto(work string, n int) string {
	t := s.t
	lore := filepath.Join(work, ".lore")
	var shards []string
	for _, k := range record.AllKinds() {
		if k.Ext() != ".jsonl" {
			continue
		}
		err := filepath.WalkDir(filepath.Join(lore, k.Dir()), func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(p, ".jsonl") {
				shards = append(shards, p)
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	slices.Sort(shards)
	picked := shards
	if len(shards) > n {
		picked = nil
		for i := range n {
			picked = append(picked, shards[i*len(shards)/n])
		}
	}
	used := map[string]int{}
	for _, p := range picked {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		lines := bytes.SplitAfter(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
		kindDir := strings.SplitN(filepath.ToSlash(strings.TrimPrefix(p, lore+string(filepath.Separator))), "/", 2)[0]
		pool := s.fresh[kindDir]
		if len(pool) == 0 {
			t.Fatalf("no replacement lines for %s", kindDir)
		}
		var b bytes.Buffer
		for _, l := range lines[:len(lines)-1] {
			b.Write(l)
		}
		b.WriteString(pool[used[kindDir]%len(pool)])
		used[kindDir]++
		if err := os.Remove(p); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return fmt.Sprintf("the checkout rewrote %d of %d JSONL shards", len(picked), len(shards))
}

// freshLines collects a store's JSONL record lines by kind directory.
func freshLines(t *testing.T, lore string) map[string][]string {
	m := map[string][]string{}
	for _, k := range record.AllKinds() {
		if k.Ext() != ".jsonl" {
			continue
		}
		err := filepath.WalkDir(filepath.Join(lore, k.Dir()), func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(p, ".jsonl") {
				return err
			}
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			for l := range strings.Lines(string(data)) {
				m[k.Dir()] = append(m[k.Dir()], l)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return m
}

// nextMonth maps kind/YYYY-MM/ to kind/<the month after>.
func nextMonth(t *testing.T, dir string) string {
	kind, month := filepath.Split(filepath.Clean(dir))
	m, err := time.Parse("2006-01", month)
	if err != nil {
		t.Fatalf("pull: %s is not a month directory", dir)
	}
	return filepath.Join(kind, m.AddDate(0, 1, 0).Format("2006-01"))
}

func isShardDir(dir string) bool {
	top := strings.SplitN(filepath.ToSlash(dir), "/", 2)[0]
	for _, k := range record.AllKinds() {
		if k.Dir() == top {
			return true
		}
	}
	return false
}

func countRecords(name string, data []byte) int {
	if strings.HasSuffix(name, ".toml") {
		return bytes.Count(data, []byte("[[pattern]]"))
	}
	return bytes.Count(data, []byte("\n"))
}

// recordIDs returns up to n distinct IDs of the kind from the store's
// shards, newest month first.
func recordIDs(t *testing.T, root string, k record.Kind, n int) []string {
	base := filepath.Join(root, ".lore", k.Dir())
	months, err := os.ReadDir(base)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	var ids []string
	for i := len(months) - 1; i >= 0 && len(ids) < n; i-- {
		files, err := filepath.Glob(filepath.Join(base, months[i].Name(), "*"+k.Ext()))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			sc := bufio.NewScanner(bytes.NewReader(data))
			sc.Buffer(nil, 1<<20)
			for sc.Scan() && len(ids) < n {
				var id string
				line := sc.Text()
				if k.Ext() == ".toml" {
					if rest, ok := strings.CutPrefix(line, "id = "); ok {
						id, _ = strconv.Unquote(rest)
					}
				} else {
					var r struct {
						ID string `json:"id"`
					}
					if json.Unmarshal([]byte(line), &r) == nil {
						id = r.ID
					}
				}
				if id != "" && !seen[id] {
					seen[id] = true
					ids = append(ids, id)
				}
			}
		}
	}
	if len(ids) == 0 {
		t.Fatalf("no %s records in %s", k, base)
	}
	return ids
}

func countFiles(t *testing.T, dir string) int {
	n := 0
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && (strings.HasSuffix(p, ".jsonl") || strings.HasSuffix(p, ".toml")) && filepath.Base(p) != "config.toml" {
			n++
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func gitRun(t *testing.T, dir string, timeout time.Duration, args ...string) {
	t.Helper()
	if err := gitTry(dir, timeout, args...); err != nil {
		t.Fatal(err)
	}
}

// packObjects packs a repository's objects, as a clone has them.
func packObjects(t *testing.T, dir string) {
	gitRun(t, dir, 0, "repack", "-adq")
}

// gitTry runs git in dir with a bench identity; timeout 0 means none.
func gitTry(dir string, timeout time.Duration, args ...string) error {
	ctx := context.Background()
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	// No gc in the background: a detached auto gc packs the objects while
	// the bench copies the repository (cp: cannot stat .git/objects/...),
	// and whether it has finished changes what status costs. packObjects
	// packs them when the bench says so.
	cmd := exec.CommandContext(ctx, "git", append([]string{"-c", "gc.auto=0"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=Bench", "GIT_AUTHOR_EMAIL=bench@example.com",
		"GIT_COMMITTER_NAME=Bench", "GIT_COMMITTER_EMAIL=bench@example.com")
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if err != nil {
		return fmt.Errorf("git %v: %v\n%s", args, err, out)
	}
	return nil
}
