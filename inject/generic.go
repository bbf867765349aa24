package inject

// genericWords are words that appear in talk about any code (add,
// change, file, run, value): a store of a few hundred records cannot tell
// from its own counts that they say little, so they count for
// genericFactor of their specificity. Topic words (test, build, deploy,
// database) are not here: they do say what a prompt is about. Prompt
// words are matched by their stems: generic (generic_stems.go) holds
// them, written out as stemming these words cost every lore process a
// fifth of a millisecond at start.
const genericWords = `
add added adds adding change changed changes changing create created creates creating write writes
written writing update updated updates updating fix fixed fixes fixing set sets setting get run runs
running ran show shows showing work works worked working issue issues problem problems question
file files code codes function functions method methods class value values list lists time times
size name names type types data page pages way new two three first last second app apps project
projects support supports check checks checking call calls called return returns start starts
started stop stops open opens close line lines output input default option options thing part
parts place case cases number numbers example examples simple small big large long short
better wrong right correct same different difference instead still always never sometimes
everything something nothing anyone someone people team per each every result results
happen happens happened cause causes reason reasons keep keeps kept put take takes took give
gives gave find finds found tell told say says said ask asks asked mean means meant seem seems
`

// genericFactor is how much a generic word counts, of its specificity.
const genericFactor = 0.35
