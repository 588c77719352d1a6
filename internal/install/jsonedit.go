package install

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/blackboard-hub/bb/internal/hub"
)

// This file edits JSON configuration files in place, the way a careful
// person would: it finds the object or array to change by its byte offsets
// and inserts or removes only the text of one member, so every other byte
// of the file — other settings, their formatting, key order, and the
// comments and trailing commas some clients accept (JSONC) — stays as it
// was. Removing what was inserted gives the original text back.

// jnode is a parsed JSON value with its position in the text.
type jnode struct {
	kind       byte // '{', '[', or 's' for a scalar
	start, end int  // the value's bytes are text[start:end]
	members    []jmember
	elems      []*jnode
}

// jmember is one "key": value of an object.
type jmember struct {
	key      string
	keyStart int
	val      *jnode
}

type jparser struct {
	s   string
	pos int
}

var errJSONSyntax = errors.New("invalid JSON")

func (p *jparser) fail(what string) error {
	line := 1 + strings.Count(p.s[:min(p.pos, len(p.s))], "\n")
	return fmt.Errorf("%w: %s at line %d", errJSONSyntax, what, line)
}

// skip passes whitespace and // and /* */ comments.
func (p *jparser) skip() error {
	for p.pos < len(p.s) {
		switch c := p.s[p.pos]; {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			p.pos++
		case c == '/' && strings.HasPrefix(p.s[p.pos:], "//"):
			if i := strings.IndexByte(p.s[p.pos:], '\n'); i >= 0 {
				p.pos += i + 1
			} else {
				p.pos = len(p.s)
			}
		case c == '/' && strings.HasPrefix(p.s[p.pos:], "/*"):
			i := strings.Index(p.s[p.pos+2:], "*/")
			if i < 0 {
				return p.fail("unterminated comment")
			}
			p.pos += i + 4
		default:
			return nil
		}
	}
	return nil
}

// parseJSONC parses a whole document (an object), accepting comments and
// trailing commas, which some clients allow in their settings files.
func parseJSONC(s string) (*jnode, error) {
	p := &jparser{s: s}
	if err := p.skip(); err != nil {
		return nil, err
	}
	n, err := p.value(0)
	if err != nil {
		return nil, err
	}
	if err := p.skip(); err != nil {
		return nil, err
	}
	if p.pos != len(s) {
		return nil, p.fail("unexpected data after the value")
	}
	if n.kind != '{' {
		return nil, errors.New("not a JSON object")
	}
	return n, nil
}

const maxJSONDepth = 200

func (p *jparser) value(depth int) (*jnode, error) {
	if depth > maxJSONDepth {
		return nil, p.fail("nesting too deep")
	}
	if p.pos >= len(p.s) {
		return nil, p.fail("unexpected end")
	}
	n := &jnode{start: p.pos}
	switch c := p.s[p.pos]; c {
	case '{', '[':
		if err := p.container(n, c, depth); err != nil {
			return nil, err
		}
		return n, nil
	case '"':
		if err := p.str(); err != nil {
			return nil, err
		}
	default:
		i := p.pos
		for i < len(p.s) && strings.IndexByte(" \t\r\n,:]}/[{\"", p.s[i]) < 0 {
			i++
		}
		if i == p.pos {
			return nil, p.fail("unexpected character")
		}
		p.pos = i
	}
	n.end = p.pos
	n.kind = 's'
	if !json.Valid([]byte(p.s[n.start:n.end])) {
		return nil, p.fail("invalid value")
	}
	return n, nil
}

// str moves past the string that starts at pos.
func (p *jparser) str() error {
	i := p.pos + 1
	for ; i < len(p.s); i++ {
		if p.s[i] == '\\' {
			i++
			continue
		}
		if p.s[i] == '"' {
			break
		}
	}
	if i >= len(p.s) {
		return p.fail("unterminated string")
	}
	p.pos = i + 1
	return nil
}

