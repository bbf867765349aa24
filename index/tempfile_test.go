package index

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"lore/record"
)

// temps lists the temporary files in the index directory.
func temps(t *testing.T, dir string) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(dir, tempPrefix+"*"))
	if err != nil {
		t.Fatal(err)
	}
	for i := range m {
		m[i] = filepath.Base(m[i])
	}
	return m
}

// A reader killed while it writes a segment leaves a temporary file as big
// as the segment; the next update of the index removes it, but never one a
// live writer holds, however old.
func TestDeadWritersTempFilesAreRemoved(t *testing.T) {
	s := newTestStore(t)
	capture(t, s, record.Decision, "first decision")
	mustMatch(t, s, open(t, s, false), "first build")
	dir := indexDir(s, tokenizer())

	dead := filepath.Join(dir, ".tmp-20250101T000000-0123456789ab.seg-1234")
	deadManifest := filepath.Join(dir, ".tmp-manifest-5678")
	for _, p := range []string{dead, deadManifest} {
		if err := os.WriteFile(p, make([]byte, 4096), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	var live *os.File
	if renameOpen { // where there are locks, a live writer's file is kept even when old
		var err error
		if live, err = createTemp(dir, ".tmp-20250101T000000-ba9876543210.seg-*"); err != nil {
			t.Fatal(err)
		}
		defer live.Close()
	}
	old := time.Now().Add(-time.Hour)
	for _, p := range temps(t, dir) {
		if err := os.Chtimes(filepath.Join(dir, p), old, old); err != nil {
			t.Fatal(err)
		}
	}

	capture(t, s, record.Decision, "second decision")
	mustMatch(t, s, open(t, s, false), "after a capture")
	var want []string
	if live != nil {
		want = []string{filepath.Base(live.Name())}
	}
	if got := temps(t, dir); !slices.Equal(got, want) {
		t.Fatalf("temporary files after an update: %v, want %v", got, want)
	}
	if live == nil {
		return
	}
	live.Close() // its writer is done (or dead)
	capture(t, s, record.Decision, "third decision")
	mustMatch(t, s, open(t, s, false), "after the writer let go")
	if got := temps(t, dir); len(got) != 0 {
		t.Fatalf("temporary files after the writer let go: %v", got)
	}
}

// The file a writer is writing survives removeOrphans until it is renamed;
// one renamed into place is not touched.
func TestWriteFileHoldsItsTempFile(t *testing.T) {
	if !renameOpen {
		t.Skip("no locks here")
	}
	dir := t.TempDir()
	f, err := createTemp(dir, ".tmp-x.seg-*")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	removeOrphans(dir, nil, nil)
	if _, err := os.Stat(f.Name()); err != nil {
		t.Fatalf("a live writer's temporary file was removed: %v", err)
	}
	if err := os.Rename(f.Name(), filepath.Join(dir, "x.seg")); err != nil {
		t.Fatal(err)
	}
	f.Close()
	removeOrphans(dir, nil, nil)
	if _, err := os.Stat(filepath.Join(dir, "x.seg")); err != nil {
		t.Fatalf("the renamed file: %v", err)
	}
	if err := writeFile(filepath.Join(dir, "y.seg"), []byte("a"), []byte("b")); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "y.seg")); err != nil || string(b) != "ab" {
		t.Fatalf("writeFile wrote %q, %v", b, err)
	}
	if got := temps(t, dir); len(got) != 0 {
		t.Fatalf("writeFile left %v", got)
	}
}

// A writer killed with SIGKILL holds no lock any more: its temporary file
// is removed.
func TestKilledWritersTempFileIsRemoved(t *testing.T) {
	if dir := os.Getenv("LORE_TEST_TEMP_WRITER"); dir != "" {
		f, err := createTemp(dir, ".tmp-killed.seg-*")
		if err != nil {
			os.Exit(2)
		}
		f.WriteString("half a segment")
		os.Stdout.WriteString(f.Name() + "\n")
		time.Sleep(time.Minute) // killed before it wakes
		os.Exit(3)
	}
	if !renameOpen {
		t.Skip("no locks here")
	}
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestKilledWritersTempFileIsRemoved$")
	cmd.Env = append(os.Environ(), "LORE_TEST_TEMP_WRITER="+dir)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	name, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("the writer did not start: %v", err)
	}
	removeOrphans(dir, nil, nil)
	if got := temps(t, dir); len(got) != 1 {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("while the writer lives: %v, want its file", got)
	}
	cmd.Process.Kill()
	cmd.Wait()
	removeOrphans(dir, nil, nil)
	if got := temps(t, dir); len(got) != 0 {
		t.Fatalf("after the writer (%s) was killed: %v", name, got)
	}
}
