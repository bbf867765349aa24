package record

import (
	"fmt"
	"strings"
)

// Kind is one of the five record kinds.
type Kind string

const (
	Decision    Kind = "decision"
	Pattern     Kind = "pattern"
	Failure     Kind = "failure"
	Handoff     Kind = "handoff"
	Observation Kind = "observation"
)

// kindInfo lists every kind in default ranking order, with its names on disk.
var kindInfo = []struct {
	kind   Kind
	prefix string
	dir    string
	plural string
}{
	{Pattern, "pat-", "patterns", "patterns"},
	{Decision, "dec-", "journal", "decisions"},
	{Failure, "fail-", "failures", "failures"},
	{Handoff, "ho-", "transfer", "handoffs"},
	{Observation, "obs-", "inbox", "observations"},
}

// AllKinds returns the five kinds, patterns first.
func AllKinds() []Kind {
	ks := make([]Kind, len(kindInfo))
	for i, k := range kindInfo {
		ks[i] = k.kind
	}
	return ks
}

func (k Kind) info() (int, bool) {
	for i, ki := range kindInfo {
		if ki.kind == k {
			return i, true
		}
	}
	return 0, false
}

// Known reports whether k is one of the five kinds.
func (k Kind) Known() bool { _, ok := k.info(); return ok }

// Prefix is the ID prefix, such as "dec-".
func (k Kind) Prefix() string { i, _ := k.info(); return kindInfo[i].prefix }

// Dir is the directory under .lore/ that holds this kind.
func (k Kind) Dir() string { i, _ := k.info(); return kindInfo[i].dir }

// Ext is the file extension of this kind's shards.
func (k Kind) Ext() string {
	if k == Pattern {
		return ".toml"
	}
	return ".jsonl"
}

// ParseKind accepts a kind's name, plural, directory or ID prefix
// ("decision", "decisions", "journal", "dec").
func ParseKind(s string) (Kind, error) {
	s = strings.ToLower(strings.TrimSpace(s))
	for _, ki := range kindInfo {
		if s == string(ki.kind) || s == ki.plural || s == ki.dir || s+"-" == ki.prefix {
			return ki.kind, nil
		}
	}
	return "", fmt.Errorf("unknown kind %q (want decision, pattern, failure, handoff or observation)", s)
}

// KindOfID returns the kind an ID's prefix names.
func KindOfID(id string) (Kind, bool) {
	for _, ki := range kindInfo {
		if strings.HasPrefix(id, ki.prefix) {
			return ki.kind, true
		}
	}
	return "", false
}
