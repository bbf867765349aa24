package inject

import (
	"fmt"

	"lore/record"
)

// Summary is the one-line form used when the budget runs short:
// "[decision] dec-a1b2c3d4 Use JSONL for storage".
func Summary(r *record.Record) string {
	return record.OneLine(fmt.Sprintf("[%s] %s %s", r.Kind, r.Short(), r.Title()))
}