// container parses the object or array (c) that starts at pos into n,
// a trailing comma allowed.
func (p *jparser) container(n *jnode, c byte, depth int) error {
	n.kind = c
	closer := byte('}')
	if c == '[' {
		closer = ']'
	}
	p.pos++
	for {
		end, err := p.nextItem(n, closer)
		if err != nil || end {
			return err
		}
		if c == '[' {
			e, err := p.value(depth + 1)
			if err != nil {
				return err
			}
			n.elems = append(n.elems, e)
			continue
		}
		m, err := p.member(depth)
		if err != nil {
			return err
		}
		n.members = append(n.members, m)
	}
}

// nextItem moves to the next item of n: past the comma after the one
// before, or past closer, when it ends n (end).
func (p *jparser) nextItem(n *jnode, closer byte) (end bool, err error) {
	if err := p.skip(); err != nil {
		return false, err
	}
	closes := func() bool {
		if p.pos < len(p.s) && p.s[p.pos] == closer {
			p.pos++
			n.end = p.pos
			return true
		}
		return false
	}
	if closes() {
		return true, nil
	}
	if len(n.members)+len(n.elems) == 0 {
		return false, nil
	}
	if p.pos >= len(p.s) || p.s[p.pos] != ',' {
		return false, p.fail("expected , or " + string(closer))
	}
	p.pos++
	if err := p.skip(); err != nil {
		return false, err
	}
	return closes(), nil // a trailing comma
}

// member parses "key": value.
func (p *jparser) member(depth int) (jmember, error) {
	keyStart := p.pos
	if p.pos >= len(p.s) || p.s[p.pos] != '"' {
		return jmember{}, p.fail("expected a key")
	}
	k, err := p.value(depth + 1)
	if err != nil {
		return jmember{}, err
	}
	var key string
	if err := json.Unmarshal([]byte(p.s[k.start:k.end]), &key); err != nil {
		return jmember{}, p.fail("invalid key")
	}
	if err := p.skip(); err != nil {
		return jmember{}, err
	}
	if p.pos >= len(p.s) || p.s[p.pos] != ':' {
		return jmember{}, p.fail("expected :")
	}
	p.pos++
	if err := p.skip(); err != nil {
		return jmember{}, err
	}
	v, err := p.value(depth + 1)
	if err != nil {
		return jmember{}, err
	}
	return jmember{key: key, keyStart: keyStart, val: v}, nil
}

// member returns the object's member named key (the last one when
// repeated, as JSON readers do), or nil.
func (n *jnode) member(key string) *jmember {
	for i := len(n.members) - 1; i >= 0; i-- {
		if n.members[i].key == key {
			return &n.members[i]
		}
	}
	return nil
}

// lookup follows a path of object keys from n.
func (n *jnode) lookup(path []string) *jnode {
	for _, k := range path {
		if n == nil || n.kind != '{' {
			return nil
		}
		m := n.member(k)
		if m == nil {
			return nil
		}
		n = m.val
	}
	return n
}

// lineIndent is the leading whitespace of the line holding offset i.
func lineIndent(s string, i int) string {
	ls := strings.LastIndexByte(s[:i], '\n') + 1
	j := ls
	for j < len(s) && (s[j] == ' ' || s[j] == '\t') {
		j++
	}
	return s[ls:j]
}

// indentUnit guesses the file's indentation step (two spaces by default).
func indentUnit(s string) string {
	for _, line := range strings.Split(s, "\n") {
		t := strings.TrimLeft(line, " \t")
		if t != "" && len(t) < len(line) {
			return line[:len(line)-len(t)]
		}
	}
	return "  "
}

// renderJSON renders v with the given indentation; multi-line output
// continues at prefix. Compact when unit is "".
func renderJSON(v any, prefix, unit string) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if unit != "" {
		enc.SetIndent(prefix, unit)
	}
	_ = enc.Encode(v)
	return strings.TrimSuffix(buf.String(), "\n")
}

