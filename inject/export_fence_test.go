package inject

import (
	"errors"
	"strings"
	"testing"
)

// Lore's markers inside a fenced code block are an example of them, not
// lore's section: the section is appended after the document (the example
// kept), and the next export replaces that section and only it.
func TestMergeSectionSkipsFencedMarkers(t *testing.T) {
	section := SectionBegin + "\n## Project memory (lore)\n- a decision\n" + SectionEnd + "\n"
	again := strings.Replace(section, "a decision", "another decision", 1)
	example := SectionBegin + "\n(example)\n" + SectionEnd + "\n"
	for _, c := range []struct{ name, doc string }{
		{"backticks", "# Contributing\n\n```\n" + example + "```\n"},
		{"tildes", "# Contributing\n~~~\n" + example + "~~~\n"},
		{"an info string", "# C\n```markdown\n" + example + "```\nafter\n"},
		{"indented 3 spaces", "# C\n   ```\n" + example + "  ```\n"},
		{"a long fence", "# C\n`````\n" + example + "```\n" + example + "``````  \n"},                          // ``` does not close `````
		{"tildes closed by tildes", "# C\n~~~\n```\n" + example + "```\n" + example + "~~~~\n"},                // nor ``` a ~~~ fence
		{"a backtick in a tilde info string", "# C\n~~~ `x`\n" + example + "~~~\n"},                            // allowed after tildes
		{"in a list item", "- an example:\n\n  ```\n  " + strings.ReplaceAll(example, "\n", "\n  ") + "```\n"}, // markers indented too
		{"two examples", "```\n" + example + "```\ntext\n~~~\n" + SectionEnd + "\n~~~\n"},
		{"CRLF", strings.ReplaceAll("# C\n```\n"+example+"```\n", "\n", "\r\n")},
		{"no newline at the end", "# C\n```\n" + example + "```"},
	} {
		out, err := MergeSection(c.doc, section)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		nl := newline(c.doc)
		if want := strings.TrimSuffix(c.doc, nl) + nl + nl + strings.ReplaceAll(section, "\n", nl); out != want {
			t.Errorf("%s: the section was not appended after the document:\n%s", c.name, out)
		}
		out2, err := MergeSection(out, again)
		if want := strings.Replace(out, "a decision", "another decision", 1); err != nil || out2 != want || !strings.Contains(out2, "(example)") {
			t.Errorf("%s: the second export: %v\n%s", c.name, err, out2)
		}
	}

	// A real section after a fenced example is replaced in place, the
	// example kept.
	doc := "# C\n```\n" + example + "```\n" + section + "footer\n"
	out, err := MergeSection(doc, again)
	if err != nil || out != "# C\n```\n"+example+"```\n"+again+"footer\n" {
		t.Errorf("replaced after an example: %v\n%s", err, out)
	}
}

// Lines that are no fence leave the markers after them lore's: a fence
// indented 4 spaces (an indented code block), a run of two, a backtick
// fence whose info string holds a backtick (inline code).
func TestMergeSectionNotFences(t *testing.T) {
	for _, fence := range []string{"    ```", "``", "``` a ` b", "\t```", "-```"} {
		doc := "# T\n" + fence + "\n" + SectionBegin + "\nold\n"
		_, err := MergeSection(doc, SectionBegin+"\nnew\n"+SectionEnd+"\n")
		var me *MarkerError
		if !errors.As(err, &me) || me.Line != 3 {
			t.Errorf("after %q: %v, want the begin marker on line 3 refused", fence, err)
		}
	}
}

// The refusals stay for markers outside fences, and a fence that is never
// closed is refused rather than swallowing the section appended after it
// (the next export would find no section, and append another).
func TestMergeSectionFenceRefusals(t *testing.T) {
	section := SectionBegin + "\nthe memory\n" + SectionEnd + "\n"
	for _, c := range []struct {
		doc  string
		line int
		msg  string
	}{
		{"# T\n```\n" + SectionBegin + "\n```\n" + SectionBegin + "\nold\n", 5, "a lore:begin marker without a lore:end marker below it"},
		{SectionBegin + "\n```\n" + SectionEnd + "\n", 1, "a lore:begin marker without a lore:end marker below it"},
		{"# T\n\n```go\ncode\n", 3, "a code fence that is never closed"},
		{"# T\n~~~\n" + section, 2, "a code fence that is never closed"},
		{"# T\n````\n```\n", 2, "a code fence that is never closed"},
		{section + "```\n" + section + "```\n" + section, 9, "a second lore:begin marker (the first is on line 1)"},
	} {
		_, err := MergeSection(c.doc, section)
		var me *MarkerError
		if !errors.As(err, &me) || me.Line != c.line || !strings.HasPrefix(me.Msg, c.msg) {
			t.Errorf("MergeSection(%q): %v, want line %d: %s", c.doc, err, c.line, c.msg)
		}
		if me != nil && strings.HasPrefix(c.msg, "a code fence") && !strings.Contains(me.Hint, "close the code block") {
			t.Errorf("MergeSection(%q): hint %q", c.doc, me.Hint)
		}
	}
	// A document whose section comes before a fence left open is replaced
	// in place: the section is outside the code block.
	doc := "# T\n" + section + "```\ncode\n"
	if out, err := MergeSection(doc, strings.Replace(section, "the memory", "new", 1)); err != nil || !strings.HasPrefix(out, "# T\n"+SectionBegin+"\nnew\n") {
		t.Errorf("section before an open fence: %v\n%s", err, out)
	}
}
