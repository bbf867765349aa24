package store

import (
	"errors"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// The modes lore creates its files and directories with, before the
// umask: as git makes its own, so a group-shared checkout (umask 002,
// core.sharedRepository=group) lets every member of the group capture,
// and a private umask (077) keeps the store private. Fixed 0644 and 0755
// had a teammate for whom git add and commit worked refused at lore's lock.
const (
	FileMode os.FileMode = 0o666
	DirMode  os.FileMode = 0o777
)

// CreateTemp is os.CreateTemp, pattern's last "*" replaced by a random
// string, but creating the file with FileMode (the umask decides, as for
// any file lore makes) where os.CreateTemp makes it 0600.
func CreateTemp(dir, pattern string) (*os.File, error) {
	prefix, suffix := pattern, ""
	if i := strings.LastIndex(pattern, "*"); i >= 0 {
		prefix, suffix = pattern[:i], pattern[i+1:]
	}
	for try := 0; ; try++ {
		name := filepath.Join(dir, prefix+strconv.FormatUint(uint64(rand.Uint32()), 10)+suffix)
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, FileMode)
		if errors.Is(err, fs.ErrExist) && try < 10000 {
			continue
		}
		return f, err
	}
}