// isMultiline reports whether the container's items sit on their own lines
// (or, when empty, whether the file is laid out on several lines).
func (n *jnode) isMultiline(s string) bool {
	var first int
	switch {
	case len(n.members) > 0:
		first = n.members[len(n.members)-1].keyStart
	case len(n.elems) > 0:
		first = n.elems[len(n.elems)-1].start
	default:
		return fileMultiline(s) || strings.TrimSpace(s[:n.start]) == ""
	}
	return strings.Contains(s[n.start:first], "\n")
}

// fileMultiline reports whether the text is laid out on several lines.
func fileMultiline(s string) bool {
	return strings.Contains(strings.TrimRight(s, "\r\n"), "\n")
}

// insertItem inserts one item text (`"key": value` for an object, a value
// for an array) at the end of container n. render gets the indentation
// prefix and unit ("" = compact) and returns the item's text.
func insertItem(s string, n *jnode, render func(prefix, unit string) string) string {
	unit := indentUnit(s)
	count := len(n.members) + len(n.elems)
	// from:to is replaced by ins.
	var from, to int
	var ins string
	switch {
	case count == 0 && n.isMultiline(s):
		ind := lineIndent(s, n.start)
		from, to = n.start+1, n.end-1
		ins = "\n" + ind + unit + render(ind+unit, unit) + "\n" + ind
	case count == 0:
		from, to = n.start+1, n.end-1
		ins = render("", "")
	default:
		var lastStart int
		if n.kind == '{' {
			m := n.members[count-1]
			lastStart, from = m.keyStart, m.val.end
		} else {
			e := n.elems[count-1]
			lastStart, from = e.start, e.end
		}
		to = from
		if n.isMultiline(s) {
			ind := lineIndent(s, lastStart)
			ins = ",\n" + ind + render(ind, unit)
		} else {
			ins = ", " + render("", "")
		}
	}
	if strings.Contains(s, "\r\n") { // keep a CRLF file CRLF
		ins = strings.ReplaceAll(ins, "\n", "\r\n")
	}
	return s[:from] + ins + s[to:]
}

// removeItem removes item i of container n with the separator that joins
// it to its neighbours; the sole item empties the container to {} or [].
func removeItem(s string, n *jnode, i int) string {
	type span struct{ start, end int }
	var items []span
	for _, m := range n.members {
		items = append(items, span{m.keyStart, m.val.end})
	}
	for _, e := range n.elems {
		items = append(items, span{e.start, e.end})
	}
	switch {
	case len(items) == 1:
		return s[:n.start+1] + s[n.end-1:]
	case i > 0:
		from := items[i-1].end
		// Start at the comma after the previous item, keeping a comment
		// that sits between the previous item and its comma.
		if c := strings.IndexByte(s[from:items[i].start], ','); c >= 0 {
			from += c
		}
		return s[:from] + s[items[i].end:]
	default:
		return s[:items[0].start] + s[items[1].start:]
	}
}

// replaceValue replaces node v's text with the rendering of val, indented
// like the line v starts on.
func replaceValue(s string, v *jnode, val any) string {
	unit := ""
	if fileMultiline(s) {
		unit = indentUnit(s)
	}
	text := renderJSON(val, lineIndent(s, v.start), unit)
	if strings.Contains(s, "\r\n") {
		text = strings.ReplaceAll(text, "\n", "\r\n")
	}
	return s[:v.start] + text + s[v.end:]
}

// memberText renders `"key": value`.
func memberText(key string, val any) func(prefix, unit string) string {
	return func(prefix, unit string) string {
		return renderJSON(key, "", "") + ": " + renderJSON(val, prefix, unit)
	}
}

