package proftmp
import ("context";"testing";"time";"lore/lore";"lore/inject")
func BenchmarkWarm100k(b *testing.B){
 for b.Loop(){
  s,_:=lore.Open("/tmp/s100000/.lore"); snap,err:=s.Snapshot(context.Background(), lore.SnapshotOptions{Tokenizer: inject.Tokenizer(), Fast:true}); if err!=nil {b.Fatal(err)}; ix:=inject.NewIndex(snap.Current, s.Config)
  inject.PromptContext(ix, s.Config, "the invoice export times out on CI after the upgrade", 2000, time.Now(), nil)
 }
}
