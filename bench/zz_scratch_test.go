package bench

import (
	"fmt"
	"os"
	"testing"

	"lore/internal/benchstore"
)

func TestZZGen(t *testing.T) {
	d := os.Getenv("ZZ_DIR")
	if d == "" {
		t.Skip()
	}
	n, seed := 1000, uint64(1)
	fmt.Sscan(os.Getenv("ZZ_N"), &n)
	fmt.Sscan(os.Getenv("ZZ_SEED"), &seed)
	if err := benchstore.Generate(d, n, 25, seed); err != nil {
		t.Fatal(err)
	}
}