// jsonEqual reports whether a JSON(C) text and a Go value hold the same
// data (comments and key order aside).
func jsonEqual(text string, v any) bool {
	var x any
	if err := json.Unmarshal([]byte(stripJSONC(text)), &x); err != nil {
		return false
	}
	b, _ := json.Marshal(v)
	var y any
	_ = json.Unmarshal(b, &y)
	return deepEqualJSON(x, y)
}

func deepEqualJSON(a, b any) bool {
	ab, _ := json.Marshal(a)
	bb, _ := json.Marshal(b)
	return bytes.Equal(ab, bb) // maps marshal with sorted keys
}

// stripJSONC returns the value's text without comments and trailing
// commas, for the standard decoder.
func stripJSONC(s string) string {
	var b strings.Builder
	p := &jparser{s: s}
	for p.pos < len(s) {
		c := s[p.pos]
		switch {
		case c == '"':
			n, err := p.value(0)
			if err != nil {
				b.WriteString(s[p.pos:])
				return b.String()
			}
			b.WriteString(s[n.start:n.end])
		case c == '/' && (strings.HasPrefix(s[p.pos:], "//") || strings.HasPrefix(s[p.pos:], "/*")):
			start := p.pos
			if p.skip() != nil {
				return b.String()
			}
			if strings.Contains(s[start:p.pos], "\n") {
				b.WriteByte('\n')
			} else {
				b.WriteByte(' ')
			}
		case c == ',':
			j := p.pos + 1
			q := &jparser{s: s, pos: j}
			_ = q.skip()
			if q.pos < len(s) && (s[q.pos] == '}' || s[q.pos] == ']') {
				p.pos++
				continue
			}
			b.WriteByte(c)
			p.pos++
		default:
			b.WriteByte(c)
			p.pos++
		}
	}
	return b.String()
}

// decodeJSONC decodes a node's text into v.
func decodeJSONC(text string, v any) error {
	return json.Unmarshal([]byte(stripJSONC(text)), v)
}

// jsonDoc is a JSON(C) file being edited.
type jsonDoc struct {
	text string
	root *jnode
}

func openJSONDoc(text string) (*jsonDoc, error) {
	d := &jsonDoc{text: text}
	if strings.TrimSpace(text) == "" {
		d.text = "{}\n"
	}
	return d, d.reparse()
}

// readConfigDoc reads the JSON(C) settings file at path and opens it for
// editing (an empty object when it does not exist or is empty; existed
// is false when it does not exist).
func readConfigDoc(path string) (d *jsonDoc, existed bool, err error) {
	b, err := readConfig(path)
	if err != nil {
		return nil, false, err
	}
	d, err = openConfigDoc(path, string(b))
	return d, b != nil, err
}

// openConfigDoc opens the text of the settings file at path for editing:
// INVALID_INPUT, naming the file, when it is not a JSON object.
func openConfigDoc(path, text string) (*jsonDoc, error) {
	d, err := openJSONDoc(text)
	if err != nil {
		return nil, hub.Errorf(hub.CodeInvalidInput, "%s is not a valid JSON object (%s): fix or move it; nothing was written", path, oneLineErr(err))
	}
	return d, nil
}

func (d *jsonDoc) reparse() error {
	r, err := parseJSONC(d.text)
	if err != nil {
		return err
	}
	d.root = r
	return nil
}

// container walks path from the root, creating missing objects (and, when
// arrayLeaf is set, a missing last element as an array) holding first.
// It returns the container, or — when it had to create part of the path —
// nil and the paths of the members it created, outermost first (first is
// then already inside).
func (d *jsonDoc) container(path []string, arrayLeaf bool, first any) (*jnode, [][]string, error) {
	n := d.root
	for i, k := range path {
		m := n.member(k)
		if m == nil {
			var v any = first
			for j := len(path) - 1; j > i; j-- {
				v = map[string]any{path[j]: v}
			}
			d.text = insertItem(d.text, n, memberText(k, v))
			var created [][]string
			for j := i; j < len(path); j++ {
				created = append(created, append([]string(nil), path[:j+1]...))
			}
			return nil, created, d.reparse()
		}
		want := byte('{')
		if arrayLeaf && i == len(path)-1 {
			want = '['
		}
		if m.val.kind != want {
			kind := "an object"
			if want == '[' {
				kind = "an array"
			}
			return nil, nil, fmt.Errorf("%q is not %s", strings.Join(path[:i+1], "."), kind)
		}
		n = m.val
	}
	return n, nil, nil
}

