// Package inject owns getting the right records in front of an agent:
// keyword extraction from prompts and records, fuzzy matching, ranking
// (shared by lore search and the prompt hook), budgeting and formatting the
// Lore Context block, the resume view, and the hook's JSON input and output
// for each agent host.
package inject
