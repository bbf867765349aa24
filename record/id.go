package record

import (
	"crypto/rand"
	"fmt"
	"strings"
	"time"
)

// IDAlphabet is Crockford's base32 in lower case: no i, l, o, u, so IDs read
// aloud or typed from a screen do not get confused.
const IDAlphabet = "0123456789abcdefghjkmnpqrstvwxyz"

// ShortLen is how many characters after the kind prefix are shown.
const ShortLen = 8

// NewID returns a fresh ID for kind: the kind prefix, 8 random characters
// (40 bits, shown as the short ID, so short IDs do not cluster in time) and
// 9 characters of milliseconds since the epoch. Together they make
// collisions between clones practically impossible.
func NewID(k Kind, now time.Time) string {
	var b [5]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(fmt.Sprintf("lore: crypto/rand failed: %v", err))
	}
	var sb strings.Builder
	sb.WriteString(k.Prefix())
	bits := uint64(b[0])<<32 | uint64(b[1])<<24 | uint64(b[2])<<16 | uint64(b[3])<<8 | uint64(b[4])
	for i := 7; i >= 0; i-- {
		sb.WriteByte(IDAlphabet[(bits>>(uint(i)*5))&31])
	}
	ms := uint64(now.UnixMilli())
	for i := 8; i >= 0; i-- {
		sb.WriteByte(IDAlphabet[(ms>>(uint(i)*5))&31])
	}
	return sb.String()
}

// ShortID is the form shown to people: prefix plus ShortLen characters.
func ShortID(id string) string {
	dash := strings.IndexByte(id, '-')
	if dash < 0 || len(id) <= dash+1+ShortLen {
		return id
	}
	return id[:dash+1+ShortLen]
}

// ValidID reports whether id looks like a lore ID of a known kind.
func ValidID(id string) bool {
	k, ok := KindOfID(id)
	if !ok {
		return false
	}
	rest := id[len(k.Prefix()):]
	if len(rest) < ShortLen {
		return false
	}
	for _, c := range rest {
		if !strings.ContainsRune(IDAlphabet, c) {
			return false
		}
	}
	return true
}