// setMember sets path.key = val. It reports the created container path (if
// any) and whether the text changed.
func (d *jsonDoc) setMember(path []string, key string, val any) ([][]string, bool, error) {
	n, created, err := d.container(path, false, map[string]any{key: val})
	if err != nil || created != nil {
		return created, created != nil, err
	}
	if m := n.member(key); m != nil {
		if jsonEqual(d.text[m.val.start:m.val.end], val) {
			return nil, false, nil
		}
		d.text = replaceValue(d.text, m.val, val)
		return nil, true, d.reparse()
	}
	d.text = insertItem(d.text, n, memberText(key, val))
	return nil, true, d.reparse()
}

// setElement makes val the one element of the array at path that ours
// recognises: appended when there is none, replaced when it differs, and
// duplicates removed.
func (d *jsonDoc) setElement(path []string, val any, ours func(raw string) bool) ([][]string, bool, error) {
	n, created, err := d.container(path, true, []any{val})
	if err != nil || created != nil {
		return created, created != nil, err
	}
	var mine []int
	for i, e := range n.elems {
		if ours(d.text[e.start:e.end]) {
			mine = append(mine, i)
		}
	}
	if len(mine) == 0 {
		d.text = insertItem(d.text, n, func(prefix, unit string) string { return renderJSON(val, prefix, unit) })
		return nil, true, d.reparse()
	}
	changed := false
	for j := len(mine) - 1; j >= 1; j-- {
		d.text = removeItem(d.text, n, mine[j])
		if err := d.reparse(); err != nil {
			return nil, false, err
		}
		n = d.root.lookup(path)
		changed = true
	}
	e := n.elems[mine[0]]
	if !jsonEqual(d.text[e.start:e.end], val) {
		d.text = replaceValue(d.text, e, val)
		changed = true
	}
	return nil, changed, d.reparse()
}

// removeMember deletes path.key; it reports whether it was there.
func (d *jsonDoc) removeMember(path []string, key string) (bool, error) {
	n := d.root.lookup(path)
	if n == nil || n.kind != '{' {
		return false, nil
	}
	for i := len(n.members) - 1; i >= 0; i-- {
		if n.members[i].key == key {
			d.text = removeItem(d.text, n, i)
			return true, d.reparse()
		}
	}
	return false, nil
}

// removeElements deletes the elements of the array at path that ours
// recognises and reports how many.
func (d *jsonDoc) removeElements(path []string, ours func(raw string) bool) (int, error) {
	removed := 0
	for {
		n := d.root.lookup(path)
		if n == nil || n.kind != '[' {
			return removed, nil
		}
		found := -1
		for i, e := range n.elems {
			if ours(d.text[e.start:e.end]) {
				found = i
				break
			}
		}
		if found < 0 {
			return removed, nil
		}
		d.text = removeItem(d.text, n, found)
		if err := d.reparse(); err != nil {
			return removed, err
		}
		removed++
	}
}

// pruneEmpty removes the member at path when it is an empty object or
// array (a container bb created and no longer needs).
func (d *jsonDoc) pruneEmpty(path []string) error {
	if len(path) == 0 {
		return nil
	}
	n := d.root.lookup(path)
	if n == nil || n.kind == 's' || len(n.members)+len(n.elems) > 0 {
		return nil
	}
	_, err := d.removeMember(path[:len(path)-1], path[len(path)-1])
	return err
}
