package kinds

import (
	"strings"
	"testing"

	"lore/record"
)

func TestParseShardReportsWhatItsKindRefuses(t *testing.T) {
	data := `{"v":1,"id":"dec-aaaaaaaa000000000","kind":"decision","ts":"2030-01-01T00:00:00Z","text":"fine"}
{"v":1,"id":"fail-bbbbbbbb000000000","kind":"failure","ts":"2030-01-01T00:00:00Z","text":"no error type"}
not json
{"v":1,"id":"obs-cccccccc000000000","kind":"observation","ts":"2030-01-01T00:00:00Z","text":"x","status":"promoted"}
`
	recs, warns, err := ParseShard("j.jsonl", []byte(data))
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 1 || recs[0].Text != "fine" {
		t.Errorf("kept %d records, want only the valid decision", len(recs))
	}
	var got []string
	for _, w := range warns {
		got = append(got, w.String())
	}
	want := []string{"j.jsonl:2: invalid failure skipped: field \"error_type\"", "j.jsonl:3: malformed record skipped", "j.jsonl:4: invalid observation skipped: field \"promoted_to\""}
	if len(got) != len(want) {
		t.Fatalf("warnings %q", got)
	}
	for i := range want {
		if !strings.HasPrefix(got[i], want[i]) {
			t.Errorf("warning %d = %q, want prefix %q", i, got[i], want[i])
		}
	}
}

func TestEveryKindIsDescribedByItsOwner(t *testing.T) {
	for _, k := range record.AllKinds() {
		r := &record.Record{Kind: k, ID: k.Prefix() + "a1b2c3d4000000000", Text: "t", ErrorType: "E"}
		if h := Describe(r).Heading; !strings.HasPrefix(h, "["+string(k)+"]") {
			t.Errorf("%s reads %q", k, h)
		}
		if err := Check(r); err != nil {
			t.Errorf("a plain %s: %v", k, err)
		}
	}
}
