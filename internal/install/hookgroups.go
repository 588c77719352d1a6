package install

import (
	"slices"
	"strings"

	"github.com/blackboard-hub/bb/internal/hub"
)

// HookGroup is one element to keep under hooks.<Event> of a settings file
// shaped like Claude Code's ({"hooks": {"<Event>": [group, …]}}).
type HookGroup struct {
	Event string
	Entry any
}

// Hook change verdicts, per event.
const (
	HookAdded     = "added"
	HookReplaced  = "replaced"
	HookUnchanged = "unchanged"
)

// setHookGroups makes each group the one element of hooks.<Event> that
// ours recognises (added, replaced, or left as it is), keeping every other
// element and byte. It returns the containers it created and, per group,
// its verdict.
func (d *jsonDoc) setHookGroups(groups []HookGroup, ours func(raw string) bool) ([][]string, []string, error) {
	var created [][]string
	verdicts := make([]string, len(groups))
	for i, g := range groups {
		path := []string{"hooks", g.Event}
		had := d.countElements(path, ours) > 0
		c, changed, err := d.setElement(path, g.Entry, ours)
		if err != nil {
			return nil, nil, err
		}
		created = append(created, c...)
		switch {
		case !had:
			verdicts[i] = HookAdded
		case changed:
			verdicts[i] = HookReplaced
		default:
			verdicts[i] = HookUnchanged
		}
	}
	return created, verdicts, nil
}

// removeStaleHooks removes bb's entries for client under the events bb no
// longer wires (an older bb's), and an event's array that this empties.
func (d *jsonDoc) removeStaleHooks(client string) error {
	hooks := d.root.lookup([]string{"hooks"})
	if hooks == nil || hooks.kind != '{' {
		return nil
	}
	var stale []string
	for _, m := range hooks.members {
		if !slices.Contains(eventNames(client), m.key) {
			stale = append(stale, m.key)
		}
	}
	for _, ev := range stale {
		n, err := d.removeElements([]string{"hooks", ev}, ourHookEntry(client))
		if err != nil {
			return err
		}
		if n > 0 {
			if err := d.pruneEmpty([]string{"hooks", ev}); err != nil {
				return err
			}
		}
	}
	return nil
}

// countElements is how many elements of the array at path ours recognises.
func (d *jsonDoc) countElements(path []string, ours func(raw string) bool) int {
	n := d.root.lookup(path)
	if n == nil || n.kind != '[' {
		return 0
	}
	count := 0
	for _, e := range n.elems {
		if ours(d.text[e.start:e.end]) {
			count++
		}
	}
	return count
}

// SetHookGroups edits the settings file at path (created when missing):
// each group becomes the one element of hooks.<Event> that ours recognises.
// Every other setting, hook and byte of the file stays; the file is written
// (atomically, keeping its mode) only when something changed. It returns
// one verdict per group: HookAdded, HookReplaced or HookUnchanged.
func SetHookGroups(path string, groups []HookGroup, ours func(raw string) bool) ([]string, error) {
	d, _, err := readConfigDoc(path)
	if err != nil {
		return nil, err
	}
	before := d.text
	_, verdicts, err := d.setHookGroups(groups, ours)
	if err != nil {
		return nil, hub.Errorf(hub.CodeInvalidInput, "%s: %s; nothing was written", path, oneLineErr(err))
	}
	if d.text != before {
		if err := WriteFile(path, []byte(d.text)); err != nil {
			return nil, err
		}
	}
	return verdicts, nil
}

// RemoveHookGroups removes from the settings file at path the elements of
// hooks.<event> that ours recognises, for each of events, and an event's
// array when that leaves it empty. It returns the events it removed
// something from; the file is written only when that is not empty.
func RemoveHookGroups(path string, events []string, ours func(raw string) bool) ([]string, error) {
	d, _, err := readConfigDoc(path)
	if err != nil {
		return nil, err
	}
	var removed []string
	for _, ev := range events {
		n, err := d.removeElements([]string{"hooks", ev}, ours)
		if err != nil {
			return nil, hub.Errorf(hub.CodeInvalidInput, "%s: %s; nothing was written", path, oneLineErr(err))
		}
		if n == 0 {
			continue
		}
		removed = append(removed, ev)
		if err := d.pruneEmpty([]string{"hooks", ev}); err != nil {
			return nil, err
		}
	}
	if len(removed) > 0 {
		if err := WriteFile(path, []byte(d.text)); err != nil {
			return nil, err
		}
	}
	return removed, nil
}

// DecodeJSONC decodes a JSON text that may hold comments and trailing
// commas (as client settings files do) into v.
func DecodeJSONC(text string, v any) error {
	if strings.TrimSpace(text) == "" {
		text = "{}"
	}
	return decodeJSONC(text, v)
}

// WriteFile replaces a file's content atomically, keeping its mode and
// creating its directory.
func WriteFile(path string, content []byte) error { return writeConfig(path, content) }
